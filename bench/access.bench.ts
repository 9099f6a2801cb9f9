// The access layer's own cost per call: reserve + commit of a free call (two buckets) and of a credit-paid call,
// one at a time and 20 at once, on SQLite and on PostgreSQL (127.0.0.1:5432, database test, a throwaway schema).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { openStore } from "../engine/store/index.ts";
import type { Store } from "../engine/store/types.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const DAY = new Date().toISOString().slice(0, 10);

async function run(store: Store, paidBy: "allowance" | "credit", concurrency: number): Promise<number> {
  const key = (await store.mintKey({ hash: randomUUID(), clientId: "bench", day: DAY, maxPerDay: 1e9 }))!;
  if (paidBy === "credit") await store.addCredit({ keyId: key.id, deltaMicro: CALLS * 1000, kind: "grant" });
  const buckets = [{ id: "group:bench", limit: 1e9 }, { id: "endpoint:bench/op", limit: 1e9 }];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < CALLS) {
      const r = await store.beginCall({ endpoint: "bench/op", principal: `key:${key.id}`, channel: "http", priceMicro: 1000, paidBy, day: DAY, buckets, keyId: key.id });
      if (!r.ok) throw new Error(`refused: ${r.reason}`);
      await store.finishCall(r.callId, "ok");
    }
  }));
  return CALLS / ((performance.now() - t0) / 1000);
}

export default async function accessBench(): Promise<void> {
  const schema = `bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const backends: [string, () => Promise<Store>][] = [
    ["sqlite", () => openStore({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "pda-bench-access-")) })],
    ["postgres", () => openStore({ dataDir: os.tmpdir(), databaseUrl: PG_URL, schema })],
  ];
  console.log(`${CALLS} calls each: reserve + commit (calls/s)`);
  for (const [name, open] of backends) {
    let store: Store;
    try {
      store = await open();
    } catch (e) {
      console.log(`${name}: not measured (${(e as Error).message})`);
      continue;
    }
    for (const paidBy of ["allowance", "credit"] as const) {
      for (const concurrency of [1, 20]) {
        console.log(`${name.padEnd(9)} ${paidBy.padEnd(10)} concurrency ${String(concurrency).padStart(2)}: ${Math.round(await run(store, paidBy, concurrency))}`);
      }
    }
    await store.close();
  }
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect().then(() => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).catch(() => undefined);
  await c.end().catch(() => undefined);
}
