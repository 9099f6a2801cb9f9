// The upstream client against hostile or broken upstreams: bodies too large (also as a gzip bomb), redirects off
// the source's host, bodies that are not the real answer, Retry-After, and never caching what failed.
import assert from "node:assert/strict";
import http from "node:http";
import zlib from "node:zlib";
import type { AddressInfo } from "node:net";
import { fixture, freeAccess, getJson, startTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A loopback upstream whose answer each test sets, counting the requests it gets. */
async function fakeUpstream(): Promise<{ url: string; requests: () => number; answer: (h: Handler) => void; close: () => void }> {
  let handler: Handler = (_req, res) => res.end();
  let count = 0;
  const server = http.createServer((req, res) => {
    count++;
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => count,
    answer: (h) => ((handler = h), (count = 0)),
    close: () => (server.closeAllConnections(), server.close()),
  };
}

const csv = (_req: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(200, { "content-type": "application/csv" }).end(fixture("bank-of-england:IUDBEDR.csv"));
const BANK_RATE = "/v1/bank-of-england/bank-rate?from=2025-08-01";

describe("upstream safety", () => {
  let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
  let server: Running;
  before(async () => {
    upstream = await fakeUpstream();
    server = await startTestServer({
      access: freeAccess,
      env: { UPSTREAM_BANK_OF_ENGLAND: upstream.url, UPSTREAM_MAX_BYTES: String(1024 * 1024), UPSTREAM_BUDGET_MS: "3000" },
      config: { upstreamRetries: 2 },
    });
  });
  afterEach(() => server.engine.clearCaches());
  after(async () => {
    await server.close();
    upstream.close();
  });

  it("drops a body over the cap while it streams: 502 upstream_too_large", async () => {
    upstream.answer((_req, res) => {
      res.writeHead(200, { "content-type": "application/csv" });
      res.write("DATE,IUDBEDR\n");
      const line = "01 Aug 2025,4.25\n".repeat(4096);
      const push = () => { if (!res.destroyed && res.write(line)) setImmediate(push); else if (!res.destroyed) res.once("drain", push); };
      push();
    });
    const res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 502);
    assert.equal(res.body.code, "upstream_too_large");
    assert.match(res.body.detail, /more than 1 MB/);
    assert.equal(upstream.requests(), 1, "not retried");
  });

  it("counts the body after decompression, so a small gzip bomb is caught too", async () => {
    const bomb = zlib.gzipSync(Buffer.concat([Buffer.from("DATE,IUDBEDR\n"), Buffer.alloc(20 * 1024 * 1024, "0")]));
    assert.ok(bomb.length < 100_000);
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/csv", "content-encoding": "gzip" }).end(bomb));
    const res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 502);
    assert.equal(res.body.code, "upstream_too_large");
  });

  it("does not follow a redirect to another host", async () => {
    upstream.answer((_req, res) => res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end());
    const res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 502);
    assert.match(res.body.detail, /redirected to another host \(http:\/\/169\.254\.169\.254\)/);
  });

  it("follows a redirect within the source's host, and the answer names the URL that answered", async () => {
    upstream.answer((req, res) => (req.url!.startsWith("/moved") ? csv(req, res) : res.writeHead(301, { location: `/moved${req.url}` }).end()));
    const res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 200);
    assert.match(res.body.meta.sources[0].url, /^https:\/\/www\.bankofengland\.co\.uk\/moved\/boeapps\//);
  });

  it("refuses an empty body or a maintenance page as the answer: 502, not charged, and not cached", async () => {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/csv" }).end(""));
    let res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 502);
    assert.equal(res.body.code, "upstream_bad_response");
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("Service temporarily unavailable for maintenance"));
    res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 502);
    assert.match(res.body.detail, /not its usual CSV answer/);
    upstream.answer(csv);
    res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 200, "the failures were not cached");
    assert.equal(res.body.data.latest.value, 4);
  });

  it("caches a good answer: the second call does not reach the upstream", async () => {
    upstream.answer(csv);
    await getJson(`${server.url}${BANK_RATE}`);
    const res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 200);
    assert.equal(upstream.requests(), 1);
    assert.equal(res.body.meta.sources[0].cached, true);
  });

  it("does not cache an upstream answer whose transform failed", async () => {
    upstream.answer((_req, res) => res.writeHead(200, { "content-type": "application/csv" }).end("DATE,OTHER\n01 Aug 2025,1\n"));
    const first = await getJson(`${server.url}/v1/bank-of-england/series?code=IUDBEDR&from=2025-08-01`);
    assert.equal(first.status, 502, "a CSV without the series' column is not its answer");
    upstream.answer(csv);
    const second = await getJson(`${server.url}/v1/bank-of-england/series?code=IUDBEDR&from=2025-08-01`);
    assert.equal(upstream.requests(), 1, "asked again: the first answer was not reused");
    assert.equal(second.status, 200);
    assert.equal(second.body.data.latest.value, 4);
  });

  it("waits out a short Retry-After and then answers", async () => {
    let n = 0;
    upstream.answer((_req, res) => (n++ === 0 ? res.writeHead(429, { "retry-after": "1" }).end() : csv(_req, res)));
    const started = Date.now();
    const res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 200);
    assert.ok(Date.now() - started >= 900, "waited about the second it asked for");
  });

  it("passes a Retry-After longer than the call's budget on to the caller: 503 upstream_busy, asked once", async () => {
    upstream.answer((_req, res) => res.writeHead(429, { "retry-after": "120" }).end());
    const res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 503);
    assert.equal(res.body.code, "upstream_busy");
    assert.equal(res.headers.get("retry-after"), "120");
    assert.equal(upstream.requests(), 1, "no retries in a burst");
  });

  it("keeps all retries within the call's time budget", async () => {
    upstream.answer(() => { /* never answers */ });
    const started = Date.now();
    const res = await getJson(`${server.url}${BANK_RATE}`);
    assert.equal(res.status, 502);
    assert.equal(res.body.code, "upstream_timeout");
    assert.ok(Date.now() - started < 4_500, `answered within the 3 s budget (took ${Date.now() - started} ms)`);
  });
});
