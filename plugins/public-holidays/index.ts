// The public-holidays group: Nager.Date (source nager-date, base URL configurable with UPSTREAM_NAGER_DATE),
// with the date-holidays library as the fallback whenever Nager.Date fails or does not cover a country. Every
// answer says which of the two answered (source) and why the fallback was used (fallback_reason).
import type HolidaysType from "date-holidays";
import { lazy } from "../shared/lazy.ts";
import { Problem } from "../../engine/basics/problem.ts";
import { clock } from "../../engine/basics/clock.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import type { ParamValues } from "../../engine/endpoints/params.ts";
import { zonesOfCountry } from "../shared/tz.ts";

const holidaysLibrary = lazy<typeof HolidaysType>("date-holidays");

const DAY = 86_400_000;
const NAGER_CACHE_MS = DAY;

interface NagerHoliday {
  date: string;
  localName: string | null;
  name: string | null;
  countryCode: string;
  fixed?: boolean;
  global: boolean;
  counties: string[] | null;
  launchYear: number | null;
  types: string[] | null;
}

export interface Holiday {
  date: string;
  name: string | null;
  local_name: string | null;
  national: boolean;
  subdivisions: string[] | null;
  types: string[];
  substitute: boolean | null;
}

type Source = "nager-date" | "date-holidays";

interface YearList {
  source: Source;
  fallback_reason: string | null;
  holidays: Holiday[];
}

const FALLBACK_PROVENANCE = {
  source: "date-holidays",
  publisher: "date-holidays library (commenthol/date-holidays; data CC BY-SA 3.0)",
  url: "https://github.com/commenthol/date-holidays",
  cached: false,
};

/** Why a Nager.Date call did not give an answer, as a sentence. */
function failure(e: unknown): string {
  if (e instanceof UpstreamError) {
    if (e.kind === "unexpected") return "Nager.Date answered with something that is not its usual list.";
    return e.status === 404 ? "Nager.Date does not cover this country (404)." : `Nager.Date failed (${e.status ? `HTTP ${e.status}` : e.kind}).`;
  }
  if (e instanceof Problem) return `Nager.Date failed (${e.code}).`;
  throw e;
}

/** Calls Nager.Date; a failure or an answer that fails `check` (what its real answer looks like) gives its reason instead. */
async function nager<T>(ctx: PluginContext, path: string, check: (body: unknown) => body is T, cacheMs = NAGER_CACHE_MS): Promise<T | string> {
  try {
    return (await ctx.fetch({ source: "nager-date", path, cacheMs, expect: { test: check } })) as T;
  } catch (e) {
    return failure(e);
  }
}

const isHolidayList = (b: unknown): b is NagerHoliday[] =>
  Array.isArray(b) && b.every((h) => h && typeof h === "object" && typeof (h as NagerHoliday).date === "string" && "global" in (h as object));

function fromNager(h: NagerHoliday): Holiday {
  return {
    date: h.date,
    name: h.name || null,
    local_name: h.localName || null,
    national: h.global,
    subdivisions: h.counties?.length ? h.counties : null,
    types: (h.types ?? []).map((t) => t.toLowerCase()),
    substitute: null,
  };
}

/** The countries date-holidays knows, read once. */
let libraryCountries: Set<string> | undefined;
const libraryCountryCodes = () => (libraryCountries ??= new Set(Object.keys(new (holidaysLibrary())().getCountries("en"))));

/**
 * A year's list never changes for a given library version, and working it out is slow (the worldwide fallback
 * needs every country's: seconds on the thread that answers calls), so each list is worked out once.
 */
const libraryLists = new Map<string, Holiday[] | undefined>();
function fromLibrary(country: string, year: number, subdivision?: string): Holiday[] | undefined {
  const key = `${country} ${year} ${subdivision ?? ""}`;
  if (!libraryLists.has(key)) {
    if (libraryLists.size >= 2_000) libraryLists.clear();
    libraryLists.set(key, workOutLibraryList(country, year, subdivision));
  }
  return libraryLists.get(key);
}

/** date-holidays' list for a year: public and bank days off and, on request, the other kinds. */
function workOutLibraryList(country: string, year: number, subdivision?: string): Holiday[] | undefined {
  if (!libraryCountryCodes().has(country)) return undefined;
  const national = new (holidaysLibrary())(country);
  const local = national.getLanguages()[0] ?? "en";
  const nationalDays = new Set(national.getHolidays(year, "en").map((h) => `${h.date} ${h.rule}`));
  const state = subdivision?.split("-")[1];
  const hd = state ? new (holidaysLibrary())(country, state) : national;
  const localNames = new Map(hd.getHolidays(year, local).map((h) => [`${h.date} ${h.rule}`, h.name]));
  return hd.getHolidays(year, "en").map((h) => {
    const key = `${h.date} ${h.rule}`;
    const isNational = nationalDays.has(key);
    return {
      date: h.date.slice(0, 10),
      name: h.name,
      local_name: localNames.get(key) ?? h.name,
      national: isNational,
      subdivisions: isNational ? null : subdivision ? [subdivision] : null,
      types: [h.type === "bank" ? "bank" : h.type],
      substitute: h.substitute === true,
    };
  });
}

/** A country's holidays for a year: Nager.Date, else date-holidays; 404 when neither covers the country. */
export async function yearList(ctx: PluginContext, country: string, year: number, subdivision?: string): Promise<YearList> {
  const r = await nager(ctx, `/PublicHolidays/${year}/${country}`, isHolidayList);
  if (typeof r !== "string" && r.length) return { source: "nager-date", fallback_reason: null, holidays: r.map(fromNager) };
  const reason = typeof r === "string" ? r : "Nager.Date has no holidays for this country and year.";
  const lib = fromLibrary(country, year, subdivision);
  if (!lib?.length) {
    throw new Problem({ status: 404, code: "not_found", param: "country", detail: `Neither Nager.Date nor the date-holidays library has public holidays for ${country} (${reason})` });
  }
  ctx.record({ ...FALLBACK_PROVENANCE, fetched_at: new Date().toISOString() });
  return { source: "date-holidays", fallback_reason: reason, holidays: lib };
}

function applies(h: Holiday, subdivision: string | undefined): boolean {
  return h.national || (subdivision !== undefined && (h.subdivisions ?? []).includes(subdivision));
}

const sourceNote = (l: YearList) => l.source === "nager-date"
  ? "Answered by Nager.Date."
  : `Answered by the date-holidays library because ${l.fallback_reason?.replace(/^./, (c) => c.toLowerCase())} Its list can differ from Nager.Date's (it also shows substitute days as separate entries).`;

function typesWanted(ctx: PluginContext): string[] | null {
  const t = ctx.params.types as string[] | undefined;
  return !t || t.includes("all") ? null : t;
}

export async function holidays(ctx: PluginContext) {
  const country = ctx.params.country as string;
  const year = (ctx.params.year as number | undefined) ?? clock.now().getUTCFullYear();
  const sub = checkSubdivision(ctx.params);
  const types = typesWanted(ctx);
  const list = await yearList(ctx, country, year, sub);
  const items = list.holidays.filter((h) => (sub ? applies(h, sub) : true) && (!types || h.types.some((t) => types.includes(t))));
  return {
    query: { country, year, subdivision: sub ?? null, types: types ?? ["all"] },
    source: list.source,
    fallback_reason: list.fallback_reason,
    count: items.length,
    holidays: items,
    note: `${sourceNote(list)} national false means the day is a holiday only in the subdivisions listed.${items.length ? "" : " No holiday of these types in this year."}`,
  };
}

/** The subdivision, when given, must be one of the country's: checked before payment (the validate hooks below). */
function checkSubdivision(params: ParamValues): string | undefined {
  const sub = params.subdivision as string | undefined;
  if (sub && !sub.startsWith(`${params.country}-`)) {
    throw new Problem({ status: 400, code: "invalid_parameter", param: "subdivision", detail: `subdivision must be an ISO 3166-2 code of ${params.country}, such as ${params.country}-XX (got ${sub}).` });
  }
  return sub;
}
holidays.validate = (params: ParamValues) => void checkSubdivision(params);
next.validate = (params: ParamValues) => void checkSubdivision(params);
isHoliday.validate = (params: ParamValues) => void checkSubdivision(params);

/** Today in the country's main time zone (its first listed zone), as YYYY-MM-DD. */
function todayIn(country: string): string {
  const zone = zonesOfCountry(country)[0]?.name ?? "UTC";
  return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(clock.now());
}

const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

export async function next(ctx: PluginContext) {
  const country = ctx.params.country as string;
  const sub = checkSubdivision(ctx.params);
  const limit = ctx.params.limit as number;
  const today = todayIn(country);
  // Nager.Date's own list of the next 365 days; else this year's and next year's from the fallback.
  const r = await nager(ctx, `/NextPublicHolidays/${country}`, isHolidayList);
  let used: YearList;
  if (typeof r !== "string" && r.length) used = { source: "nager-date", fallback_reason: null, holidays: r.map(fromNager) };
  else {
    const reason = typeof r === "string" ? r : "Nager.Date has no upcoming holidays for this country.";
    const year = Number(today.slice(0, 4));
    const lists = [await yearList(ctx, country, year, sub), await yearList(ctx, country, year + 1, sub)];
    used = { source: lists[0].source, fallback_reason: lists[0].fallback_reason ?? reason, holidays: lists.flatMap((l) => l.holidays).filter((h) => h.date >= today) };
  }
  const upcoming = used.holidays
    .filter((h) => applies(h, sub) && h.types.some((t) => t === "public" || t === "bank"))
    .slice(0, limit)
    .map((h) => ({ ...h, days_until: Math.round((dayMs(h.date) - dayMs(today)) / DAY) }));
  return {
    query: { country, subdivision: sub ?? null, limit },
    today,
    source: used.source,
    fallback_reason: used.fallback_reason,
    count: upcoming.length,
    holidays: upcoming,
    note: `${sourceNote(used)} today is the date in the country's main time zone.`,
  };
}

export async function isHoliday(ctx: PluginContext) {
  const country = ctx.params.country as string;
  const sub = checkSubdivision(ctx.params);
  const date = (ctx.params.date as string | undefined) ?? todayIn(country);
  const list = await yearList(ctx, country, Number(date.slice(0, 4)), sub);
  const matches = list.holidays.filter((h) => h.date === date && applies(h, sub));
  const dayOff = matches.filter((h) => h.types.some((t) => t === "public" || t === "bank"));
  const weekday = WEEKDAYS[new Date(dayMs(date)).getUTCDay()];
  return {
    query: { country, date, subdivision: sub ?? null },
    date,
    is_holiday: dayOff.length > 0,
    day_of_week: weekday,
    weekend: weekday === "saturday" || weekday === "sunday",
    holidays: matches,
    regional_elsewhere: list.holidays.filter((h) => h.date === date && !applies(h, sub)).map((h) => ({ name: h.name, subdivisions: h.subdivisions })),
    source: list.source,
    fallback_reason: list.fallback_reason,
    note: `${sourceNote(list)} is_holiday counts public and bank holidays that apply nationally${sub ? ` or in ${sub}` : ""}; regional_elsewhere lists holidays of other subdivisions on that day. weekend means Saturday or Sunday, which is not the weekend everywhere.`,
  };
}

interface NagerLongWeekend {
  startDate: string;
  endDate: string;
  dayCount: number;
  needBridgeDay: boolean;
  bridgeDays?: string[] | null;
}

const isLongWeekends = (b: unknown): b is NagerLongWeekend[] =>
  Array.isArray(b) && b.every((w) => w && typeof w === "object" && typeof (w as NagerLongWeekend).startDate === "string");

/** Runs of three or more days off (Saturday, Sunday, national public holidays), allowing one bridge day. */
function computeLongWeekends(days: Holiday[], year: number): NagerLongWeekend[] {
  const off = new Set(days.filter((h) => h.national && h.types.includes("public")).map((h) => h.date));
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const isOff = (ms: number) => [0, 6].includes(new Date(ms).getUTCDay()) || off.has(iso(ms));
  const out: NagerLongWeekend[] = [];
  const seen = new Set<string>();
  for (const h of [...off].sort()) {
    const t = dayMs(h);
    // A lone working day between the holiday and a weekend can be bridged.
    const bridge = [t - DAY, t + DAY].find((b) => !isOff(b) && (isOff(b - DAY) || isOff(b + DAY)) && (b < t ? isOff(b - DAY) : isOff(b + DAY)));
    for (const extra of [undefined, bridge]) {
      const isOffWith = (ms: number) => isOff(ms) || ms === extra;
      let s = t;
      let e = t;
      while (isOffWith(s - DAY)) s -= DAY;
      while (isOffWith(e + DAY)) e += DAY;
      const count = Math.round((e - s) / DAY) + 1;
      const key = `${iso(s)} ${iso(e)}`;
      if (count >= 3 && !seen.has(key) && new Date(s).getUTCFullYear() <= year) {
        seen.add(key);
        out.push({ startDate: iso(s), endDate: iso(e), dayCount: count, needBridgeDay: extra !== undefined, bridgeDays: extra !== undefined ? [iso(extra)] : [] });
      }
      if (extra === undefined && count >= 3) break;
    }
  }
  return out.sort((a, b) => a.startDate.localeCompare(b.startDate));
}

export async function longWeekends(ctx: PluginContext) {
  const country = ctx.params.country as string;
  const year = (ctx.params.year as number | undefined) ?? clock.now().getUTCFullYear();
  const r = await nager(ctx, `/LongWeekend/${year}/${country}`, isLongWeekends);
  let source: Source = "nager-date";
  let reason: string | null = null;
  let periods: NagerLongWeekend[];
  if (typeof r !== "string" && r.length) periods = r;
  else {
    reason = typeof r === "string" ? r : "Nager.Date has no long weekends for this country and year.";
    const list = await yearList(ctx, country, year);
    source = list.source;
    periods = computeLongWeekends(list.holidays, year);
  }
  return {
    query: { country, year },
    source: source === "nager-date" && reason === null ? "nager-date" : "computed",
    fallback_reason: reason,
    count: periods.length,
    long_weekends: periods.map((w) => ({
      start_date: w.startDate, end_date: w.endDate, days: w.dayCount, needs_bridge_day: w.needBridgeDay, bridge_days: w.bridgeDays ?? [],
    })),
    note: reason === null
      ? "Answered by Nager.Date: periods of three or more days off around national public holidays (Saturday and Sunday as the weekend); bridge_days are the working days to take off."
      : `Computed here from the ${source === "nager-date" ? "Nager.Date" : "date-holidays"} holiday list because ${reason.replace(/^./, (c) => c.toLowerCase())} Saturday and Sunday are taken as the weekend, with at most one bridge day.`,
  };
}

const isCountries = (b: unknown): b is { countryCode: string; name: string }[] =>
  Array.isArray(b) && b.length > 0 && b.every((c) => c && typeof c === "object" && typeof (c as { countryCode: unknown }).countryCode === "string");

export async function countries(ctx: PluginContext) {
  const r = await nager(ctx, "/AvailableCountries", isCountries, 7 * DAY);
  if (typeof r !== "string") {
    return { source: "nager-date", fallback_reason: null, count: r.length, countries: r.map((c) => ({ code: c.countryCode, name: c.name })), note: "The countries Nager.Date covers; the others may still be answered by the date-holidays fallback." };
  }
  ctx.record({ ...FALLBACK_PROVENANCE, fetched_at: new Date().toISOString() });
  const all = new (holidaysLibrary())().getCountries("en");
  const list = Object.entries(all).map(([code, name]) => ({ code, name }));
  return { source: "date-holidays", fallback_reason: r, count: list.length, countries: list, note: `The countries of the date-holidays library, because ${r.replace(/^./, (c) => c.toLowerCase())}` };
}

/** The next 7 days' holidays in the 100-odd countries Nager.Date covers: never recorded empty, so an empty list is not its answer. */
const isWorldwideList = (b: unknown): b is NagerHoliday[] => isHolidayList(b) && b.length > 0;

export async function worldwideNext(ctx: PluginContext) {
  const r = await nager(ctx, "/NextPublicHolidaysWorldwide", isWorldwideList, 3600_000);
  let source: Source = "nager-date";
  let reason: string | null = null;
  let items: (Holiday & { country_code: string })[];
  const today = clock.now().toISOString().slice(0, 10);
  if (typeof r !== "string") {
    items = r.map((h) => ({ country_code: h.countryCode, ...fromNager(h) }));
  } else {
    source = "date-holidays";
    reason = r;
    ctx.record({ ...FALLBACK_PROVENANCE, fetched_at: new Date().toISOString() });
    const end = new Date(clock.now().getTime() + 7 * DAY).toISOString().slice(0, 10);
    const year = Number(today.slice(0, 4));
    items = [...libraryCountryCodes()].flatMap((code) =>
      [year, year + 1].flatMap((y) => fromLibrary(code, y) ?? [])
        .filter((h) => h.national && h.date >= today && h.date <= end && h.types.includes("public"))
        .map((h) => ({ country_code: code, ...h })));
  }
  items.sort((a, b) => a.date.localeCompare(b.date) || a.country_code.localeCompare(b.country_code));
  return {
    source,
    fallback_reason: reason,
    count: items.length,
    countries: new Set(items.map((h) => h.country_code)).size,
    holidays: items,
    note: source === "nager-date" ? "Public holidays in the next 7 days in the countries Nager.Date covers." : `Public holidays in the next 7 days from the date-holidays library, because ${r}`,
  };
}
