// A hostile upstream: while one call receives a 50 MB answer, how fast does /health answer (p99 target < 50 ms),
// and does memory come back (target: within 100 MB of where it started)? The cap (10 MB by default) drops the
// body while it streams; large bodies under the cap are parsed off the event loop.
import http from "node:http";
import v8 from "node:v8";
import vm from "node:vm";
import type { AddressInfo } from "node:net";
import { startServer } from "../engine/http/server.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const MB = 1024 * 1024;
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

export default async function upstreamBench(): Promise<void> {
  // The upstream sends a 50 MB CSV, as fast as the socket takes it.
  const upstream = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/csv" });
    res.write("DATE,IUDBEDR\n");
    const line = "01 Aug 2025,4.25\n".repeat(8192);
    let sent = 0;
    const push = () => {
      while (sent < 50 * MB && !res.destroyed) {
        sent += line.length;
        if (!res.write(line)) return void res.once("drain", push);
      }
      res.end();
    };
    push();
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const env = {
    ...process.env, LOG_LEVEL: "silent", DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pda-bench-")), DATASET_REFRESH: "off",
    UPSTREAM_BANK_OF_ENGLAND: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
  };
  const server = await startServer({ env, port: 0, host: "127.0.0.1", access: { authorize: async () => ({ paidBy: "free", headers: {}, commit: async () => ({ headers: {}, meta: {} }), release: async () => {} }), close: async () => {} } });
  try {
    for (const [label, cap] of [["default 10 MB cap", undefined], ["cap raised to 64 MB (the body is read and parsed)", 64 * MB]] as const) {
      (server.engine.upstream as unknown as { opts: { maxBytes?: number } }).opts.maxBytes = cap;
      server.engine.clearCaches();
      gc();
      const rssBefore = process.memoryUsage().rss;
      const latencies: number[] = [];
      let done = false;
      await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
      // Ten such calls one after another, so /health is asked often enough during them.
      const call = (async () => {
        let last = { status: 0, code: "" };
        for (let i = 0; i < 10; i++) {
          server.engine.clearCaches();
          const r = await fetch(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`);
          last = { status: r.status, code: r.ok ? (await r.arrayBuffer(), "") : ((await r.json()) as { code: string }).code };
        }
        return last;
      })().finally(() => (done = true));
      while (!done) {
        const t0 = performance.now();
        await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
        latencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 5));
      }
      const result = await call;
      // What the service keeps on purpose (the cached answer) is let go, as it would be when its time is up.
      server.engine.clearCaches();
      await new Promise((r) => setTimeout(r, 2_000));
      gc();
      const rssAfter = process.memoryUsage().rss;
      latencies.sort((a, b) => a - b);
      const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]?.toFixed(1);
      console.log(`${label}: 10 calls answered ${result.status} ${result.code}; /health ${latencies.length} times during them: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms (target < 50); memory ${Math.round(rssBefore / MB)} MB -> ${Math.round(rssAfter / MB)} MB (${rssAfter - rssBefore < 100 * MB ? "within" : "NOT within"} 100 MB)`);
    }
  } finally {
    await server.close();
    upstream.close();
  }
}
