// search_apis quality and speed on endpoints/<group>/search-queries.json: top-1 and top-3 accuracy on each set of
// questions by an index that never learnt from it, then index build time and search latency.
import path from "node:path";
import { loadRegistry } from "../engine/endpoints/registry.ts";
import { createSearchIndex } from "../engine/search/index.ts";
import { labelledQuestions, measureUnseen, setOf } from "../engine/search/quality.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export default async function searchBench(): Promise<void> {
  const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
  const queries = labelledQuestions(registry);
  const endpoints = [...registry.endpoints.values()];

  let t0 = performance.now();
  const index = createSearchIndex(endpoints);
  console.log(`index of ${endpoints.length} endpoints in ${registry.groups.size} groups built in ${(performance.now() - t0).toFixed(1)} ms`);

  for (const set of [...new Set(queries.map(setOf))].sort()) {
    const q = measureUnseen(endpoints, queries, set);
    console.log(`quality on ${set}, never learnt from: ${q.ran} questions, top-1 ${pct(q.top1)}, top-3 ${pct(q.top3)}`);
    for (const m of q.misses) console.log(`  not in top 3: "${m.query}" wants ${m.expected}, got ${m.got.join(", ")}`);
  }

  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const { query } of queries) {
      t0 = performance.now();
      index.search(query, { limit: 5 });
      times.push(performance.now() - t0);
    }
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => `${(times[Math.min(times.length - 1, Math.floor(p * times.length))] * 1000).toFixed(0)} µs`;
  console.log(`search latency over ${times.length} searches: p50 ${at(0.5)}, p95 ${at(0.95)}, p99 ${at(0.99)}, max ${at(1)}`);
}
