// The access layer's cost per call, side by side in one run (autocannon, 10 connections): a bare Express route
// answering the same JSON, the engine without access, and the engine with a free key whose allowance is charged
// (with its ledger row) on every call, on SQLite and on PostgreSQL (127.0.0.1:5432, database test, a throwaway
// schema). The endpoint's answer is cached, so the call computes nothing upstream: what is measured is the engine
// and the store. Targets (issue 11): keyed SQLite >= 0.5 of bare, keyed PostgreSQL >= 0.35, p99 < 10 ms.
// The machine may be busy with other work, so the four take turns, round after round (BENCH_ROUNDS of BENCH_SECONDS
// each, after a warm-up): each ratio is the median of the rounds' ratios, each taken against that round's bare run.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import express from "express";
import autocannon from "autocannon";
import pg from "pg";
import { startServer, type Running } from "../engine/http/server.ts";
import type { Access } from "../engine/access/types.ts";

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 10;
const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const CSV = "DATE,IUDBEDR\n01 Aug 2025,4.25\n04 Aug 2025,4.25\n05 Aug 2025,4.25\n06 Aug 2025,4.25\n07 Aug 2025,4\n08 Aug 2025,4\n";
const PATH = "/v1/bank-of-england/bank-rate?from=2025-08-01";
const TARGETS: Record<string, { ratio: number; p99: number }> = { "keyed SQLite": { ratio: 0.5, p99: 10 }, "keyed PostgreSQL": { ratio: 0.35, p99: 10 } };

const freeAccess: Access = {
  authorize: async () => ({ paidBy: "free", headers: {}, commit: async () => ({ headers: {}, meta: {} }), release: async () => {} }),
  close: async () => {},
};

function listen(app: http.RequestListener): Promise<{ url: string; close: () => void }> {
  return new Promise((resolve) => {
    const s = http.createServer(app).listen(0, "127.0.0.1", () => {
      resolve({ url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, close: () => { s.closeAllConnections(); s.close(); } });
    });
  });
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "pda-bench-access-"));

export default async function accessBench(): Promise<void> {
  const upstream = await listen((_req, res) => res.writeHead(200, { "content-type": "application/csv" }).end(CSV));
  const env = { ...process.env, LOG_LEVEL: "silent", DATASET_REFRESH: "off", UPSTREAM_BANK_OF_ENGLAND: upstream.url, ALLOWANCE_BANK_OF_ENGLAND: "0/100000000", DATABASE_URL: "" };
  const schema = `bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const servers: Running[] = [];
  const start = async (extra: Record<string, string>, access?: Access) => {
    const s = await startServer({ env: { ...env, DATA_DIR: tmp(), ...extra }, access, port: 0, host: "127.0.0.1" });
    servers.push(s);
    return s;
  };
  /** A key of that server, and one warm call (the answer is cached from then on). */
  const keyOf = async (s: Running) => {
    const key = ((await (await fetch(`${s.url}/free`, { method: "POST" })).json()) as { key: string }).key;
    const warm = await fetch(`${s.url}${PATH}`, { headers: { "X-API-Key": key } });
    if (warm.status !== 200) throw new Error(`warm-up call failed: ${warm.status} ${await warm.text()}`);
    return { "X-API-Key": key };
  };

  const engine = await start({}, freeAccess);
  const body = await (await fetch(`${engine.url}${PATH}`)).text();
  const bareApp = express();
  bareApp.get("/v1/bank-of-england/bank-rate", (_req, res) => void res.type("application/json").send(body));
  const bare = await listen(bareApp);

  const runs: [string, string, Record<string, string>][] = [["bare Express", bare.url, {}], ["engine without access", engine.url, {}]];
  const sqlite = await start({});
  runs.push(["keyed SQLite", sqlite.url, await keyOf(sqlite)]);
  try {
    const postgres = await start({ DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema });
    runs.push(["keyed PostgreSQL", postgres.url, await keyOf(postgres)]);
  } catch (e) {
    console.log(`keyed PostgreSQL: not measured (${(e as Error).message})`);
  }

  console.log(`GET ${PATH} (answer cached), ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s each (medians)`);
  const load = (url: string, headers: Record<string, string>, duration: number) => autocannon({ url: `${url}${PATH}`, connections: CONNECTIONS, duration, headers });
  for (const [, url, headers] of runs) await load(url, headers, 1);
  const rounds: autocannon.Result[][] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const round: autocannon.Result[] = [];
    for (const [, url, headers] of runs) round.push(await load(url, headers, DURATION_S));
    rounds.push(round);
  }
  const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [i, [name]] of runs.entries()) {
    const mine = rounds.map((round) => round[i]);
    const rate = median(mine.map((m) => m.requests.average));
    const ratios = rounds.map((round) => round[i].requests.average / round[0].requests.average);
    const ratio = median(ratios);
    const p99 = median(mine.map((m) => m.latency.p99));
    const errors = mine.reduce((n, m) => n + m.errors + m.non2xx, 0);
    const target = TARGETS[name];
    const verdict = target ? `   target >= ${target.ratio} and p99 < ${target.p99} ms: ${ratio >= target.ratio && p99 < target.p99 ? "met" : "NOT MET"}` : "";
    const spread = i ? `  (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})` : "             ";
    console.log(`${name.padEnd(22)} ${rate.toFixed(0).padStart(6)} req/s  ${ratio.toFixed(2)} of bare${spread}   p50 ${String(median(mine.map((m) => m.latency.p50))).padStart(3)} ms   p99 ${String(p99).padStart(3)} ms   errors ${errors}${verdict}`);
  }

  for (const s of servers) await s.close();
  bare.close();
  upstream.close();
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect().then(() => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).catch(() => undefined);
  await c.end().catch(() => undefined);
}
