// A POST step may send its body as an HTML form (body_format: form), as some upstreams take only that
// (NHTSA vPIC's batch VIN decoder): the fields are URL-encoded, the content type says so, null fields are left out.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { UpstreamClient } from "../../engine/upstream/client.ts";
import type { Source } from "../../engine/upstream/sources.ts";

const silent = { debug() {}, info() {}, warn() {}, error() {} } as never;

describe("POST bodies sent as a form", () => {
  let server: http.Server;
  let seen: { type?: string; body: string }[] = [];
  let client: UpstreamClient;
  before(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ type: req.headers["content-type"], body });
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const source: Source = { name: "local", publisher: "test", base_url: base, public_base_url: base, envVar: "UPSTREAM_LOCAL" };
    client = new UpstreamClient(new Map([["local", source]]), { timeoutMs: 2_000, retries: 0, cacheMaxEntries: 10, log: silent, env: {} });
  });
  after(() => server.close());
  beforeEach(() => (seen = []));

  it("URL-encodes the fields with the form content type", async () => {
    const res = await client.fetch({ source: "local", path: "/batch", method: "POST", bodyFormat: "form", body: { format: "json", data: "5UXWX7C5*BA,2011;5YJSA3DS*EF", none: null } });
    assert.deepEqual(res.body, { ok: true });
    assert.equal(seen[0].type, "application/x-www-form-urlencoded");
    assert.equal(seen[0].body, "format=json&data=5UXWX7C5*BA%2C2011%3B5YJSA3DS*EF");
  });

  it("still sends JSON by default", async () => {
    await client.fetch({ source: "local", path: "/batch", method: "POST", body: { a: 1 } });
    assert.equal(seen[0].type, "application/json");
    assert.equal(seen[0].body, '{"a":1}');
  });
});
