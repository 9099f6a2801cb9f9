// Calendar arithmetic on UTC days (Date objects at midnight UTC), shared by the date calculators.
import { addDays, isoDay, parseIsoDay } from "../../engine/basics/dates.ts";

export { addDays, isoDay };

export const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** YYYY-MM-DD -> Date; the parameters are already validated, so a bad value is a programming error. */
export function day(iso: string): Date {
  const d = parseIsoDay(iso);
  if (!d) throw new Error(`not a date: ${iso}`);
  return d;
}

/** month is 1-12 */
export const utc = (year: number, month: number, date: number) => new Date(Date.UTC(year, month - 1, date));

export const weekday = (d: Date) => d.getUTCDay();
export const isWeekend = (d: Date) => d.getUTCDay() === 0 || d.getUTCDay() === 6;

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function endOfMonth(d: Date): Date {
  return utc(d.getUTCFullYear(), d.getUTCMonth() + 1, daysInMonth(d.getUTCFullYear(), d.getUTCMonth() + 1));
}

/**
 * The same day of the month `months` later (earlier when negative). When the later month is shorter, its last
 * day: the "corresponding date" rule English law uses for periods of months (31 August + 6 months = 28/29 February).
 */
export function addMonths(d: Date, months: number): Date {
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  return utc(year, month, Math.min(d.getUTCDate(), daysInMonth(year, month)));
}

/** Whole days from a to b (negative when b is earlier). */
export function daysBetween(a: Date, b: Date): number {
  return Math.round((b.getTime() - a.getTime()) / 86_400_000);
}

/** The calendar difference from a to b (a <= b) in whole years, months and days. */
export function calendarDiff(a: Date, b: Date): { years: number; months: number; days: number } {
  let months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth();
  if (addMonths(a, months) > b) months--;
  const days = daysBetween(addMonths(a, months), b);
  return { years: Math.floor(months / 12), months: months % 12, days };
}

/** Day-count years between two days (365.25-day years), for thresholds such as "80 years left". */
export const yearsBetween = (a: Date, b: Date) => daysBetween(a, b) / 365.25;
