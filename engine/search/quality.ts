// Search quality over labelled questions (endpoints/<group>/search-queries.json): how often the expected tool comes
// first, or in the first three. The index learns from those same questions, so the honest figure for one set is
// taken by an index that learnt from all the other sets and never from it (measureUnseen).
import { createSearchIndex, type SearchIndex } from "./index.ts";
import type { Endpoint, LabelledQuery, Registry } from "../endpoints/model.ts";

export interface Quality {
  ran: number;
  top1: number;
  top3: number;
  /** The queries whose tool was not in the first three, with what came instead. */
  misses: { query: string; expected: string; got: string[] }[];
}

export function measureQuality(index: SearchIndex, queries: LabelledQuery[]): Quality {
  let first = 0;
  let three = 0;
  const misses: Quality["misses"] = [];
  for (const q of queries) {
    const got = index.search(q.query, { limit: 3 }).map((h) => h.endpoint.toolName);
    const right = new Set([q.tool, ...(q.also ?? [])]);
    if (right.has(got[0])) first++;
    if (got.some((t) => right.has(t))) three++;
    else misses.push({ query: q.query, expected: q.tool, got });
  }
  const ratio = (n: number) => (queries.length ? n / queries.length : 0);
  return { ran: queries.length, top1: ratio(first), top3: ratio(three), misses };
}

/** Every labelled question of every group. */
export const labelledQuestions = (registry: Registry): LabelledQuery[] => [...registry.groups.values()].flatMap((g) => g.questions);

/** A question's set: a blind set's name, or "tuning" for the questions written with the endpoint files. */
export const setOf = (q: LabelledQuery): string => q.set ?? "tuning";

/** One set measured by an index that learnt from every other question: the figure for questions it was not taught. */
export function measureUnseen(endpoints: Endpoint[], questions: LabelledQuery[], set: string): Quality {
  const index = createSearchIndex(endpoints, questions.filter((q) => setOf(q) !== set));
  return measureQuality(index, questions.filter((q) => setOf(q) === set));
}
