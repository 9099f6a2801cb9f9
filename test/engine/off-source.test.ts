// No request leaves its source, whatever built its path: a link taken from an upstream's answer such as
// "https://api.weather.gov@127.0.0.1:<port>/x" (the base becomes a user name) is refused by the upstream client
// before any connection, for YAML steps and plugins alike, as a 502 upstream_bad_response. A per-request base URL
// (RDAP) must be a public https server.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { UpstreamClient } from "../../engine/upstream/client.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import { createLogger } from "../../engine/basics/log.ts";
import { fixture, freeAccess, getJson, isolateNetwork, startTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";
import type { Source } from "../../engine/upstream/sources.ts";

/** A loopback server that counts the connections it is offered (a connection alone is the forgery). */
async function bystander(): Promise<{ port: number; connections: () => number; close: () => void }> {
  let n = 0;
  const server = http.createServer((_req, res) => res.end("{}"));
  server.on("connection", () => n++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, connections: () => n, close: () => (server.closeAllConnections(), server.close()) };
}

const offSource = (re: RegExp) => (e: unknown) => {
  assert.ok(e instanceof UpstreamError, String(e));
  assert.equal(e.kind, "off_source");
  assert.match(e.message, re);
  return true;
};

describe("engine: a request's URL stays on its source", () => {
  const source = (name: string, base: string) => ({ name, publisher: name, base_url: base, public_base_url: base }) as unknown as Source;
  const client = new UpstreamClient(new Map([["nws", source("nws", "https://api.weather.gov")], ["rdap", source("rdap", "https://rdap.org")]]),
    { timeoutMs: 2000, retries: 0, cacheMaxEntries: 10, log: createLogger("silent") });
  let other: Awaited<ReturnType<typeof bystander>>;
  before(async () => {
    isolateNetwork();
    other = await bystander();
  });
  afterEach(() => nock.cleanAll());
  after(() => other.close());

  it("refuses a path that is not a path on the source's server, and connects nowhere", async () => {
    for (const path of [`@127.0.0.1:${other.port}/x`, `:${other.port}/x`, "x/y", `.evil.example/x`, `//127.0.0.1:${other.port}/x`]) {
      await assert.rejects(client.fetch({ source: "nws", path }), offSource(/not a path on its own server https:\/\/api\.weather\.gov.*it was not called/));
    }
    assert.equal(other.connections(), 0);
  });

  it("keeps a path that starts with one / on the source's host, whatever follows", async () => {
    const scope = nock("https://api.weather.gov").get("/a/@127.0.0.1/x").reply(200, { ok: true });
    assert.deepEqual((await client.fetch({ source: "nws", path: "/a/@127.0.0.1/x" })).body, { ok: true });
    assert.ok(scope.isDone());
    assert.equal(other.connections(), 0);
  });

  it("refuses a per-request base URL that is not a public https server", async () => {
    for (const [baseUrl, why] of [
      ["http://rdap.example.net", /not https/],
      ["https://127.0.0.1", /private, local or reserved address/],
      ["https://169.254.169.254", /private, local or reserved address/],
      ["https://10.1.2.3", /private, local or reserved address/],
      ["https://localhost", /local host name/],
      ["https://rdap.internal", /local host name/],
      [`https://rdap.example.net:${other.port}`, /uses port/],
    ] as const) {
      await assert.rejects(client.fetch({ source: "rdap", baseUrl, path: "/ip/8.8.8.8" }), offSource(why));
    }
  });
});

describe("engine: an upstream's link to another server (us-weather)", () => {
  let server: Running;
  let other: Awaited<ReturnType<typeof bystander>>;
  /** The real /points answer, its links pointing at the bystander through a user name. */
  const points = () => {
    const body = JSON.parse(fixture("us-weather:points-30-minus85.json"));
    const evil = `https://api.weather.gov@127.0.0.1:${other.port}`;
    body.properties.forecast = `${evil}/gridpoints/TAE/58,65/forecast`;
    body.properties.observationStations = `${evil}/gridpoints/TAE/58,65/stations`;
    return body;
  };
  before(async () => {
    other = await bystander();
    server = await startTestServer({ access: freeAccess, env: { NWS_USER_AGENT: "public-data-api tests (ops@example.org)" } });
  });
  afterEach(() => {
    nock.cleanAll();
    server.engine.clearCaches();
  });
  after(async () => {
    await server.close();
    other.close();
  });

  for (const [operation, kind] of [["forecast", "a YAML step"], ["observation", "a plugin's ctx.fetch"]]) {
    it(`${operation} (${kind}): 502 upstream_bad_response, and the other server is not contacted`, async () => {
      const nws = nock("https://api.weather.gov").get("/points/30,-85").reply(200, points(), { "content-type": "application/geo+json" });
      const res = await getJson(`${server.url}/v1/us-weather/${operation}?lat=30&lon=-85`);
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.code, "upstream_bad_response");
      assert.match(res.body.detail, /The upstream source nws was to be asked for "@127\.0\.0\.1:\d+\/gridpoints\/TAE\/58,65\/\w+", which is not a path on its own server https:\/\/api\.weather\.gov .*it was not called\. The call was not charged/);
      assert.ok(nws.isDone());
      assert.equal(other.connections(), 0);
    });
  }
});
