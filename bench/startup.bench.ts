// Start-up as `npm start` does it (its own process, SQLite in a fresh DATA_DIR, dataset loading off: a fresh
// DATA_DIR would download every dataset, and the target is before datasets load): the time to the first /health
// 200 and the resident memory then, median of BENCH_STARTS starts. Targets (issue 28): within 2.5 s, at most
// 250 MB. Then where the time goes (CPU profile of one more start, up to its first /health 200) and where the
// memory goes (startup-stages.ts).
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { startChild, startService, tempDir } from "./processes.ts";

const STARTS = Number(process.env.BENCH_STARTS ?? 3);
const ROOT = path.resolve(import.meta.dirname, "..");
const env = (): NodeJS.ProcessEnv => ({ ...process.env, NODE_ENV: "production", DATASET_REFRESH: "off", DATABASE_URL: "", DATA_DIR: tempDir("pda-bench-startup-") });
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

/** What a CPU sample was doing, from the innermost frame outwards: the first kind that matches. */
const KINDS: [string, RegExp][] = [
  ["garbage collection", /^\(garbage collector\)$/],
  ["YAML parsing (endpoint files)", /node_modules\/(js-)?yaml\//],
  ["JSON Schema checks of the files (ajv)", /node_modules\/ajv/],
  ["JSONata compiling (steps' expressions)", /node_modules\/jsonata\//],
  ["loading modules (reading, TypeScript stripping, evaluating)", /^node:internal\/modules\/|^wasm:\/\/|node:internal\/deps\/amaro/],
  ["endpoint files (the rest of loading them)", /engine\/endpoints\//],
];

interface ProfileNode { id: number; callFrame: { url: string; functionName: string }; children?: number[] }

function whereTimeGoes(file: string, untilMs: number): string[] {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const kindOf = new Map<number, string>();
  const kind = (id: number): string => {
    let k = kindOf.get(id);
    if (k) return k;
    const n = byId.get(id)!;
    const frame = n.callFrame.url || n.callFrame.functionName;
    k = KINDS.find(([, re]) => re.test(frame))?.[0] ?? (parent.has(id) ? kind(parent.get(id)!) : "other (idle, the rest of the engine)");
    kindOf.set(id, k);
    return k;
  };
  const ms = new Map<string, number>();
  let t = 0;
  for (let i = 0; i < p.samples.length && t < untilMs * 1000; i++) {
    t += p.timeDeltas[i];
    const k = kind(p.samples[i]);
    ms.set(k, (ms.get(k) ?? 0) + (p.timeDeltas[i + 1] ?? 0) / 1000);
  }
  return [...ms].sort((a, b) => b[1] - a[1]).map(([k, v]) => `  ${v.toFixed(0).padStart(6)} ms  ${k}`);
}

export default async function startupBench(): Promise<void> {
  const times: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const s = await startService(env());
    times.push(s.readyMs);
    rss.push(s.readyRssMb);
    await s.stop();
  }
  const t = median(times);
  const m = median(rss);
  console.log(`npm start (node engine/cli.ts serve), median of ${STARTS}: first /health 200 after ${t.toFixed(0)} ms (${times.map((x) => x.toFixed(0)).join(", ")}), RSS then ${m.toFixed(0)} MB (${rss.map((x) => x.toFixed(0)).join(", ")})`);
  console.log(`  target within 2500 ms: ${t <= 2500 ? "met" : "NOT MET"}; at most 250 MB: ${m <= 250 ? "met" : "NOT MET"}`);

  const profiles = tempDir("pda-bench-startup-prof-");
  const s = await startChild(["--cpu-prof", `--cpu-prof-dir=${profiles}`, "engine/cli.ts", "serve"], env());
  await s.stop();
  const [profile] = fs.readdirSync(profiles);
  console.log(`where the time goes (one start with --cpu-prof, ${s.readyMs.toFixed(0)} ms to /health; wall time of the main thread's samples):`);
  for (const line of whereTimeGoes(path.join(profiles, profile), s.readyMs)) console.log(line);

  const stages = JSON.parse(execFileSync(process.execPath, ["bench/startup-stages.ts"], { cwd: ROOT, env: { ...env(), LOG_LEVEL: "silent" }, encoding: "utf8" }).trim().split("\n").at(-1)!) as
    Record<"node" | "modules" | "listening", { rssMb: number; heapUsedMb: number; heapTotalMb: number; cpuMs: number }>;
  const { node, modules, listening } = stages;
  console.log("where the memory goes (startServer() in a process of its own, RSS):");
  console.log(`  ${node.rssMb.toFixed(0).padStart(4)} MB  Node itself`);
  console.log(`  ${(modules.rssMb - node.rssMb).toFixed(0).padStart(4)} MB  the server's modules and libraries, loaded (V8 heap ${modules.heapUsedMb.toFixed(0)} MB used of ${modules.heapTotalMb.toFixed(0)}), ${(modules.cpuMs - node.cpuMs).toFixed(0)} ms CPU`);
  console.log(`  ${(listening.rssMb - modules.rssMb).toFixed(0).padStart(4)} MB  the endpoint files read, the store opened, the app built (V8 heap then ${listening.heapUsedMb.toFixed(0)} MB used of ${listening.heapTotalMb.toFixed(0)}), ${(listening.cpuMs - modules.cpuMs).toFixed(0)} ms CPU`);
  console.log(`  ${listening.rssMb.toFixed(0).padStart(4)} MB  in all`);
}
