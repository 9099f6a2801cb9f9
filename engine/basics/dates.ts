// Date helpers shared by parameters, templates and transforms. All dates are UTC calendar days.
import { Problem } from "./problem.ts";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** YYYY-MM-DD of a UTC day; a day past 9999-12-31 (a date far in the future from an addition) is a 400. */
export function isoDay(d: Date): string {
  const year = d.getUTCFullYear();
  if (!Number.isFinite(year) || year > 9999 || year < 1) {
    throw new Problem({ status: 400, code: "date_out_of_range", detail: "The answer would need a date outside the years 0001 to 9999; ask for a nearer one." });
  }
  return `${String(year).padStart(4, "0")}-${String(d.getUTCMonth() + 1).padStart(2, "0")}-${String(d.getUTCDate()).padStart(2, "0")}`;
}

/** A UTC midnight; years 0-99 are themselves, not 1900-1999 as Date.UTC would have them. */
function utcDay(year: number, monthIndex: number, day: number): Date {
  const d = new Date(Date.UTC(2000, monthIndex, day));
  d.setUTCFullYear(year, monthIndex, day);
  return d;
}

export function todayUtc(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

/** A real calendar date in YYYY-MM-DD form, or undefined. */
export function parseIsoDay(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  if (+m[1] < 1) return undefined;
  const d = utcDay(+m[1], +m[2] - 1, +m[3]);
  return isoDay(d) === text ? d : undefined;
}

/** "today", "today-120d", "today+7d" -> YYYY-MM-DD, counted from `today` (the engine passes clock.today()). */
export function relativeDay(expr: string, today: Date): string | undefined {
  const m = /^today(?:([+-])(\d+)d)?$/.exec(expr);
  if (!m) return undefined;
  const days = m[1] ? (m[1] === "-" ? -1 : 1) * Number(m[2]) : 0;
  return isoDay(addDays(todayUtc(today), days));
}

/** YYYY-MM-DD -> "01/Jan/2024", the Bank of England database's date form. */
export function boeDate(iso: string): string {
  const d = parseIsoDay(iso);
  if (!d) return iso;
  return `${String(d.getUTCDate()).padStart(2, "0")}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}`;
}

/**
 * Reads the date forms upstreams use and answers YYYY-MM-DD (or undefined):
 * "02 Jan 1975", "02/Jan/1975", "22-04-2026" (day first), "2025-01-02", "2025-01-02T06:00:00.000Z".
 */
export function toIsoDay(text: string): string | undefined {
  const s = String(text).trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(s);
  if (m) return parseIsoDay(`${m[1]}-${m[2]}-${m[3]}`) ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
  m = /^(\d{1,2})[ /-]([A-Za-z]{3})[A-Za-z]*[ /-](\d{4})$/.exec(s);
  if (m) {
    const month = MONTHS.findIndex((x) => x.toLowerCase() === m![2].toLowerCase());
    if (month < 0) return undefined;
    return isoDay(utcDay(+m[3], month, +m[1]));
  }
  m = /^(\d{2})[-/](\d{2})[-/](\d{4})$/.exec(s);
  if (m) return parseIsoDay(`${m[3]}-${m[2]}-${m[1]}`) ? `${m[3]}-${m[2]}-${m[1]}` : undefined;
  return undefined;
}
