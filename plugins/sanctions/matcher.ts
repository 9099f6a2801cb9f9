// The name index and the scorer. Every listed name (primary, aliases, non-Latin spellings) is cut into words; a
// query word finds the listed words equal to it, one edit away (symmetric deletions) or sounding alike (soundKey),
// and two adjacent words also match as one (Abdul Rahman / Abdulrahman). Candidates that share enough of the
// query's rare words are scored: words are paired greedily by similarity, and the score weighs how much of the
// query and how much of the listed name is covered, so extra or missing middle names cost little and word order
// nothing. Type, birth year and country then move the score up or down, each with its reason.
import { deletions, isCjk, jaroWinkler, nameTokens, soundKey, titleOf, titlesOf } from "./normalise.ts";
import { countryCode } from "./countries.ts";
import { yearsOf, type Entry, type EntryName, type EntryType, type ListCode } from "./types.ts";

/** Jaro-Winkler similarity below which two words are not paired. */
const MIN_JW = 0.82;
/** What a title shared by the query and the listed name (Haji, Dr) counts for, on both sides: about a middle name. */
const SHARED_TITLE_WEIGHT = 0.6;
/** Two names whose words are all misspelt and in another order are weak evidence: the score is lowered this much. */
const REORDERED_FUZZY = 0.9;
/** The Arabic article joined to a word (Alrawi for AL-RAWI): the word is also tried without it. */
const JOINED_ARTICLE = /^(?:al|el)([a-z]{3,})$/;

interface IndexedName {
  entry: number;
  name: EntryName;
  tokens: number[];
  /** Adjacent pairs joined, as vocabulary ids, with the word positions they cover. */
  pairs: { id: number; at: number }[];
  weights: number[];
  /** Its titles (Haji, Dr...), which are not among its tokens. */
  titles: string[];
}

export interface ScreenQuery {
  name: string;
  type?: EntryType;
  birthYear?: number;
  country?: string;
  lists?: ListCode[];
  threshold: number;
  limit?: number;
}

export interface Match {
  entry_id: number;
  list: ListCode;
  list_id: string;
  score: number;
  name_score: number;
  name: string;
  matched_name: string;
  matched_name_kind: string;
  type: EntryType;
  programmes: string[];
  countries: string[];
  dates_of_birth: string[];
  why: string[];
}

/**
 * Weight of a word in its name: initials count half; a person's middle names 0.6 each, and together no more than
 * one word (a name given as first and last name only still covers most of a long listed name); all else 1.
 */
function weights(tokens: string[], person: boolean, listed = false): number[] {
  // The cap is for listed names: a query's own middle names keep their weight, so a misspelt surname costs the same.
  const middle = listed ? Math.min(0.6, 1 / Math.max(1, tokens.length - 2)) : 0.6;
  return tokens.map((t, i) => (t.length === 1 && !isCjk(t) ? 0.5 : person && tokens.length >= 3 && i > 0 && i < tokens.length - 1 ? middle : 1));
}

/** Similarity of two words, 0 when they should not pair. */
export function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (isCjk(a) || isCjk(b) || /^\d+$/.test(a) || /^\d+$/.test(b)) return 0;
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? 0.8 : 0;
  const jw = jaroWinkler(a, b);
  // Same sound counts when the spellings are also alike, or when one is a vowel-less transliteration (mhmd).
  const sameSound = Math.min(a.length, b.length) >= 3 && soundKey(a) === soundKey(b) && (jw >= 0.7 || !/[aeiou]/.test(a) || !/[aeiou]/.test(b));
  if (!sameSound && (jw < MIN_JW || (Math.min(a.length, b.length) <= 3 && jw < 0.9))) return 0;
  // Jaro-Winkler is generous (0.9 for quite different words): stretched so each step away from equal costs twice.
  const sim = 1 - 2 * (1 - jw);
  if (!sameSound) return sim;
  // Sounding alike vouches for a spelling variant in proportion to how alike the letters still are.
  const vowelless = !/[aeiou]/.test(a) || !/[aeiou]/.test(b);
  return Math.max(sim, vowelless || jw >= 0.8 ? 0.85 : 0.75);
}

/** Two words of which one stands for two joined words (binladin): spelling must be close, sound alone is not enough. */
function joinedSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (Math.abs(a.length - b.length) > 2) return 0;
  const jw = jaroWinkler(a, b);
  return jw >= 0.9 ? 1 - 2 * (1 - jw) : 0;
}

export class SanctionsIndex {
  readonly entries: Entry[];
  private readonly names: IndexedName[] = [];
  private readonly vocab = new Map<string, number>();
  private readonly words: string[] = [];
  /** Whether a vocabulary word occurs as a word of its own (not only as two joined words). */
  private readonly single: boolean[] = [];
  private readonly postings: number[][] = [];
  private readonly bySound = new Map<string, number[]>();
  private readonly byDeletion = new Map<string, number[]>();
  private readonly entryCountries: Set<string>[];
  private readonly entryYears: number[][];

  constructor(entries: Entry[]) {
    this.entries = entries;
    this.entryCountries = entries.map((e) => new Set(e.countries.map(countryCode).filter((c): c is string => !!c)));
    this.entryYears = entries.map((e) => yearsOf(e.dates_of_birth));
    entries.forEach((e, entry) => {
      const seen = new Set<string>();
      for (const name of e.names) {
        const toks = nameTokens(name.name);
        const key = toks.join(" ");
        if (!toks.length || seen.has(key)) continue;
        seen.add(key);
        const id = this.names.length;
        const tokens = toks.map((t) => this.word(t, true));
        const pairs = toks.slice(1).map((t, i) => ({ id: this.word(toks[i] + t, false), at: i }));
        this.names.push({ entry, name, tokens, pairs, weights: weights(toks, e.type === "individual", true), titles: titlesOf(name.name) });
        for (const t of new Set([...tokens, ...pairs.map((p) => p.id)])) this.postings[t].push(id);
      }
    });
  }

  get nameCount(): number {
    return this.names.length;
  }

  private word(w: string, single: boolean): number {
    let id = this.vocab.get(w);
    if (id === undefined) {
      id = this.words.length;
      this.vocab.set(w, id);
      this.words.push(w);
      this.postings.push([]);
      this.single.push(false);
      if (w.length >= 3 && !isCjk(w)) push(this.bySound, soundKey(w), id);
    }
    if (single && !this.single[id]) {
      this.single[id] = true;
      if (w.length >= 4 && !isCjk(w)) for (const d of [w, ...deletions(w)]) push(this.byDeletion, d, id);
    }
    return id;
  }

  /** Similarity of a query word (or two joined query words) to a listed word. */
  private similarity(q: string, id: number, joinedQuery: boolean): number {
    return joinedQuery || !this.single[id] ? joinedSimilarity(q, this.words[id]) : wordSimilarity(q, this.words[id]);
  }

  /** Listed words similar to a query word, with their similarity. */
  private similarWords(q: string, joinedQuery: boolean): Map<number, number> {
    const out = new Map<number, number>();
    const consider = (id: number) => {
      if (out.has(id)) return;
      const s = this.similarity(q, id, joinedQuery);
      if (s > 0) out.set(id, s);
    };
    const exact = this.vocab.get(q);
    if (exact !== undefined) out.set(exact, 1);
    if (q.length < 2 || isCjk(q)) return out;
    if (q.length >= 3 && !joinedQuery) for (const id of this.bySound.get(soundKey(q)) ?? []) consider(id);
    if (q.length >= 4) for (const d of [q, ...deletions(q)]) for (const id of this.byDeletion.get(d) ?? []) consider(id);
    return out;
  }

  screen(query: ScreenQuery): { matches: Match[]; total: number } {
    const qTokens = nameTokens(query.name, true);
    if (!qTokens.length) return { matches: [], total: 0 };
    const qWeights = weights(qTokens, query.type !== "entity" && query.type !== "vessel");
    const qTitles = titlesOf(query.name, true);
    // Query words that may be a misspelt title (seyd): covered by the title when the listed name has it.
    const qTitleAt = qTokens.map((t) => titleOf(t, true));
    const qUnits = [
      ...qTokens.map((t, i) => ({ text: t, at: [i] })),
      ...qTokens.flatMap((t, i) => (JOINED_ARTICLE.test(t) ? [{ text: JOINED_ARTICLE.exec(t)![1], at: [i] }] : [])),
      ...qTokens.slice(1).map((t, i) => ({ text: qTokens[i] + t, at: [i, i + 1] })),
    ];
    const unitSims = qUnits.map((u) => this.similarWords(u.text, u.at.length === 2));

    // Candidates: a name can only reach the threshold if the query words it holds carry enough of the query's
    // weight (the score is at most 100 * coveredShare^0.6, and refinements add at most 10), so others are skipped.
    const totalWeight = qWeights.reduce((a, b) => a + b, 0);
    const needed = totalWeight * Math.max(0, (query.threshold - 10) / 100) ** (1 / 0.6) - 1e-9;
    const acc = new Map<number, number>();
    qUnits.forEach((u, ui) => {
      const gain = u.at.reduce((s, i) => s + qWeights[i], 0);
      const stamp = new Set<number>();
      for (const id of unitSims[ui].keys()) {
        for (const nameId of this.postings[id]) {
          if (stamp.has(nameId)) continue;
          stamp.add(nameId);
          acc.set(nameId, (acc.get(nameId) ?? 0) + gain);
        }
      }
    });

    const allowed = query.lists ? new Set(query.lists) : undefined;
    const best = new Map<number, { score: number; name: IndexedName }>();
    for (const [nameId, got] of acc) {
      if (got < needed) continue;
      const nm = this.names[nameId];
      if (allowed && !allowed.has(this.entries[nm.entry].list)) continue;
      const s = this.nameScore(nm, qTokens, qWeights, { titles: qTitles, at: qTitleAt }, qUnits, unitSims, false).score;
      const prev = best.get(nm.entry);
      if (!prev || s > prev.score) best.set(nm.entry, { score: s, name: nm });
    }

    const matches: Match[] = [];
    for (const [entryId, b] of best) {
      if (b.score < query.threshold - 15) continue;
      const detail = this.nameScore(b.name, qTokens, qWeights, { titles: qTitles, at: qTitleAt }, qUnits, unitSims, true);
      const { score, why } = this.refine(entryId, detail.score, detail.why, query);
      if (score < query.threshold) continue;
      const e = this.entries[entryId];
      matches.push({
        entry_id: entryId + 1, list: e.list, list_id: e.list_id, score, name_score: Math.round(detail.score), name: e.name,
        matched_name: b.name.name.name, matched_name_kind: kindLabel(b.name.name), type: e.type, programmes: e.programmes,
        countries: e.countries, dates_of_birth: e.dates_of_birth, why,
      });
    }
    matches.sort((a, b) => b.score - a.score || b.name_score - a.name_score || a.entry_id - b.entry_id);
    return { matches: matches.slice(0, query.limit ?? 25), total: matches.length };
  }

  /** Pairs query words with listed words greedily, best similarity first; joined pairs may stand for two words. */
  private nameScore(nm: IndexedName, qTokens: string[], qWeights: number[], qTitles: { titles: string[]; at: (string | undefined)[] }, qUnits: { text: string; at: number[] }[],
    unitSims: Map<number, number>[], explain: boolean): { score: number; why: string[] } {
    const nUnits = [...nm.tokens.map((id, i) => ({ id, at: [i] })), ...nm.pairs.map((p) => ({ id: p.id, at: [p.at, p.at + 1] }))];
    const cands: { s: number; q: number; n: number }[] = [];
    for (let qi = 0; qi < qUnits.length; qi++) {
      const sims = unitSims[qi];
      const q = qUnits[qi];
      for (let ni = 0; ni < nUnits.length; ni++) {
        const u = nUnits[ni];
        if (q.at.length === 2 && u.at.length === 2) continue;
        // Words the lookup did not bring (two edits apart, initials) are compared here, once per query.
        let s = sims.get(u.id);
        if (s === undefined) {
          s = q.at.length === 1 && u.at.length === 1 ? this.similarity(q.text, u.id, false) : 0;
          sims.set(u.id, s);
        }
        if (s) cands.push({ s, q: qi, n: ni });
      }
    }
    cands.sort((a, b) => b.s - a.s || qUnits[a.q].at.length - qUnits[b.q].at.length);
    const qCredit = new Array<number>(qTokens.length).fill(0);
    const nCredit = new Array<number>(nm.tokens.length).fill(0);
    const pairsUsed: { q: number; n: number; s: number }[] = [];
    for (const c of cands) {
      const qa = qUnits[c.q].at;
      const na = nUnits[c.n].at;
      if (qa.some((i) => qCredit[i]) || na.some((i) => nCredit[i])) continue;
      for (const i of qa) qCredit[i] = c.s;
      for (const i of na) nCredit[i] = c.s;
      pairsUsed.push(c);
    }
    const sharedTitles = qTitles.titles.filter((t) => nm.titles.includes(t));
    qTitles.at.forEach((t, i) => {
      if (t && !qCredit[i] && nm.titles.includes(t)) qCredit[i] = 1;
    });
    const title = sharedTitles.length ? SHARED_TITLE_WEIGHT : 0;
    const cover = (credit: number[], w: number[]) => (credit.reduce((s, c, i) => s + c * w[i], 0) + title) / (w.reduce((a, b) => a + b, 0) + title);
    const covQ = cover(qCredit, qWeights);
    const covN = cover(nCredit, nm.weights);
    let score = 100 * covQ ** 0.6 * covN ** 0.4;
    if (nm.name.kind === "weak") score *= 0.9;
    const singles = pairsUsed.filter((p) => qUnits[p.q].at.length === 1 && nUnits[p.n].at.length === 1).sort((a, b) => a.q - b.q);
    const reordered = singles.some((p, i) => i > 0 && nUnits[p.n].at[0] < nUnits[singles[i - 1].n].at[0]);
    const allFuzzy = pairsUsed.length > 1 && pairsUsed.every((p) => p.s < 1);
    if (reordered && allFuzzy) score *= REORDERED_FUZZY;
    if (!explain) return { score, why: [] };

    const why: string[] = [`matched the ${kindLabel(nm.name)} "${nm.name.name}"`];
    for (const p of pairsUsed) {
      const q = qUnits[p.q].text;
      const w = this.words[nUnits[p.n].id];
      if (p.s === 1 && qUnits[p.q].at.length === nUnits[p.n].at.length) continue;
      const how = qUnits[p.q].at.length !== nUnits[p.n].at.length ? "written as one word / two words"
        : q.length === 1 || w.length === 1 ? "initial" : soundKey(q) === soundKey(w) ? "spelling or transliteration variant" : "close spelling (typo?)";
      why.push(`"${q}" ~ "${w}": ${how}`);
    }
    if (reordered) why.push(allFuzzy ? `word order differs and no word matched exactly: score lowered by ${Math.round(100 * (1 - REORDERED_FUZZY))}%` : "word order differs");
    if (sharedTitles.length) why.push(`same title: ${sharedTitles.join(", ")}`);
    const extraQ = qTokens.filter((_, i) => !qCredit[i]);
    if (extraQ.length) why.push(`query words not in this name: ${extraQ.join(", ")}`);
    const missing = nm.tokens.filter((_, i) => !nCredit[i]).map((id) => this.words[id]);
    if (missing.length) why.push(`listed words not in the query: ${missing.join(", ")}`);
    if (nm.name.kind === "weak") why.push("weak (low-quality) alias: score lowered by 10%");
    return { score, why };
  }

  private refine(entryId: number, nameScore: number, why: string[], q: ScreenQuery): { score: number; why: string[] } {
    const e = this.entries[entryId];
    let score = nameScore;
    const reasons = [...why];
    if (q.type && q.type !== e.type) {
      score -= 20;
      reasons.push(`type differs: listed as ${e.type} (-20)`);
    }
    const years = this.entryYears[entryId];
    if (q.birthYear !== undefined && e.type === "individual") {
      if (!years.length) reasons.push("no birth date listed to compare");
      else if (years.some((y) => Math.abs(y - q.birthYear!) <= 1)) {
        score += 5;
        reasons.push(`birth year ${q.birthYear} fits a listed date of birth (+5)`);
      } else {
        score -= 15;
        reasons.push(`birth year ${q.birthYear} differs from the listed ${[...new Set(years)].join(", ")} (-15)`);
      }
    }
    const qc = countryCode(q.country);
    if (q.country) {
      const codes = this.entryCountries[entryId];
      if (!qc) reasons.push(`country "${q.country}" not recognised: not used`);
      else if (!codes.size) reasons.push("no country listed to compare");
      else if (codes.has(qc)) {
        score += 5;
        reasons.push(`country ${qc} is linked to the entry (+5)`);
      } else {
        score -= 10;
        reasons.push(`country ${qc} is not among the entry's countries (-10)`);
      }
    }
    return { score: Math.max(0, Math.min(100, Math.round(score))), why: reasons };
  }
}

function kindLabel(n: EntryName): string {
  const base = n.kind === "primary" ? "primary name" : n.kind === "weak" ? "weak alias" : "alias";
  return n.script ? `${base} (${n.script})` : base;
}

function push(map: Map<string, number[]>, key: string, id: number): void {
  const arr = map.get(key);
  if (!arr) map.set(key, [id]);
  else if (arr[arr.length - 1] !== id) arr.push(id);
}
