// The ranking behind search_apis: BM25F over the endpoint files' own words. Each endpoint is one document with
// weighted fields (its name, summary, keywords, group title, description, parameter names); a query is
// matched on stemmed words and adjacent word pairs, widened by everyday synonyms and, for words the files never
// use, by near spellings. Built once at start-up; a search takes well under a millisecond (npm run bench -- search).
import { SYNONYMS } from "./synonyms.ts";
import { isPair, terms } from "./text.ts";
import type { Endpoint } from "../registry.ts";

export interface SearchOptions {
  /** Only this group's endpoints. */
  group?: string;
  /** How many hits at most (default 5). */
  limit?: number;
}

export interface SearchHit {
  endpoint: Endpoint;
  score: number;
}

export interface SearchIndex {
  search(query: string, opts?: SearchOptions): SearchHit[];
}

/** How much a match in each field counts. The name, summary and keywords say what an endpoint is for. */
const FIELD_WEIGHTS = {
  name: 3,
  keywords: 3,
  summary: 2.5,
  group: 1.2,
  description: 1,
  params: 0.8,
  paramText: 0.3,
} as const;
type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];

const K1 = 1.2;
const B = 0.6;
const SYNONYM_WEIGHT = 0.5;
const NEAR_SPELLING_WEIGHT = 0.6;
const NAME_IN_QUERY_BONUS = 10;

interface Doc {
  endpoint: Endpoint;
  /** field -> term -> count */
  tf: Record<Field, Map<string, number>>;
  len: Record<Field, number>;
}

function fieldTexts(e: Endpoint): Record<Field, string[]> {
  const g = e.groupInfo;
  return {
    name: [e.operation, e.group],
    keywords: e.keywords,
    summary: [e.summary],
    group: [g.title, ...g.keywords],
    description: [e.description, g.description],
    params: Object.keys(e.params),
    paramText: Object.values(e.params).map((p) => p.description),
  };
}

function countTerms(texts: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) for (const t of terms(text)) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

export function createSearchIndex(endpoints: Iterable<Endpoint>): SearchIndex {
  const docs: Doc[] = [...endpoints].map((endpoint) => {
    const texts = fieldTexts(endpoint);
    const tf = Object.fromEntries(FIELDS.map((f) => [f, countTerms(texts[f])])) as Doc["tf"];
    const len = Object.fromEntries(FIELDS.map((f) => [f, [...tf[f].values()].reduce((a, b) => a + b, 0)])) as Doc["len"];
    return { endpoint, tf, len };
  });
  const avgLen = Object.fromEntries(FIELDS.map((f) => [f, docs.reduce((a, d) => a + d.len[f], 0) / Math.max(docs.length, 1) || 1])) as Record<Field, number>;

  const postings = new Map<string, number[]>();
  for (const [i, d] of docs.entries()) {
    const seen = new Set(FIELDS.flatMap((f) => [...d.tf[f].keys()]));
    for (const t of seen) {
      const list = postings.get(t);
      if (list) list.push(i);
      else postings.set(t, [i]);
    }
  }
  const vocabulary = [...postings.keys()].filter((t) => !isPair(t));
  const idf = (t: string) => {
    const df = postings.get(t)?.length ?? 0;
    return Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
  };

  /** The BM25F contribution of one term to one document. */
  function termScore(d: Doc, t: string): number {
    let tf = 0;
    for (const f of FIELDS) {
      const n = d.tf[f].get(t);
      if (n) tf += (FIELD_WEIGHTS[f] * n) / (1 - B + (B * d.len[f]) / avgLen[f]);
    }
    return (idf(t) * tf * (K1 + 1)) / (K1 + tf);
  }

  /**
   * Each query term with its alternatives and their weights: the term itself, its synonyms, and longer forms or
   * near spellings. A document scores the best of a term's alternatives, so a word with many synonyms counts once.
   */
  function expand(query: string): Map<string, number>[] {
    return terms(query).map((t) => {
      const alts = new Map<string, number>();
      // An alternative never says more than the word itself: a rarer synonym is weighed at the word's rarity.
      const cap = postings.has(t) ? idf(t) : Infinity;
      const add = (alt: string, w: number) => alts.set(alt, Math.max(alts.get(alt) ?? 0, w * Math.min(1, cap / idf(alt))));
      if (postings.has(t)) add(t, 1);
      if (!isPair(t)) for (const near of nearSpellings(t, postings.has(t))) add(near, NEAR_SPELLING_WEIGHT);
      for (const alt of SYNONYMS.get(t) ?? []) if (postings.has(alt)) add(alt, SYNONYM_WEIGHT);
      return alts;
    });
  }

  /** Longer forms of a word ("valid" -> "validat"), and for a word the files never use, near spellings too. */
  function nearSpellings(t: string, known: boolean): string[] {
    if (t.length < 4) return [];
    const near = (v: string) => v !== t && v.length >= 4 && (v.startsWith(t) || (!known && (t.startsWith(v) || (t.length >= 5 && withinOneEdit(t, v)))));
    return vocabulary.filter(near).slice(0, 5);
  }

  return {
    search(query, opts = {}) {
      const limit = Math.max(1, opts.limit ?? 5);
      const scores = new Map<number, number>();
      for (const alts of expand(query)) {
        const best = new Map<number, number>();
        for (const [t, w] of alts) {
          for (const i of postings.get(t) ?? []) {
            if (opts.group && docs[i].endpoint.group !== opts.group) continue;
            best.set(i, Math.max(best.get(i) ?? 0, w * termScore(docs[i], t)));
          }
        }
        for (const [i, s] of best) scores.set(i, (scores.get(i) ?? 0) + s);
      }
      for (const [i, d] of docs.entries()) {
        if (opts.group && d.endpoint.group !== opts.group) continue;
        if (namedIn(query, d.endpoint)) scores.set(i, (scores.get(i) ?? 0) + NAME_IN_QUERY_BONUS);
      }
      return [...scores.entries()]
        .sort((a, b) => b[1] - a[1] || docs[a[0]].endpoint.toolName.localeCompare(docs[b[0]].endpoint.toolName))
        .slice(0, limit)
        .map(([i, score]) => ({ endpoint: docs[i].endpoint, score: Math.round(score * 100) / 100 }));
    },
  };
}

/** The query names the endpoint outright: "bank-of-england__gbp-usd", "bank-of-england/gbp-usd", "gbp-usd". */
function namedIn(query: string, e: Endpoint): boolean {
  const q = query.toLowerCase();
  if (q.includes(e.toolName) || q.includes(e.key)) return true;
  return e.operation.includes("-") && new RegExp(`(^|[^a-z0-9-])${e.operation}($|[^a-z0-9-])`).test(q);
}

function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else if (a[i + 1] === b[j] && a[i] === b[j + 1]) {
      i += 2;
      j += 2;
    } else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}
