// In-process numbers: a cached endpoint through the whole engine against a bare Express app answering the same
// JSON, both in this process beside autocannon; and createEngine's time in this process (after the first, the
// modules are loaded already). As production runs it: npm run bench -- access, and -- startup.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import express from "express";
import autocannon from "autocannon";
import { startServer } from "../engine/http/server.ts";
import { createEngine } from "../engine/engine.ts";
import type { Access } from "../engine/access/types.ts";

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const CSV = "DATE,IUDBEDR\n01 Aug 2025,4.25\n04 Aug 2025,4.25\n05 Aug 2025,4.25\n06 Aug 2025,4.25\n07 Aug 2025,4\n08 Aug 2025,4\n";

/** Payment checks are measured by the access benchmark; this one measures the engine's own pipeline. */
const freeAccess: Access = {
  authorize: async () => ({ paidBy: "free", headers: {}, commit: async () => ({ headers: {}, meta: {} }), release: async () => {} }),
  close: async () => {},
};

async function load(url: string): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration: DURATION_S });
}

function listen(app: http.RequestListener): Promise<{ url: string; close: () => void }> {
  return new Promise((resolve) => {
    const s = http.createServer(app).listen(0, "127.0.0.1", () => {
      resolve({ url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, close: () => { s.closeAllConnections(); s.close(); } });
    });
  });
}

export default async function engineBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pda-bench-"));
  const env = { ...process.env, LOG_LEVEL: "silent", DATA_DIR: dataDir, DATASET_REFRESH: "off" };

  const starts: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const e = await createEngine({ env, access: freeAccess });
    starts.push(performance.now() - t0);
    await e.close();
  }
  const endpoints = (await createEngine({ env, access: freeAccess })).registry.endpoints.size;
  console.log(`in-process createEngine (${endpoints} endpoint files read and checked, compiled when first called): median ${starts.sort((a, b) => a - b)[2].toFixed(0)} ms (aim: under 1000 ms)`);

  const upstream = await listen((_req, res) => res.writeHead(200, { "content-type": "application/csv" }).end(CSV));
  const running = await startServer({ env: { ...env, UPSTREAM_BANK_OF_ENGLAND: upstream.url }, access: freeAccess, port: 0, host: "127.0.0.1" });
  const url = `${running.url}/v1/bank-of-england/bank-rate?from=2025-08-01`;
  const warm = await fetch(url);
  const body = await warm.text();
  if (warm.status !== 200) throw new Error(`warm-up call failed: ${warm.status} ${body}`);

  const bareApp = express();
  bareApp.get("/v1/bank-of-england/bank-rate", (_req, res) => void res.type("application/json").send(body));
  const bare = await listen(bareApp);

  // The same call through the real access layer: a free key whose allowance is reserved and committed (with a
  // ledger row) in the SQLite store on every call; the allowance is made large enough for the whole run.
  const keyed = await startServer({
    env: { ...env, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pda-bench-")), UPSTREAM_BANK_OF_ENGLAND: upstream.url, ALLOWANCE_BANK_OF_ENGLAND: "0/100000000" },
    port: 0, host: "127.0.0.1",
  });
  const key = ((await (await fetch(`${keyed.url}/free`, { method: "POST" })).json()) as { key: string }).key;
  const keyedUrl = `${keyed.url}/v1/bank-of-england/bank-rate?from=2025-08-01`;
  if ((await fetch(keyedUrl, { headers: { "X-API-Key": key } })).status !== 200) throw new Error("warm-up call with a key failed");

  const bareResult = await load(`${bare.url}/v1/bank-of-england/bank-rate?from=2025-08-01`);
  const engineResult = await load(url);
  const keyedResult = await autocannon({ url: keyedUrl, connections: CONNECTIONS, duration: DURATION_S, headers: { "X-API-Key": key } });
  const row = (name: string, r: autocannon.Result) =>
    console.log(`${name.padEnd(22)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(3)} ms   errors ${r.errors + r.non2xx}`);
  console.log(`in-process (server and load generator in this process): GET /v1/bank-of-england/bank-rate (cached), ${CONNECTIONS} connections, ${DURATION_S} s each:`);
  row("bare Express", bareResult);
  row("engine (cached)", engineResult);
  row("engine + free key", keyedResult);
  const ratio = engineResult.requests.average / bareResult.requests.average;
  console.log(`engine / bare throughput: ${ratio.toFixed(2)} (aim: at least 0.5); engine p99 ${engineResult.latency.p99} ms (aim: under 5 ms)`);
  console.log(`with a free key, each call also counts its allowance in SQLite: ${(keyedResult.requests.average / bareResult.requests.average).toFixed(2)} of bare, p99 ${keyedResult.latency.p99} ms`);

  bare.close();
  upstream.close();
  await running.close();
  await keyed.close();
}
