// Search quality over a set of labelled queries: how often the expected tool comes first, or in the first three.
// Queries whose tool is not among the endpoints are skipped and counted, so the set can run ahead of the files.
import fs from "node:fs";
import path from "node:path";
import type { SearchIndex } from "./index.ts";

export interface LabelledQuery {
  query: string;
  tool: string;
  /** Other tools that answer the question just as well (only where two are genuinely equivalent). */
  also?: string[];
}

export interface Quality {
  ran: number;
  skipped: number;
  top1: number;
  top3: number;
  /** The queries whose tool was not in the first three, with what came instead. */
  misses: { query: string; expected: string; got: string[] }[];
}

export function measureQuality(index: SearchIndex, tools: Set<string>, queries: LabelledQuery[]): Quality {
  const runnable = queries.filter((q) => tools.has(q.tool));
  let first = 0;
  let three = 0;
  const misses: Quality["misses"] = [];
  for (const q of runnable) {
    const got = index.search(q.query, { limit: 3 }).map((h) => h.endpoint.toolName);
    const right = new Set([q.tool, ...(q.also ?? [])]);
    if (right.has(got[0])) first++;
    if (got.some((t) => right.has(t))) three++;
    else misses.push({ query: q.query, expected: q.tool, got });
  }
  const ratio = (n: number) => (runnable.length ? n / runnable.length : 0);
  return { ran: runnable.length, skipped: queries.length - runnable.length, top1: ratio(first), top3: ratio(three), misses };
}

/**
 * The labelled queries: one file a group, endpoints/<group>/search-queries.json, each a JSON array of
 * { query, tool }, written in agents' own words (not copied from the endpoint files).
 */
export function readLabelledQueries(endpointsDir: string): LabelledQuery[] {
  return fs.readdirSync(endpointsDir).sort().map((group) => path.join(endpointsDir, group, "search-queries.json"))
    .filter((f) => fs.existsSync(f))
    .flatMap((f) => JSON.parse(fs.readFileSync(f, "utf8")) as LabelledQuery[]);
}
