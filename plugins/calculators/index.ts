// The calculators group: UK business days, the distance between two postcodes, currency conversion.
import { Problem, badParam } from "../../engine/basics/problem.ts";
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import { DAY_NAMES, day, daysBetween, isoDay } from "../shared/calendar.ts";
import { HolidayCalendar, RULE_YEARS, type HolidaySource, type Nation } from "../shared/bank-holidays.ts";
import { compassPoint, distanceKm, initialBearing, KM_PER_MILE } from "../shared/geo.ts";
import { convert, currenciesOn, rateDayOnOrBefore } from "./currency.ts";
import { clock } from "../shared/clock.ts";
import { resolvePostcode } from "../shared/postcodes.ts";
import type { HolidayIndex } from "../shared/uk-bank-holidays.dataset.ts";
import type { RatesIndex } from "./ecb-rates.dataset.ts";

// ---- uk-business-days

/** The published GOV.UK list when it is loaded; the standing rules alone otherwise (said in the answer). */
function holidayCalendar(ctx: PluginContext, nation: Nation): { calendar: HolidayCalendar; loaded: boolean } {
  try {
    const handle = ctx.dataset<HolidayIndex>("uk-bank-holidays");
    return { calendar: handle.index[nation], loaded: true };
  } catch (e) {
    if (!(e instanceof Problem) || e.code !== "dataset_not_loaded") throw e;
    ctx.log.warn("uk-bank-holidays is not loaded: business days from the standing rules only");
    return { calendar: new HolidayCalendar(nation), loaded: false };
  }
}

/** The endpoint file bounds date and until to these years; the day reached by adding is checked here. */
function inRuleYears(d: Date, param: string, what = param): void {
  const y = d.getUTCFullYear();
  if (y < RULE_YEARS.from || y > RULE_YEARS.to) {
    throw badParam(param, `${what} must fall in the years ${RULE_YEARS.from} to ${RULE_YEARS.to} (got ${isoDay(d)}).`);
  }
}

export function ukBusinessDays(ctx: PluginContext) {
  const nation = ctx.params.nation as Nation;
  const date = day(ctx.params.date as string);
  const { calendar, loaded } = holidayCalendar(ctx, nation);
  const years = new Set([date.getUTCFullYear()]);
  const describe = (d: Date) => ({ date: isoDay(d), day_of_week: DAY_NAMES[d.getUTCDay()] });
  const holiday = calendar.holiday(date);

  const out: Record<string, unknown> = {
    ...describe(date),
    nation,
    is_business_day: calendar.isBusinessDay(date),
    weekend: date.getUTCDay() === 0 || date.getUTCDay() === 6,
    holiday: holiday ? { title: holiday.title, substitute: holiday.substitute } : null,
    next_business_day: isoDay(calendar.addBusinessDays(date, 1)),
    previous_business_day: isoDay(calendar.addBusinessDays(date, -1)),
  };
  if (ctx.params.add !== undefined) {
    const n = ctx.params.add as number;
    const result = calendar.addBusinessDays(date, n);
    inRuleYears(result, "add", `add: the day ${n} business days from ${isoDay(date)}`);
    years.add(result.getUTCFullYear());
    out.add = { business_days: n, ...describe(result) };
  }
  if (ctx.params.until !== undefined) {
    const until = day(ctx.params.until as string);
    years.add(until.getUTCFullYear());
    out.until = {
      ...describe(until),
      business_days: calendar.countBusinessDays(date, until),
      counted: "business days after date, up to and including until (negative when until is earlier)",
    };
  }
  const sources: Record<string, HolidaySource> = {};
  for (let y = Math.min(...years); y <= Math.max(...years); y++) sources[y] = calendar.source(y);
  out.holiday_sources = sources;
  if (Object.values(sources).includes("rules")) {
    out.note = loaded
      ? "Some years are beyond the published GOV.UK list; their holidays come from the standing rules, which do not know one-off holidays proclaimed later."
      : "The GOV.UK list is not loaded on this server; holidays come from the standing rules, which do not know one-off holidays.";
  }
  return out;
}

// ---- postcode-distance

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

export async function postcodeDistance(ctx: PluginContext) {
  const [from, to] = await Promise.all([resolvePostcode(ctx, "from"), resolvePostcode(ctx, "to")]);
  const a = { lat: from.latitude, lng: from.longitude };
  const b = { lat: to.latitude, lng: to.longitude };
  const km = distanceKm(a, b);
  const bearing = km > 0 ? initialBearing(a, b) : null;
  return {
    from,
    to,
    distance_km: round(km, 3),
    distance_miles: round(km / KM_PER_MILE, 3),
    bearing_degrees: bearing === null ? null : round(bearing, 1),
    compass: bearing === null ? null : compassPoint(bearing),
    method: "Great-circle distance (haversine, mean Earth radius 6371.0088 km) between the postcodes' centroids, and the initial bearing from true north: a straight line, not a route.",
  };
}

// ---- currency-convert

/** The longest run of days without rates (Good Friday to Easter Monday): a longer gap means the rates held end earlier. */
const MAX_CLOSED_DAYS = 4;

export function currencyConvert(ctx: PluginContext) {
  const handle = ctx.dataset<RatesIndex>("ecb-rates");
  const { days } = handle.index;
  const today = clock.today();
  const from = ctx.params.from as string;
  const to = ctx.params.to as string;
  const amount = ctx.params.amount as number;
  const asked = ctx.params.date as string | undefined;

  const rates = rateDayOnOrBefore(days, asked ?? isoDay(today)) ?? (asked ? undefined : days.at(-1));
  if (!rates || (asked && daysBetween(day(rates.date), day(asked)) > MAX_CLOSED_DAYS)) {
    throw new Problem({ status: 404, code: "not_found", param: "date", detail: `No ECB reference rates are held for ${asked}: the rates held ${rates ? `end on ${rates.date}` : "start later"}.` });
  }

  const offered = currenciesOn(rates);
  for (const [param, code] of [["from", from], ["to", to]] as const) {
    if (!offered.includes(code)) throw badParam(param, `${param} must be one of the ${offered.length} currencies with an ECB reference rate on ${rates.date}: ${offered.join(", ")} (got ${code}).`);
  }
  const result = convert(rates, from, to, amount)!;
  const note = asked && asked !== rates.date
    ? `There are no reference rates for ${asked} (a weekend or TARGET holiday, or today before the ECB publishes at about 16:00 CET); the last published rates, of ${rates.date}, are used.`
    : !asked && daysBetween(day(rates.date), today) > MAX_CLOSED_DAYS ? `The newest reference rates held are of ${rates.date}.` : undefined;
  return {
    ...result,
    requested_date: asked ?? "latest",
    via: from !== "EUR" && to !== "EUR" ? "EUR" : null,
    ...(note ? { note } : {}),
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["ecb-rates"], currencyConvert);
