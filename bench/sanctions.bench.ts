// Sanctions screening quality and speed on the real lists in ../shared/data/sanctions (SANCTIONS_DATA overrides):
// recall on listed names with realistic perturbations (cases generated from the lists, seeded, so every run uses the
// same sets: the one the matcher was tuned on, and an independent one of 200 SDN names), false positives on common
// names that are not listed, and screening latency over all loaded lists on this one thread. Skipped with a message
// when the data folder is absent.
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import definition from "../plugins/sanctions/sanctions.dataset.ts";
import { findLocal, inputOf } from "../engine/datasets/input.ts";
import { nameTokens } from "../plugins/sanctions/normalise.ts";
import type { Entry } from "../plugins/sanctions/types.ts";
import { independentCases, rng, type Case } from "./sdn-perturbed.ts";

const DATA = process.env.SANCTIONS_DATA ?? path.resolve(import.meta.dirname, "..", "..", "shared", "data", "sanctions");
const THRESHOLD = 80;
const PER_KIND = 100;


const LATIN_VARIANTS: [RegExp, string][] = [
  [/mohammed|mohammad|muhammad|mohamed/i, "Muhamad"], [/ov\b/i, "off"], [/ev\b/i, "eff"], [/kh/i, "h"], [/y/i, "i"], [/ou/i, "u"], [/u/i, "ou"],
  [/sh/i, "sch"], [/j/i, "dj"], [/ei/i, "ey"], [/iy/i, "i"], [/ee/i, "i"], [/q/i, "k"], [/ph/i, "f"], [/c/i, "k"], [/w/i, "v"], [/aa/i, "a"],
];

function makeCases(entries: Entry[]): Case[] {
  const rand = rng(Number(process.env.BENCH_SEED ?? 20251121));
  const pick = <T>(a: T[]): T => a[Math.floor(rand() * a.length)];
  const words = (s: string) => s.split(/\s+/).filter(Boolean);
  const usable = entries.filter((e) => e.type !== "aircraft" && nameTokens(e.name).some((t) => t.length >= 4));
  const people = usable.filter((e) => e.type === "individual" && words(e.name).length >= 2);
  const cases: Case[] = [];
  const add = (kind: string, e: Entry, query: string | undefined) => {
    if (query && query !== e.name) cases.push({ kind, query, list: e.list, list_id: e.list_id, from: e.name });
  };
  const typo = (w: string): string => {
    const i = 1 + Math.floor(rand() * (w.length - 2));
    const op = Math.floor(rand() * 4);
    const letter = "abcdefghiklmnoprstuvy"[Math.floor(rand() * 21)];
    if (op === 0) return w.slice(0, i) + letter + w.slice(i + 1);
    if (op === 1) return w.slice(0, i) + w.slice(i + 1);
    if (op === 2) return w.slice(0, i) + letter + w.slice(i);
    return w.slice(0, i - 1) + w[i] + w[i - 1] + w.slice(i + 1);
  };
  for (let n = 0; n < PER_KIND * 3 && cases.filter((c) => c.kind === "typo").length < PER_KIND; n++) {
    const e = pick(usable);
    const ws = words(e.name);
    const long = ws.map((w, i) => [w, i] as const).filter(([w]) => w.length >= 5);
    if (!long.length) continue;
    const [w, i] = pick(long);
    add("typo", e, ws.map((x, j) => (j === i ? typo(w) : x)).join(" "));
  }
  for (let n = 0; n < PER_KIND; n++) {
    const e = pick(people);
    const ws = words(e.name);
    add("swapped order", e, [ws[ws.length - 1], ...ws.slice(0, -1)].join(" "));
  }
  const withMiddle = people.filter((e) => words(e.name).length >= 3);
  for (let n = 0; n < PER_KIND; n++) {
    const e = pick(withMiddle);
    const ws = words(e.name);
    const drop = 1 + Math.floor(rand() * (ws.length - 2));
    add("dropped middle name", e, ws.filter((_, j) => j !== drop).join(" "));
  }
  const nonLatin = usable.filter((e) => e.names.some((x) => x.script && x.kind !== "weak" && /Cyrillic|Arabic|Chinese|CJK|Russian/i.test(x.script)));
  for (let n = 0; n < PER_KIND / 2; n++) {
    const e = pick(nonLatin);
    add("non-Latin script", e, pick(e.names.filter((x) => x.script && x.kind !== "weak" && /Cyrillic|Arabic|Chinese|CJK|Russian/i.test(x.script))).name);
  }
  for (let n = 0; n < PER_KIND * 5 && cases.filter((c) => c.kind === "Latin transliteration").length < PER_KIND / 2; n++) {
    const e = pick(people);
    const applicable = LATIN_VARIANTS.filter(([re]) => re.test(e.name));
    if (!applicable.length) continue;
    const [re, to] = pick(applicable);
    add("Latin transliteration", e, e.name.replace(re, to));
  }
  const companies = usable.filter((e) => e.type === "entity");
  for (let n = 0; n < PER_KIND / 2; n++) {
    const e = pick(companies);
    add("honorific or legal suffix", e, `${e.name} ${pick(["LLC", "Ltd", "OOO", "Co., Ltd.", "GmbH", "JSC"])}`);
  }
  for (let n = 0; n < PER_KIND / 2; n++) {
    const e = pick(people);
    add("honorific or legal suffix", e, `${pick(["Mr", "Dr", "Sheikh", "General", "Mrs"])} ${e.name}`);
  }
  return cases;
}

const FIRST = ["John", "Mary", "James", "Maria", "David", "Sarah", "Michael", "Emma", "Robert", "Linda", "Wei", "Li", "Priya", "Rahul", "Carlos", "Ana",
  "Pierre", "Sophie", "Hans", "Anna", "Olga", "Dmitry", "Fatima", "Omar", "Aisha", "Kenji", "Yuki", "Chen", "Jose", "Lucia"];
const LAST = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Martinez", "Wilson", "Taylor", "Anderson", "Thomas",
  "Moore", "Martin", "Lee", "Thompson", "White", "Harris", "Clark", "Patel", "Sharma", "Dubois", "Muller", "Schmidt", "Rossi", "Tanaka", "Sato",
  "Wang", "Zhang", "Liu", "Kowalski", "Novak", "Petersen", "Jensen", "Murphy", "Kelly", "Silva", "Santos", "Costa"];
const COMPANIES = ["Acme Trading LLC", "Global Logistics Ltd", "Sunrise Holdings", "Northern Lights Bakery", "Blue Ocean Shipping", "Green Valley Farms",
  "Pioneer Software GmbH", "Atlas Construction Co", "Silver Star Imports", "Riverside Dental Clinic", "Maple Leaf Consulting", "Golden Gate Foods",
  "Summit Capital Partners", "Evergreen Timber", "Harbor View Hotel", "Crystal Clear Water", "Redwood Analytics", "Bright Future Education",
  "Metro Taxi Services", "Oakwood Furniture"];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export default async function main(): Promise<void> {
  if (!fs.existsSync(DATA)) {
    console.log(`skipped: no sanctions data at ${DATA}`);
    return;
  }
  const db = new DatabaseSync(":memory:");
  let t = performance.now();
  const loaded = await definition.load(inputOf(findLocal(definition, DATA)), db, { phase() {}, tick() {}, log() {} });
  console.log(`loaded ${JSON.stringify(loaded.counts)} in ${Math.round(performance.now() - t)} ms (EU: ${loaded.counts.eu ? "loaded" : "no file in the data folder"})`);
  t = performance.now();
  const index = definition.index!(db);
  console.log(`index: ${index.nameCount} names in ${Math.round(performance.now() - t)} ms`);

  const latencies: number[] = [];
  const slowest: [number, string][] = [];
  const timed = <T>(query: string, f: () => T): T => {
    const s = performance.now();
    const r = f();
    const ms = performance.now() - s;
    latencies.push(ms);
    slowest.push([ms, query]);
    return r;
  };

  const recall = (title: string, cases: Case[]) => {
    const byKind = new Map<string, { n: number; hit: number }>();
    const misses: string[] = [];
    for (const c of cases) {
      const r = timed(c.query, () => index.screen({ name: c.query, threshold: THRESHOLD, limit: 1000 }));
      const hit = r.matches.some((m) => m.list === c.list && m.list_id === c.list_id);
      const k = byKind.get(c.kind) ?? { n: 0, hit: 0 };
      k.n++;
      if (hit) k.hit++;
      else misses.push(`${c.kind}: "${c.query}" (listed ${c.list}:${c.list_id} "${c.from}")`);
      byKind.set(c.kind, k);
    }
    const hits = [...byKind.values()].reduce((s, k) => s + k.hit, 0);
    console.log(`\nrecall at threshold ${THRESHOLD}, ${title}: ${(hits / cases.length).toFixed(3)} (${hits}/${cases.length}; aim >= 0.98)`);
    for (const [kind, k] of byKind) console.log(`  ${kind.padEnd(52)} ${(k.hit / k.n).toFixed(3)} (${k.hit}/${k.n})`);
    if (misses.length) console.log(`  misses:\n    ${misses.slice(0, 15).join("\n    ")}`);
  };
  recall("perturbed listed names, all lists (the tuning set)", makeCases(index.entries));
  recall("200 perturbed SDN names (independent set, bench/sdn-perturbed.ts)", independentCases(index.entries));

  const listed = new Set(index.entries.flatMap((e) => e.names.map((n) => nameTokens(n.name).sort().join(" "))));
  const commons = [...FIRST.flatMap((f) => LAST.map((l) => `${f} ${l}`)), ...COMPANIES].filter((q) => !listed.has(nameTokens(q).sort().join(" ")));
  let flagged = 0;
  let matchCount = 0;
  const examples: string[] = [];
  for (const q of commons) {
    const r = timed(q, () => index.screen({ name: q, threshold: THRESHOLD }));
    if (r.total) {
      flagged++;
      matchCount += r.total;
      if (examples.length < (process.env.BENCH_VERBOSE ? 100 : 8)) examples.push(`"${q}" -> ${r.matches[0].score} ${r.matches[0].list}:${r.matches[0].list_id} "${r.matches[0].matched_name}"`);
    }
  }
  console.log(`\nfalse positives at threshold ${THRESHOLD}: ${flagged}/${commons.length} common unlisted names flagged (${((100 * flagged) / commons.length).toFixed(1)}%), ${matchCount} matches in all`);
  if (examples.length) console.log(`  e.g.\n    ${examples.join("\n    ")}`);

  latencies.sort((a, b) => a - b);
  console.log(`\nscreening latency over ${latencies.length} queries, all loaded lists, one thread: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${latencies.at(-1)!.toFixed(2)} ms (aim p99 < 10 ms)`);
  slowest.sort((a, b) => b[0] - a[0]);
  console.log(`  slowest: ${slowest.slice(0, 5).map(([ms, q]) => `"${q}" ${ms.toFixed(1)} ms`).join(", ")}`);
}
