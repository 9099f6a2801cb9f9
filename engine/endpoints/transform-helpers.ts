// The helpers every JSONata expression may call (transforms, URL templates, preconditions): the shapes upstreams
// really send, turned into the answer vocabulary of docs/answers.md. The list with examples is in transform.ts.
import jsonata from "jsonata";
import { boeDate, toIsoDay } from "../basics/dates.ts";
import { jsonstatRows } from "./jsonstat.ts";

function num(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const t = v.trim().replace(/,/g, "");
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  return Number(t);
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

/** The Europe/London calendar day of an instant ("2026-04-21T23:00:00.000Z" is 22 April there); a bare day stays itself. */
export function londonDay(v: unknown): string | null {
  if (v === undefined || v === null || v === "") return null;
  const text = String(v).trim();
  if (!/T\d{2}:\d{2}/.test(text)) return toIsoDay(text) ?? null;
  const t = Date.parse(text);
  if (!Number.isFinite(t)) return null;
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/London", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(t));
}

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

function decodeEntities(t: string): string {
  return t.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] !== "#") return ENTITIES[e.toLowerCase()] ?? m;
    const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
}

/** HTML as plain text: breaks and paragraph ends become lines, tags go, entities are decoded. */
export function htmlText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  let html = String(v);
  // Markup that arrives escaped ("&lt;br/&gt;", as TfL sends it) is unescaped once first.
  if (!/<[a-z/!]/i.test(html) && /&lt;\/?[a-z]/i.test(html)) html = decodeEntities(html);
  const text = decodeEntities(html.replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr)\b[^>]*>/gi, "\n").replace(/<[^>]*>/g, ""))
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return text === "" ? null : text;
}

export function zonedInstant(v: unknown, zone: string): string | null {
  if (v === undefined || v === null) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(String(v).trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [+m[1], +m[2], +m[3], +m[4], +m[5], +(m[6] ?? 0)];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const fmt = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  const offsetAt = (t: number) => {
    const p = Object.fromEntries(fmt.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
    return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) - t;
  };
  // The offset at the guessed instant, then re-checked at the corrected one (right across a DST change).
  let offset = offsetAt(asUtc);
  offset = offsetAt(asUtc - offset);
  const mins = Math.round(offset / 60_000);
  const sign = mins < 0 ? "-" : "+";
  const hh = String(Math.floor(Math.abs(mins) / 60)).padStart(2, "0");
  const mm = String(Math.abs(mins) % 60).padStart(2, "0");
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${m[1]}-${m[2]}-${m[3]}T${pad(h)}:${pad(mi)}:${pad(s)}${sign}${hh}:${mm}`;
}

/** Makes every helper callable from an expression. */
export function registerHelpers(expr: jsonata.Expression): void {
  expr.registerFunction("period", (v: unknown) => period(v), "<j?:s>");
  expr.registerFunction("londonDay", (v: unknown) => londonDay(v), "<j?:s>");
  expr.registerFunction("boeDate", (v: unknown) => (typeof v === "string" ? boeDate(v) : null), "<j?:s>");
  expr.registerFunction("isoDay", (v: unknown) => (v === undefined || v === null ? null : toIsoDay(String(v)) ?? null), "<j?:s>");
  expr.registerFunction("num", (v: unknown) => num(v), "<j?:n>");
  expr.registerFunction("invertedText", (v: unknown) => invertedText(v), "<j?:s>");
  expr.registerFunction("htmlText", (v: unknown) => htmlText(v), "<j?:s>");
  expr.registerFunction("lastN", (a: unknown, n: number) => (Array.isArray(a) ? a.slice(Math.max(0, a.length - n)) : a === undefined ? [] : [a]), "<x?n:a>");
  expr.registerFunction("zonedInstant", (v: unknown, zone: string) => zonedInstant(v, zone), "<j?s:s>");
  expr.registerFunction("changes", (a: unknown, field: string) => {
    const arr = Array.isArray(a) ? a : a === undefined ? [] : [a];
    return arr.filter((x, i) => i === 0 || (x as Record<string, unknown>)[field] !== (arr[i - 1] as Record<string, unknown>)[field]);
  }, "<a?s:a>");
  expr.registerFunction("jsonstat", (doc: unknown) => jsonstatRows(doc), "<o:a>");
  expr.registerFunction("distanceKm", (a: number, b: number, c: number, d: number) => distanceKm(a, b, c, d), "<nnnn:n>");
}


/** A JSONata expression that can call the helpers (URL templates, preconditions, expect tests). */
export function expression(source: string): jsonata.Expression {
  const expr = jsonata(source);
  registerHelpers(expr);
  return expr;
}
