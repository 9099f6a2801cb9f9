// The airports dataset on the real OurAirports files (../shared/data/ourairports, or AIRPORTS_DATA): sync time,
// then `airport` and `near` latency through the whole engine (HTTP, one call at a time).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer } from "../engine/http/server.ts";
import type { Access } from "../engine/access/types.ts";

const DATA = path.resolve(process.env.AIRPORTS_DATA ?? path.join(import.meta.dirname, "..", "..", "shared", "data", "ourairports"));
const CALLS = Number(process.env.BENCH_CALLS ?? 500);

const freeAccess: Access = {
  authorize: async () => ({ paidBy: "free", headers: {}, commit: async () => ({ headers: {}, meta: {} }), release: async () => {} }),
  close: async () => {},
};

function summary(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(2);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms (${s.length} calls)`;
}

async function timeCalls(urls: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const url of urls) {
    const t0 = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}

export default async function airportsBench(): Promise<void> {
  if (!fs.existsSync(path.join(DATA, "runways.csv"))) {
    console.log(`skipped: no OurAirports files in ${DATA} (set AIRPORTS_DATA)`);
    return;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pda-bench-airports-"));
  const running = await startServer({ env: { ...process.env, LOG_LEVEL: "silent", DATA_DIR: dataDir, DATASET_REFRESH: "off" }, access: freeAccess, port: 0, host: "127.0.0.1" });
  try {
    const { datasets } = running.engine;
    const quiet = { phase() {}, tick() {}, log() {}, done() {} };
    const t0 = performance.now();
    const v = await datasets.sync("airports", { from: DATA, progress: quiet });
    console.log(`sync from ${DATA}: ${((performance.now() - t0) / 1000).toFixed(1)} s (aim: well under 60 s); ${Object.entries(v.counts).map(([k, n]) => `${k} ${n}`).join(", ")}`);

    const { db } = datasets.use("airports");
    const sample = db.prepare("SELECT ident, icao_code, iata_code, lat, lng FROM airports WHERE type IN ('large_airport','medium_airport') ORDER BY random() LIMIT ?").all(CALLS) as
      { ident: string; icao_code: string | null; iata_code: string | null; lat: number; lng: number }[];
    const base = `${running.url}/v1/airports`;
    await timeCalls([`${base}/airport?code=EGLL`, `${base}/near?lat=51.47&lng=-0.45`]); // warm-up

    const codes = sample.map((a, i) => `${base}/airport?code=${encodeURIComponent((i % 2 ? a.iata_code : a.icao_code) ?? a.ident)}`);
    console.log(`airport (ICAO or IATA code, with runways and frequencies): ${summary(await timeCalls(codes))}`);
    const near = (radius: number) => sample.map((a) => `${base}/near?lat=${a.lat}&lng=${a.lng}&radius_km=${radius}`);
    console.log(`near, radius 50 km (default): ${summary(await timeCalls(near(50)))}`);
    console.log(`near, radius 300 km (the maximum): ${summary(await timeCalls(near(300)))}`);
    const dense = Array.from({ length: Math.min(CALLS, 100) }, () => `${base}/near?lat=40.7&lng=-74&radius_km=300&type=large,medium,small,heliport,closed&limit=100`);
    console.log(`near, 300 km around New York, every type, limit 100 (a dense worst case): ${summary(await timeCalls(dense))}`);
  } finally {
    await running.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
