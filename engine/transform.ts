// JSONata transforms, with a few helpers for the shapes upstreams really send.
// In an expression: $params (validated query), $vars (the endpoint's constants), $today (YYYY-MM-DD) and:
//   $isoDay(text)   "02 Jan 1975", "22-04-2026", "2025-01-02T06:00:00Z" -> "YYYY-MM-DD" (null if unreadable)
//   $num(text)      "4.25" -> 4.25; "", "..", "-", "x" -> null
//   $lastN(array,n) the last n items
//   $changes(array, field)  the items where `field` differs from the item before (the first item included)
//   $period(text)   statistical periods: "2025 SEP" -> "2025-09", "2025 Q3" -> "2025-Q3", "2025" -> "2025"
//   $jsonstat(doc)  a JSON-stat 2.0 dataset as rows: { <dimension>: <category code>, ..., value, status } (engine/jsonstat.ts)
//   $distanceKm(lat1, lng1, lat2, lng2)  great-circle (haversine) distance in kilometres
//   $invertedText(index)  text from an inverted index { word: [positions] } (OpenAlex abstracts); null if none
//   $htmlText(html) an HTML fragment as plain text: tags dropped, entities decoded, one line per paragraph
//                   (null when nothing is left)
import jsonata from "jsonata";
import { isoDay, toIsoDay, todayUtc } from "./dates.ts";
import { jsonstatRows } from "./jsonstat.ts";

function num(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const t = v.trim().replace(/,/g, "");
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  return Number(t);
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

function period(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const t = String(v).trim().toUpperCase();
  let m = /^(\d{4}) ([A-Z]{3})$/.exec(t);
  if (m && MONTHS.includes(m[2])) return `${m[1]}-${String(MONTHS.indexOf(m[2]) + 1).padStart(2, "0")}`;
  m = /^(\d{4}) (Q[1-4])$/.exec(t);
  if (m) return `${m[1]}-${m[2]}`;
  return t;
}

function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(a)));
}

export function invertedText(index: unknown): string | null {
  if (!index || typeof index !== "object" || Array.isArray(index)) return null;
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index as Record<string, unknown>)) {
    if (!Array.isArray(positions)) continue;
    for (const p of positions) if (Number.isInteger(p) && p >= 0 && p < 100_000) words[p] = word;
  }
  const text = words.filter((w) => w !== undefined).join(" ");
  return text === "" ? null : text;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", ndash: "\u2013", mdash: "\u2014", lsquo: "\u2018", rsquo: "\u2019", ldquo: "\u201c", rdquo: "\u201d", pound: "\u00a3", hellip: "\u2026" };

export function htmlText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const text = String(v)
    .replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr)\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] !== "#") return ENTITIES[e.toLowerCase()] ?? m;
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    })
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .join("\n");
  return text === "" ? null : text;
}

function register(expr: jsonata.Expression): void {
  expr.registerFunction("period", (v: unknown) => period(v), "<j?:s>");
  expr.registerFunction("isoDay", (v: unknown) => (v === undefined || v === null ? null : toIsoDay(String(v)) ?? null), "<j?:s>");
  expr.registerFunction("num", (v: unknown) => num(v), "<j?:n>");
  expr.registerFunction("invertedText", (v: unknown) => invertedText(v), "<j?:s>");
  expr.registerFunction("htmlText", (v: unknown) => htmlText(v), "<j?:s>");
  expr.registerFunction("lastN", (a: unknown, n: number) => (Array.isArray(a) ? a.slice(Math.max(0, a.length - n)) : a === undefined ? [] : [a]), "<x?n:a>");
  expr.registerFunction("changes", (a: unknown, field: string) => {
    const arr = Array.isArray(a) ? a : a === undefined ? [] : [a];
    return arr.filter((x, i) => i === 0 || (x as Record<string, unknown>)[field] !== (arr[i - 1] as Record<string, unknown>)[field]);
  }, "<a?s:a>");
  expr.registerFunction("jsonstat", (doc: unknown) => jsonstatRows(doc), "<o:a>");
  expr.registerFunction("distanceKm", (a: number, b: number, c: number, d: number) => distanceKm(a, b, c, d), "<nnnn:n>");
}

export interface CompiledTransform {
  evaluate(input: unknown, bindings: { params: Record<string, unknown>; vars: Record<string, unknown> }): Promise<unknown>;
}

export function compileTransform(source: string): CompiledTransform {
  const expr = jsonata(source);
  register(expr);
  return {
    evaluate: (input, b) => expr.evaluate(input, { params: b.params, vars: b.vars, today: isoDay(todayUtc()) }),
  };
}

/** Deep-copies JSONata's output into plain JSON (it marks sequences with extra properties). */
export function plain(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}
