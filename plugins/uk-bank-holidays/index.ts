// The uk-bank-holidays group: the GOV.UK bank holidays held locally (dataset uk-bank-holidays, merged across
// fetches so history never shrinks). Only published holidays are answered: a date outside the years the list
// covers is a 422 naming the parameter and the covered range, never a guess from the rules.
import { Problem } from "../../engine/basics/problem.ts";
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import { DAY_NAMES, addDays, day, isoDay, isWeekend } from "../shared/calendar.ts";
import { NATIONS, type Holiday, type HolidayCalendar, type Nation } from "../shared/bank-holidays.ts";
import type { HolidayIndex } from "../shared/uk-bank-holidays.dataset.ts";

interface Coverage { from: string; to: string }

function calendars(ctx: PluginContext): HolidayIndex {
  return ctx.dataset<HolidayIndex>("uk-bank-holidays").index;
}

function coverage(cal: HolidayCalendar): Coverage {
  const years = cal.publishedYears();
  return { from: `${years[0]}-01-01`, to: `${years.at(-1)}-12-31` };
}

function covered(cal: HolidayCalendar, d: Date, param: string, what = param): void {
  const c = coverage(cal);
  const iso = isoDay(d);
  if (iso < c.from || iso > c.to || !cal.publishedYears().includes(d.getUTCFullYear())) {
    throw new Problem({
      status: 422,
      code: "outside_coverage",
      title: "The date is outside the published bank holidays",
      param,
      detail: `${what} (${iso}) is outside the years GOV.UK publishes bank holidays for ${cal.nation}: ${c.from} to ${c.to}. No answer is guessed outside them.`,
      extra: { coverage: c },
    });
  }
}

const holidayOut = (h: Holiday, d = day(h.date)) => ({ date: h.date, day_of_week: DAY_NAMES[d.getUTCDay()], title: h.title, substitute: h.substitute });

/** The holidays of one nation between two days, both included. */
function holidaysBetween(cal: HolidayCalendar, a: Date, b: Date): Holiday[] {
  const out: Holiday[] = [];
  const published = new Set(cal.publishedYears());
  for (let y = a.getUTCFullYear(); y <= b.getUTCFullYear(); y++) {
    if (!published.has(y)) continue;
    for (const h of cal.holidays(y)) if (h.date >= isoDay(a) && h.date <= isoDay(b)) out.push(h);
  }
  return out;
}

export function next(ctx: PluginContext) {
  const division = ctx.params.division as Nation;
  const cal = calendars(ctx)[division];
  const from = day(ctx.params.from as string);
  covered(cal, from, "from");
  const count = ctx.params.count as number;
  const c = coverage(cal);
  const found = holidaysBetween(cal, from, day(c.to)).slice(0, count);
  return {
    query: { division, from: isoDay(from), count },
    count: found.length,
    holidays: found.map((h) => ({ ...holidayOut(h), days_until: Math.round((day(h.date).getTime() - from.getTime()) / 86_400_000) })),
    coverage: c,
    ...(found.length < count ? { note: `Only ${found.length} bank holidays are published from ${isoDay(from)} to the end of the list (${c.to}).` } : {}),
  };
}

export function isHoliday(ctx: PluginContext) {
  const division = ctx.params.division as Nation;
  const all = calendars(ctx);
  const cal = all[division];
  const date = day(ctx.params.date as string);
  covered(cal, date, "date");
  const holiday = cal.holiday(date);
  const weekend = isWeekend(date);
  return {
    date: isoDay(date),
    day_of_week: DAY_NAMES[date.getUTCDay()],
    division,
    is_holiday: Boolean(holiday),
    holiday: holiday ? { title: holiday.title, substitute: holiday.substitute } : null,
    is_weekend: weekend,
    is_working_day: !weekend && !holiday,
    holiday_in: NATIONS.filter((n) => all[n].holiday(date)),
    coverage: coverage(cal),
  };
}

export function list(ctx: PluginContext) {
  const all = calendars(ctx);
  const year = (ctx.params.year as number | undefined) ?? new Date().getUTCFullYear();
  const chosen = ctx.params.division === "all" ? [...NATIONS] : [ctx.params.division as Nation];
  const divisions = chosen.map((n) => {
    covered(all[n], new Date(Date.UTC(year, 0, 1)), "year", `The year ${year}`);
    const holidays = all[n].holidays(year).map((h) => holidayOut(h));
    return { division: n, count: holidays.length, holidays };
  });
  return { query: { year, division: ctx.params.division }, year, divisions, coverage: coverage(all[chosen[0]]) };
}

export function workingDays(ctx: PluginContext) {
  const division = ctx.params.division as Nation;
  const cal = calendars(ctx)[division];
  const from = day(ctx.params.from as string);
  const to = day(ctx.params.to as string);
  covered(cal, from, "from");
  covered(cal, to, "to");
  const [a, b] = from <= to ? [from, to] : [to, from];
  let working = 0;
  let weekendDays = 0;
  for (let d = a; d <= b; d = addDays(d, 1)) {
    if (isWeekend(d)) weekendDays++;
    else if (!cal.holiday(d)) working++;
  }
  const skipped = holidaysBetween(cal, a, b).filter((h) => !isWeekend(day(h.date)));
  const sign = from <= to ? 1 : -1;
  return {
    from: isoDay(from),
    to: isoDay(to),
    division,
    working_days: sign * working,
    inclusive: true,
    working_days_after_from: cal.countBusinessDays(from, to),
    calendar_days: Math.round((b.getTime() - a.getTime()) / 86_400_000) + 1,
    weekend_days: weekendDays,
    holidays_skipped: skipped.map((h) => holidayOut(h)),
    note: "working_days counts both from and to when they are working days; working_days_after_from leaves out from (the count add-working-days uses).",
    coverage: coverage(cal),
  };
}

export function addWorkingDays(ctx: PluginContext) {
  const division = ctx.params.division as Nation;
  const cal = calendars(ctx)[division];
  const date = day(ctx.params.date as string);
  const days = ctx.params.days as number;
  covered(cal, date, "date");
  const result = cal.addBusinessDays(date, days);
  covered(cal, result, "days", `The day ${days} working days from ${isoDay(date)}`);
  const [a, b] = result >= date ? [date, result] : [result, date];
  return {
    date: isoDay(date),
    days,
    division,
    result_date: isoDay(result),
    day_of_week: DAY_NAMES[result.getUTCDay()],
    calendar_days: Math.round((result.getTime() - date.getTime()) / 86_400_000),
    holidays_skipped: holidaysBetween(cal, a, b).filter((h) => !isWeekend(day(h.date)) && h.date !== isoDay(date)).map((h) => holidayOut(h)),
    note: "The date itself is not counted: 1 working day after a Friday is the Monday (or the next working day after a holiday).",
    coverage: coverage(cal),
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["uk-bank-holidays"], next, isHoliday, list, workingDays, addWorkingDays);
