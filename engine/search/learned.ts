// What agents asked before: the labelled questions beside each group's endpoints
// (endpoints/<group>/search-queries.json) teach the ranking the words people use for each endpoint, words the
// endpoint files may never say ("day off" for a bank holiday). A naive Bayes model of each endpoint's questions'
// words; it reorders the word score's first few candidates and never brings in an endpoint the files' own words did
// not find.
import { stem, words } from "./text.ts";
import { readValues } from "./values.ts";
import type { LabelledQuery } from "../endpoints/model.ts";

export interface AskedBefore {
  /**
   * How likely each candidate is to be the one asked for, given the words of earlier questions (they sum to 1).
   * `words` is the query without its values (values.ts `rest`), as the search has already read it.
   */
  likelihoods(words: string, tools: string[]): number[];
}

/** Additive smoothing: a word an endpoint's questions never used still leaves it a small chance. */
const SMOOTHING = 0.05;
/** A few questions an endpoint make the model over-sure (word by word it multiplies odds): its odds are tempered. */
const TEMPERATURE = 5;

/** A question's words once its values are out (postcodes, identifiers, dates: values.ts reads them), stemmed, no numbers. */
const questionWords = (rest: string) => [...new Set(words(rest).map(stem).filter((w) => !/^\d+$/.test(w)))];

export function learnFrom(questions: LabelledQuery[]): AskedBefore {
  const counts = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  const vocabulary = new Set<string>();
  for (const q of questions) {
    const own = counts.get(q.tool) ?? new Map<string, number>();
    counts.set(q.tool, own);
    for (const w of questionWords(readValues(q.query).rest)) {
      own.set(w, (own.get(w) ?? 0) + 1);
      totals.set(q.tool, (totals.get(q.tool) ?? 0) + 1);
      vocabulary.add(w);
    }
  }
  return {
    likelihoods(rest, tools) {
      // Words no earlier question used tell the candidates nothing apart.
      const seen = questionWords(rest).filter((w) => vocabulary.has(w));
      const logs = tools.map((tool) => {
        const own = counts.get(tool);
        const denominator = (totals.get(tool) ?? 0) + SMOOTHING * vocabulary.size;
        return seen.reduce((sum, w) => sum + Math.log(((own?.get(w) ?? 0) + SMOOTHING) / denominator), 0);
      });
      const best = Math.max(...logs);
      const odds = logs.map((l) => Math.exp((l - best) / TEMPERATURE));
      const total = odds.reduce((a, b) => a + b, 0);
      return odds.map((o) => o / total);
    },
  };
}
