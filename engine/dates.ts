// Date helpers shared by parameters, templates and transforms. All dates are UTC calendar days.

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export const isoDay = (d: Date) => d.toISOString().slice(0, 10);

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
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return isoDay(d) === text ? d : undefined;
}

/** "today", "today-120d", "today+7d" -> YYYY-MM-DD. */
export function relativeDay(expr: string, now = new Date()): string | undefined {
  const m = /^today(?:([+-])(\d+)d)?$/.exec(expr);
  if (!m) return undefined;
  const days = m[1] ? (m[1] === "-" ? -1 : 1) * Number(m[2]) : 0;
  return isoDay(addDays(todayUtc(now), days));
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
    return isoDay(new Date(Date.UTC(+m[3], month, +m[1])));
  }
  m = /^(\d{2})[-/](\d{2})[-/](\d{4})$/.exec(s);
  if (m) return parseIsoDay(`${m[3]}-${m[2]}-${m[1]}`) ? `${m[3]}-${m[2]}-${m[1]}` : undefined;
  return undefined;
}
