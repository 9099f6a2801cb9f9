// Sources with http_cache: true keep a response until its Expires and revalidate it with If-Modified-Since.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { pino } from "pino";
import { UpstreamClient } from "../../engine/upstream/client.ts";
import type { Source } from "../../engine/upstream/sources.ts";
import { isolateNetwork } from "../support/helpers.ts";

const BASE = "https://cache.example";
function client(httpCache: boolean, base = BASE): UpstreamClient {
  const source: Source = { name: "s", envVar: "UPSTREAM_S", base_url: base, public_base_url: base, publisher: "test", http_cache: httpCache };
  return new UpstreamClient(new Map([["s", source]]), { timeoutMs: 2_000, retries: 0, cacheMaxEntries: 10, log: pino({ level: "silent" }) });
}
const LAST_MODIFIED = "Tue, 01 Sep 2026 10:00:00 GMT";

describe("engine: upstream http_cache (Expires and If-Modified-Since)", () => {
  before(isolateNetwork);
  afterEach(() => nock.cleanAll());

  it("keeps a response until its Expires even when the endpoint caches for less", async () => {
    const c = client(true);
    const scope = nock(BASE).get("/f").once().reply(200, { n: 1 }, { expires: new Date(Date.now() + 3_600_000).toUTCString(), "last-modified": LAST_MODIFIED });
    const first = await c.fetch({ source: "s", path: "/f", cacheMs: 0 });
    const second = await c.fetch({ source: "s", path: "/f", cacheMs: 0 });
    assert.deepEqual(second.body, { n: 1 });
    assert.equal(first.cached, false);
    assert.equal(second.cached, true);
    assert.ok(scope.isDone());
  });

  it("once expired, asks again with If-Modified-Since and reuses the body on 304", async () => {
    const c = client(true);
    const past = new Date(Date.now() - 1_000).toUTCString();
    nock(BASE).get("/f").reply(200, { n: 1 }, { expires: past, "last-modified": LAST_MODIFIED });
    const revalidated = nock(BASE).get("/f").matchHeader("if-modified-since", LAST_MODIFIED).reply(304, "", { expires: past });
    await c.fetch({ source: "s", path: "/f" });
    const again = await c.fetch({ source: "s", path: "/f" });
    assert.ok(revalidated.isDone());
    assert.deepEqual(again.body, { n: 1 });
    assert.equal(again.cached, true);
  });

  it("does neither for a source without http_cache", async () => {
    const seen: (string | undefined)[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers["if-modified-since"]);
      res.writeHead(200, { "content-type": "application/json", expires: new Date(Date.now() + 3_600_000).toUTCString(), "last-modified": LAST_MODIFIED }).end('{"n":1}');
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const c = client(false, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      await c.fetch({ source: "s", path: "/f" });
      await c.fetch({ source: "s", path: "/f" });
      assert.deepEqual(seen, [undefined, undefined], "asked twice, never conditionally");
    } finally {
      server.close();
    }
  });
});
