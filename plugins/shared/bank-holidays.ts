// UK bank holidays per nation and business-day arithmetic. The published GOV.UK list is used for the years it
// covers; other years fall back to the standing rules (Banking and Financial Dealings Act 1971, Schedule 1, and
// the usual royal proclamations), which know the regular holidays but not one-off ones such as a coronation.
import { addDays, isWeekend, isoDay, utc, weekday } from "./calendar.ts";

export const NATIONS = ["england-and-wales", "scotland", "northern-ireland"] as const;
export type Nation = (typeof NATIONS)[number];

export interface Holiday {
  date: string;
  title: string;
  /** The holiday itself fell on a weekend and moved to this weekday. */
  substitute: boolean;
}

/** The years the rules are trusted for (St Andrew's Day became a Scottish bank holiday in 2007). */
export const RULE_YEARS = { from: 2008, to: 2099 };

/** Easter Sunday in the Gregorian calendar (the anonymous Gregorian algorithm, "Meeus/Jones/Butcher"). */
export function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const date = ((h + l - 7 * m + 114) % 31) + 1;
  return utc(year, month, date);
}

function firstMonday(year: number, month: number): Date {
  const first = utc(year, month, 1);
  return addDays(first, (8 - weekday(first)) % 7);
}

function lastMonday(year: number, month: number): Date {
  const last = utc(year, month + 1, 0);
  return addDays(last, -((weekday(last) + 6) % 7));
}

/** The regular bank holidays of a year by the standing rules, with weekend dates moved to substitute weekdays. */
export function ruleHolidays(nation: Nation, year: number): Holiday[] {
  const easter = easterSunday(year);
  const onWeekday: [Date, string][] = [
    [addDays(easter, -2), "Good Friday"],
    [firstMonday(year, 5), "Early May bank holiday"],
    [lastMonday(year, 5), "Spring bank holiday"],
  ];
  if (nation !== "scotland") onWeekday.push([addDays(easter, 1), "Easter Monday"], [lastMonday(year, 8), "Summer bank holiday"]);
  else onWeekday.push([firstMonday(year, 8), "Summer bank holiday"]);

  const fixed: [Date, string][] = [[utc(year, 1, 1), "New Year’s Day"]];
  if (nation === "scotland") fixed.push([utc(year, 1, 2), "2nd January"], [utc(year, 11, 30), "St Andrew’s Day"]);
  if (nation === "northern-ireland") fixed.push([utc(year, 3, 17), "St Patrick’s Day"], [utc(year, 7, 12), "Battle of the Boyne (Orangemen’s Day)"]);
  fixed.push([utc(year, 12, 25), "Christmas Day"], [utc(year, 12, 26), "Boxing Day"]);

  // Holidays that fall on weekdays keep their day; those on a weekend move, in date order, to the next weekday
  // that is not already a holiday (so Christmas on a Saturday is the Monday and Boxing Day the Tuesday).
  const taken = new Map<string, Holiday>();
  for (const [d, title] of [...onWeekday, ...fixed.filter(([d]) => !isWeekend(d))]) taken.set(isoDay(d), { date: isoDay(d), title, substitute: false });
  for (const [d, title] of fixed.filter(([d]) => isWeekend(d))) {
    let sub = d;
    while (isWeekend(sub) || taken.has(isoDay(sub))) sub = addDays(sub, 1);
    taken.set(isoDay(sub), { date: isoDay(sub), title, substitute: true });
  }
  return [...taken.values()].sort((a, b) => a.date.localeCompare(b.date));
}

export type HolidaySource = "gov.uk" | "rules";

/** One nation's holidays: the published ones by year, the rules for any other year. */
export class HolidayCalendar {
  readonly nation: Nation;
  private readonly published: Map<number, Holiday[]>;
  private readonly byDate = new Map<string, Holiday>();
  private readonly yearsDone = new Set<number>();

  constructor(nation: Nation, published: Holiday[] = []) {
    this.nation = nation;
    this.published = new Map();
    for (const h of published) {
      const year = Number(h.date.slice(0, 4));
      this.published.set(year, [...(this.published.get(year) ?? []), h]);
    }
  }

  /** The years the published list covers, oldest first (empty when only the rules are known). */
  publishedYears(): number[] {
    return [...this.published.keys()].sort((a, b) => a - b);
  }

  source(year: number): HolidaySource {
    return this.published.has(year) ? "gov.uk" : "rules";
  }

  holidays(year: number): Holiday[] {
    return this.published.get(year) ?? ruleHolidays(this.nation, year);
  }

  holiday(d: Date): Holiday | undefined {
    const year = d.getUTCFullYear();
    if (!this.yearsDone.has(year)) {
      for (const h of this.holidays(year)) this.byDate.set(h.date, h);
      this.yearsDone.add(year);
    }
    return this.byDate.get(isoDay(d));
  }

  isBusinessDay(d: Date): boolean {
    return !isWeekend(d) && !this.holiday(d);
  }

  /** n business days after d (before it when n is negative); d itself does not count. */
  addBusinessDays(d: Date, n: number): Date {
    const step = n < 0 ? -1 : 1;
    let left = Math.abs(n);
    let cur = d;
    while (left > 0) {
      cur = addDays(cur, step);
      if (this.isBusinessDay(cur)) left--;
    }
    return cur;
  }

  /**
   * Business days from `from` to `to`: those after `from` up to and including `to`, so that
   * addBusinessDays(from, count) is the last business day on or before `to`. Negative when `to` is earlier.
   */
  countBusinessDays(from: Date, to: Date): number {
    const [a, b, sign] = to >= from ? [from, to, 1] : [to, from, -1];
    let count = 0;
    // Counting (a, b] forwards, or [to, from) backwards: the same days shifted by one at each end.
    for (let cur = addDays(a, sign === 1 ? 1 : 0); sign === 1 ? cur <= b : cur < b; cur = addDays(cur, 1)) {
      if (this.isBusinessDay(cur)) count++;
    }
    return sign * count;
  }
}
