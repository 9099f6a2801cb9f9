// The ranking behind search_apis: BM25F over the endpoint files' own words. Each endpoint is one document with
// weighted fields (its name, summary, keywords, description, parameter names); each group is a document of its
// own among the groups (name, title, keywords, description) whose score adds to its endpoints'. A query is matched
// on stemmed words and adjacent word pairs, widened by everyday synonyms and, for words the files never use, by
// near spellings; numbers count only where an endpoint is named or keyed by them, and an endpoint matching more
// of the query's words beats one matching a few of them strongly. The word score is then reordered by what the
// query says beyond its words (signals.ts: values, places, currencies, intent), and its first candidates by the words
// earlier questions used for each endpoint (learned.ts: endpoints/<group>/search-queries.json). Built once at
// start-up (npm run bench -- search; docs/search.md).
import { CITIES, CITY, DRUG, SYNONYMS, looksLikeDrug } from "./synonyms.ts";
import { currenciesIn } from "./currencies.ts";
import { learnFrom } from "./learned.ts";
import { endpointTraits, fit, querySignals } from "./signals.ts";
import { isPair, stem, terms, words } from "./text.ts";
import { readValues } from "./values.ts";
import type { Endpoint, Group, LabelledQuery } from "../endpoints/model.ts";

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

/** How much a match in each of an endpoint's own fields counts. The name, summary and keywords say what it is for. */
const FIELD_WEIGHTS = {
  name: 2,
  keywords: 3,
  summary: 2,
  description: 1,
  params: 0.8,
  paramText: 0.5,
} as const;

/** A group's fields: its name and title, its keywords, its description. */
const GROUP_FIELD_WEIGHTS = {
  name: 2,
  keywords: 3,
  description: 1,
} as const;

const K1 = 1.5;
const B = 0.75;
const SYNONYM_WEIGHT = 0.4;
const NEAR_SPELLING_WEIGHT = 0.6;
/** A word that ends like a drug's international name asks for "drug" nearly as much as the word itself would. */
const DRUG_NAME_WEIGHT = 0.8;
const NAME_IN_QUERY_BONUS = 10;
/** The word for an identifier's kind ("ip address"), which the query did not say itself. */
const KIND_WORD_WEIGHT = 0.4;
/** Adjacent words matched as a pair: a bonus on top of each word's own match, so less than a word. */
const PAIR_WEIGHT = 0.5;
/** The earlier questions' say, as a share of the first candidate's score, and how many candidates they reorder. */
const LEARNED_WEIGHT = 0.5;
const LEARNED_CANDIDATES = 10;
/** How much an endpoint's group, scored among the groups, adds to the endpoint's own score. */
const GROUP_WEIGHT = 0.5;
/** An endpoint's score is scaled by ((words it matches + 1) / (words known + 1)) to this power: all the asked-for things beat one of them said many times. */
const COORDINATION = 0.5;
/** A number in a query is mostly a value (an amount, a date, an id); it says which endpoint only where one is named by it. */
const NUMERIC = /^[0-9~]+$|^\d|~\d/;
const NUMBER_FIELDS = new Set<string>(["name", "keywords", "params"]);

/**
 * BM25F over documents with weighted fields: each term's count in a field is weighed and length-normalised, the
 * fields summed, then saturated once, so a word repeated across fields counts as one strong match, not many.
 */
class Corpus {
  readonly postings = new Map<string, number[]>();
  private readonly tf: Map<string, number>[][];
  private readonly len: number[][];
  private readonly avgLen: number[];
  private readonly weights: number[];
  private readonly names: string[];

  constructor(fieldWeights: Record<string, number>, docs: Record<string, string[]>[]) {
    this.names = Object.keys(fieldWeights);
    this.weights = Object.values(fieldWeights);
    this.tf = docs.map((d) => this.names.map((f) => countTerms(d[f] ?? [])));
    this.len = this.tf.map((fields) => fields.map((m) => [...m.values()].reduce((a, b) => a + b, 0)));
    this.avgLen = this.names.map((_, f) => this.len.reduce((a, l) => a + l[f], 0) / Math.max(docs.length, 1) || 1);
    for (const [i, fields] of this.tf.entries()) {
      for (const t of new Set(fields.flatMap((m) => [...m.keys()]))) {
        const list = this.postings.get(t);
        if (list) list.push(i);
        else this.postings.set(t, [i]);
      }
    }
  }

  idf(t: string): number {
    const df = this.postings.get(t)?.length ?? 0;
    return Math.log(1 + (this.tf.length - df + 0.5) / (df + 0.5));
  }

  /** The BM25F contribution of one term to one document. */
  score(i: number, t: string): number {
    let tf = 0;
    const numeric = NUMERIC.test(t);
    for (const [f, m] of this.tf[i].entries()) {
      if (numeric && !NUMBER_FIELDS.has(this.names[f])) continue;
      const n = m.get(t);
      if (n) tf += (this.weights[f] * n) / (1 - B + (B * this.len[i][f]) / this.avgLen[f]);
    }
    return (this.idf(t) * tf * (K1 + 1)) / (K1 + tf);
  }

  /** Each document's score for a query expanded into alternatives: the best alternative of each query term, summed. */
  scores(expanded: Map<string, number>[], keep: (i: number) => boolean = () => true): Map<number, number> {
    const scores = new Map<number, number>();
    for (const alts of expanded) {
      const best = new Map<number, number>();
      for (const [t, w] of alts) {
        for (const i of this.postings.get(t) ?? []) {
          if (keep(i)) best.set(i, Math.max(best.get(i) ?? 0, w * this.score(i, t)));
        }
      }
      for (const [i, s] of best) scores.set(i, (scores.get(i) ?? 0) + s);
    }
    return scores;
  }
}

function fieldTexts(e: Endpoint, keys: Set<string>): Record<keyof typeof FIELD_WEIGHTS, string[]> {
  return {
    name: [e.operation],
    keywords: e.keywords,
    summary: [e.summary],
    description: [ownSentences(e.description, keys)],
    params: Object.keys(e.params),
    paramText: Object.values(e.params).map((p) => p.description),
  };
}

/**
 * A description without its sentences that point elsewhere ("To convert an amount, calculators/currency-convert."):
 * those words describe the other endpoint, and would draw its questions here.
 */
function ownSentences(text: string, keys: Set<string>): string {
  return text.split(/(?<=[.;])\s+/).filter((sentence) => ![...sentence.matchAll(/\b[a-z0-9-]+(?:\/|__)[a-z0-9-]+\b/g)].some((m) => keys.has(m[0].replace("__", "/")))).join(" ");
}

const groupTexts = (g: Group): Record<keyof typeof GROUP_FIELD_WEIGHTS, string[]> => ({
  name: [g.name, g.title],
  keywords: g.keywords,
  description: [g.description],
});

function countTerms(texts: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) for (const t of terms(text)) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/**
 * Endpoints are scored on their own fields; their group, scored as a document of its own among the groups, adds
 * its share to each of its endpoints. So a group's words pick the group without drowning what tells its endpoints apart.
 */
export function createSearchIndex(endpoints: Iterable<Endpoint>, questions?: LabelledQuery[]): SearchIndex {
  const list = [...endpoints];
  const keys = new Set(list.map((e) => e.key));
  const corpus = new Corpus(FIELD_WEIGHTS, list.map((e) => fieldTexts(e, keys)));
  const groups = [...new Map(list.map((e) => [e.group, e.groupInfo])).values()];
  const groupCorpus = new Corpus(GROUP_FIELD_WEIGHTS, groups.map(groupTexts));
  const groupOf = list.map((e) => groups.findIndex((g) => g.name === e.group));
  const { postings } = corpus;
  const vocabulary = [...new Set([...postings.keys(), ...groupCorpus.postings.keys()])].filter((t) => !isPair(t));
  const known = (t: string) => postings.has(t) || groupCorpus.postings.has(t);
  const idf = (t: string) => (postings.has(t) ? corpus.idf(t) : groupCorpus.idf(t));
  // By default the index learns from every question labelled beside the endpoints' groups.
  const askedBefore = learnFrom(questions ?? [...new Set(list.map((e) => e.groupInfo))].flatMap((g) => g.questions));
  const traits = list.map((e) => endpointTraits(e, terms));
  const paramNames = new Set(list.flatMap((e) => Object.keys(e.params)));

  /**
   * Each query term with its alternatives and their weights: the term itself, its synonyms, and longer forms or
   * near spellings. A document scores the best of a term's alternatives, so a word with many synonyms counts once.
   */
  function expand(query: string): { term: string; alts: Map<string, number> }[] {
    return terms(query).map((t) => {
      const alts = new Map<string, number>();
      // An alternative never says more than the word itself: a rarer synonym is weighed at the word's rarity.
      const cap = known(t) ? idf(t) : Infinity;
      const add = (alt: string, w: number) => alts.set(alt, Math.max(alts.get(alt) ?? 0, w * Math.min(1, cap / idf(alt))));
      const own = isPair(t) ? PAIR_WEIGHT : 1;
      if (known(t)) add(t, own);
      if (!isPair(t)) for (const near of nearSpellings(t, known(t))) add(near, NEAR_SPELLING_WEIGHT);
      for (const alt of SYNONYMS.get(t) ?? []) if (known(alt)) add(alt, SYNONYM_WEIGHT * own);
      if (CITIES.has(t) && known(CITY)) add(CITY, SYNONYM_WEIGHT);
      if (looksLikeDrug(t)) add(DRUG, DRUG_NAME_WEIGHT);
      return { term: t, alts };
    });
  }

  /** Longer forms of a word ("valid" -> "validat"), and for a word the files never use, near spellings too. */
  function nearSpellings(t: string, isKnown: boolean): string[] {
    if (t.length < 4) return [];
    const near = (v: string) => v !== t && v.length >= 4 && (v.startsWith(t) || (!isKnown && (t.startsWith(v) || (t.length >= 5 && withinOneEdit(t, v)))));
    return vocabulary.filter(near).slice(0, 5);
  }

  return {
    search(query, opts = {}) {
      const limit = Math.max(1, opts.limit ?? 5);
      const values = readValues(query);
      // The kind of each identifier is asked for a little: "where is 104.16.132.229" is about an IP address, and an
      // amount in named currencies ("500 CHF in Swedish kronor") about converting a currency.
      const converts = values.kinds.has("amount") && currenciesIn(query, terms(values.rest)).size > 0;
      const kinds = [...values.kindWords, ...(converts ? ["currency"] : [])];
      const kindWords = kinds.flatMap((w) => words(w).map(stem)).filter(known);
      const expanded = [...expand(values.rest), ...kindWords.map((t) => ({ term: t, alts: new Map([[t, KIND_WORD_WEIGHT]]) }))];
      const alts = expanded.map((x) => x.alts);
      const inGroup = (i: number) => !opts.group || list[i].group === opts.group;
      const scores = corpus.scores(alts, inGroup);
      const groupScores = groupCorpus.scores(alts);
      for (const [i, e] of list.entries()) {
        if (!inGroup(i)) continue;
        const g = groupScores.get(groupOf[i]) ?? 0;
        const named = namedIn(query, e) ? NAME_IN_QUERY_BONUS : 0;
        if (scores.has(i) || named) scores.set(i, (scores.get(i) ?? 0) + GROUP_WEIGHT * g + named);
      }
      {
        // Words (not pairs, not numbers) some endpoint or group knows: the share of them an endpoint matches scales its score.
        const words = expanded.filter((x) => !isPair(x.term) && !NUMERIC.test(x.term) && x.alts.size);
        for (const [i, s] of scores) {
          const hit = words.filter((x) => [...x.alts.keys()].some((t) => corpus.score(i, t) > 0 || (groupCorpus.postings.get(t)?.includes(groupOf[i]) ?? false))).length;
          scores.set(i, s * ((hit + 1) / (words.length + 1)) ** COORDINATION);
        }
      }
      const signals = querySignals(query, values, expanded.map((x) => x.term), known, paramNames);
      const fits = new Map([...scores.keys()].map((i) => [i, fit(signals, traits[i])]));
      for (const [i, s] of scores) scores.set(i, s * fits.get(i)!);
      const byScore = (a: [number, number], b: [number, number]) => b[1] - a[1] || list[a[0]].toolName.localeCompare(list[b[0]].toolName);
      const ranked = [...scores.entries()].sort(byScore);
      const candidates = ranked.slice(0, LEARNED_CANDIDATES);
      const likelihoods = askedBefore.likelihoods(values.rest, candidates.map(([i]) => list[i].toolName));
      const first = candidates[0]?.[1] ?? 0;
      // What the query's values and intent say (signals.ts) outweighs earlier questions' words: a candidate they
      // favour less than the best is helped less.
      const bestFit = Math.max(...candidates.map(([i]) => fits.get(i)!)) || 1;
      candidates.forEach((c, n) => (c[1] += LEARNED_WEIGHT * first * likelihoods[n] * Math.min(1, fits.get(c[0])! / bestFit)));
      return ranked
        .sort(byScore)
        .slice(0, limit)
        .map(([i, score]) => ({ endpoint: list[i], score: Math.round(score * 100) / 100 }));
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
