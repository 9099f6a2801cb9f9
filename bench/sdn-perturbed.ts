// An independent check of recall: 200 SDN names perturbed the four ways a person mistypes a name they were given
// (a typo, another word order, a middle name left out, different punctuation), 50 of each, drawn with their own
// seed and rules, apart from the cases the matcher was tuned on (sanctions.bench.ts makeCases).
import type { Entry } from "../plugins/sanctions/types.ts";
import { nameTokens } from "../plugins/sanctions/normalise.ts";

export interface Case { kind: string; query: string; list: string; list_id: string; from: string }

/** mulberry32: a small seeded generator, so the case set is the same on every run. */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYBOARD = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];

/** A letter next to `ch` on a QWERTY keyboard (the usual slip), or `ch` when it has none. */
function neighbour(ch: string, rand: () => number): string {
  const lower = ch.toLowerCase();
  for (let r = 0; r < KEYBOARD.length; r++) {
    const c = KEYBOARD[r].indexOf(lower);
    if (c < 0) continue;
    const near = [KEYBOARD[r][c - 1], KEYBOARD[r][c + 1]].filter(Boolean);
    const pick = near[Math.floor(rand() * near.length)];
    return ch === lower ? pick : pick.toUpperCase();
  }
  return ch;
}

const PER_KIND = 50;

export function independentCases(entries: Entry[], seed = Number(process.env.BENCH_SEED2 ?? 7_700_417)): Case[] {
  const rand = rng(seed);
  const pick = <T>(a: T[]): T => a[Math.floor(rand() * a.length)];
  const words = (s: string) => s.split(/\s+/).filter(Boolean);
  const sdn = entries.filter((e) => e.list === "us-ofac" && (e.sublist ?? "SDN").startsWith("SDN") && e.type !== "aircraft" && e.type !== "vessel"
    && nameTokens(e.name).length >= 2 && nameTokens(e.name).some((t) => t.length >= 4));
  const people = sdn.filter((e) => e.type === "individual");
  const cases: Case[] = [];
  const seen = new Set<string>();
  const add = (kind: string, e: Entry, query: string) => {
    if (query === e.name || seen.has(query)) return false;
    seen.add(query);
    cases.push({ kind, query, list: e.list, list_id: e.list_id, from: e.name });
    return true;
  };
  const fill = (kind: string, make: () => [Entry, string] | undefined) => {
    for (let n = 0, got = 0; got < PER_KIND && n < PER_KIND * 20; n++) {
      const made = make();
      if (made && add(kind, ...made)) got++;
    }
  };

  fill("typo (keyboard slip, letter lost, doubled or swapped)", () => {
    const e = pick(sdn);
    const ws = words(e.name);
    const long = ws.map((w, i) => [w, i] as const).filter(([w]) => /^[A-Za-z]{4,}$/.test(w));
    if (!long.length) return undefined;
    const [w, i] = pick(long);
    const at = 1 + Math.floor(rand() * (w.length - 2));
    const op = Math.floor(rand() * 4);
    const typo = op === 0 ? w.slice(0, at) + neighbour(w[at], rand) + w.slice(at + 1)
      : op === 1 ? w.slice(0, at) + w.slice(at + 1)
      : op === 2 ? w.slice(0, at) + w[at] + w.slice(at)
      : w.slice(0, at - 1) + w[at] + w[at - 1] + w.slice(at + 1);
    return [e, ws.map((x, j) => (j === i ? typo : x)).join(" ")];
  });
  fill("word order", () => {
    const e = pick(sdn);
    const ws = words(e.name.replace(/,/g, ""));
    if (ws.length < 2) return undefined;
    const shuffled = [...ws].sort(() => rand() - 0.5);
    return shuffled.join(" ") === ws.join(" ") ? [e, [...ws.slice(1), ws[0]].join(" ")] : [e, shuffled.join(" ")];
  });
  fill("middle name left out", () => {
    const e = pick(people);
    const ws = words(e.name);
    if (ws.length < 3) return undefined;
    // One middle name, or all of them (first and last name only), as often.
    const keep = rand() < 0.5 ? ws.filter((_, j) => j !== 1 + Math.floor(rand() * (ws.length - 2))) : [ws[0], ws[ws.length - 1]];
    return [e, keep.join(" ")];
  });
  fill("punctuation", () => {
    const e = pick(sdn);
    const ws = words(e.name);
    const style = Math.floor(rand() * 4);
    if (style === 0 && e.type === "individual") return [e, `${ws[ws.length - 1]}, ${ws.slice(0, -1).join(" ")}`];
    if (style === 1) return [e, ws.join(rand() < 0.5 ? "-" : ".")];
    if (style === 2) return [e, ws.map((w) => (rand() < 0.4 ? `${w}.` : w)).join(" ").replace(/\.$/, "")];
    return [e, e.name.replace(/[-,.'"()]/g, "").replace(/\s+/g, rand() < 0.5 ? "  " : " ").toLowerCase()];
  });
  return cases;
}
