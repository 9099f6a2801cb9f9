// A dataset load does not hold up the server: /health keeps answering while a 20 MB file is parsed, and stopping
// the server during a download or a parse ends it at once, without an error. The upstream is a loopback server
// standing in for OurAirports (UPSTREAM_OURAIRPORTS): a 20 MB airports.csv that is not the OurAirports format
// (so its parse runs to the end and is refused), the other five files from plugins/airports/fixtures/airports.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pino } from "pino";
import { datasetCopy, freeAccess, getJson, startTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

const JUNK = Buffer.from("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t\n".repeat(500_000));

interface LogLine { level: number; msg: string; dataset?: string; error?: string }

/** The OurAirports stand-in; `hold` keeps airports.csv half sent until the connection is closed. */
async function ourAirports(opts: { hold?: boolean } = {}): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    const file = path.basename(new URL(req.url ?? "/", "http://x").pathname);
    if (file !== "airports.csv") return void res.end(fs.readFileSync(datasetCopy("airports", file)));
    res.writeHead(200, { "content-length": String(JUNK.length) });
    if (opts.hold) res.write(JUNK.subarray(0, 64 * 1024));
    else res.end(JUNK);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => (server.closeAllConnections(), server.close()) };
}

/** A server loading its datasets in the background, every log line kept. */
async function serverLoading(upstream: string): Promise<{ server: Running; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const server = await startTestServer({ access: freeAccess, log, env: { UPSTREAM_OURAIRPORTS: upstream, DATASET_REFRESH: "on" } });
  return { server, lines };
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited a minute for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const airportsState = async (server: Running) =>
  (await getJson(`${server.url}/health`)).body.datasets.find((d: { name: string }) => d.name === "airports");

describe("a dataset load does not hold up the server", () => {
  let upstream: { close: () => void } | undefined;
  let server: Running | undefined;
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => void unhandled.push(e);
  before(() => process.on("unhandledRejection", onUnhandled));
  afterEach(async () => {
    await server?.close();
    upstream?.close();
    server = upstream = undefined;
  });
  after(() => process.off("unhandledRejection", onUnhandled));

  it("/health keeps answering while a 20 MB airports.csv is parsed", async function () {
    this.timeout(120_000);
    const up = await ourAirports();
    upstream = up;
    ({ server } = await serverLoading(up.url));
    // The longest wait between one /health answer and the next, from the start until the load has ended.
    let slowest = 0;
    let state = await airportsState(server);
    let last = performance.now();
    while (state.state === "loading") {
      await new Promise((r) => setTimeout(r, 50));
      state = await airportsState(server);
      slowest = Math.max(slowest, performance.now() - last);
      last = performance.now();
    }
    assert.match(state.last_failure?.error ?? "", /airports\.csv lacks the columns/, "the 20 MB file was parsed to its end while /health was asked");
    assert.ok(slowest < 3_000, `/health went ${Math.round(slowest)} ms without an answer during the load`);
  });

  it("a stop during a download ends it at once: close() resolves, nothing is logged as an error, no failure is recorded", async function () {
    const up = await ourAirports({ hold: true });
    upstream = up;
    const started = await serverLoading(up.url);
    server = started.server;
    await until("the download of airports.csv", () => started.lines.some((l) => l.msg === "downloading airports.csv"));
    const datasets = server.engine.datasets;
    await server.close();
    server = undefined;
    assert.deepEqual(started.lines.filter((l) => l.level >= 50), []);
    assert.deepEqual(unhandled, []);
    assert.equal(datasets.status().find((d) => d.name === "airports")?.last_failure, undefined, "a stop is not a failed sync");
    assert.ok(started.lines.some((l) => l.msg === "dataset load stopped: the server is stopping"));
  });

  it("a stop during a parse ends it at once: close() resolves before the parse has run its course, without an error", async function () {
    const up = await ourAirports();
    upstream = up;
    const started = await serverLoading(up.url);
    server = started.server;
    await until("the parse of airports.csv", () => started.lines.some((l) => l.msg === "reading airports.csv"));
    await server.close();
    server = undefined;
    assert.deepEqual(started.lines.filter((l) => l.level >= 50), [], "the parse did not go on to fail after the stop");
    assert.deepEqual(unhandled, []);
  });
});
