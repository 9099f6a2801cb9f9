// A residential lease's expiry and how much of it is left, with a red/amber/green reading against the
// 80-year marriage-value threshold and mortgage lenders' usual minimums. Information, not legal advice.
import { addDays, addMonths, calendarDiff, isoDay } from "../shared/calendar.ts";

export type Rating = "red" | "amber" | "green";

export interface LeaseAssessment {
  lease_start: string;
  term_years: number;
  /** The last day of the term. */
  expiry_date: string;
  term_basis: string;
  as_of: string;
  started: boolean;
  expired: boolean;
  remaining: { years: number; months: number; days: number };
  years_remaining: number;
  /** The day from which 80 years or less are left (past or future). */
  eighty_years_left_on: string;
  rating: Rating;
  reason: string;
  points: { topic: string; detail: string; basis: string }[];
}

const MARRIAGE_VALUE_BASIS = "Leasehold Reform, Housing and Urban Development Act 1993, Schedule 13, paragraph 4(2A)";
const LENDERS_BASIS = "UK Finance Mortgage Lenders' Handbook, part 2 (each lender's own lease-length requirements)";

/**
 * The term runs from and including lease_start, so it ends on the day before the anniversary (a 99-year term from
 * 1 January 2000 ends on 31 December 2098). A start on 29 February has 1 March as its anniversary in other years.
 */
function termEndExclusive(start: Date, years: number): Date {
  const anniversary = addMonths(start, years * 12);
  return anniversary.getUTCDate() < start.getUTCDate() ? addDays(anniversary, 1) : anniversary;
}

export function assessLease(start: Date, termYears: number, today: Date): LeaseAssessment {
  const end = termEndExclusive(start, termYears);
  const from = today < start ? start : today;
  const expired = today >= end;
  const eightyLeft = addMonths(end, -80 * 12);
  const ninetyLeft = addMonths(end, -90 * 12);
  const seventyLeft = addMonths(end, -70 * 12);
  const remaining = expired ? { years: 0, months: 0, days: 0 } : calendarDiff(from, end);
  const remainingYears = Math.round((remaining.years + remaining.months / 12 + remaining.days / 365.25) * 100) / 100;

  let rating: Rating;
  let reason: string;
  if (expired) {
    rating = "red";
    reason = "The term has ended. The leaseholder may still have rights to stay or to a new lease; take legal advice.";
  } else if (from >= eightyLeft) {
    rating = "red";
    reason = `80 years or less are left (${remainingYears} years): marriage value now adds to the premium for a statutory lease extension or freehold purchase, and ${from >= seventyLeft ? "with 70 years or less left many lenders will not lend on it" : "some lenders will lend only on terms, or not at all"}.`;
  } else if (from >= ninetyLeft) {
    rating = "amber";
    reason = `${remainingYears} years are left: above the 80-year marriage-value threshold, which it reaches on ${isoDay(eightyLeft)}. Extending before then avoids marriage value; some lenders want 85 years or more.`;
  } else {
    rating = "green";
    reason = `${remainingYears} years are left: comfortably above the 80-year marriage-value threshold (reached on ${isoDay(eightyLeft)}) and lenders' usual minimums.`;
  }

  return {
    lease_start: isoDay(start),
    term_years: termYears,
    expiry_date: isoDay(addDays(end, -1)),
    term_basis: "The term is counted from and including lease_start and ends on the day before its anniversary; check the lease's own wording.",
    as_of: isoDay(today),
    started: today >= start,
    expired,
    remaining,
    years_remaining: remainingYears,
    eighty_years_left_on: isoDay(eightyLeft),
    rating,
    reason,
    points: [
      {
        topic: "marriage value",
        detail: "On a statutory lease extension or collective freehold purchase, marriage value is disregarded only while more than 80 years are left. The Leasehold and Freehold Reform Act 2024 abolishes marriage value once its valuation provisions are brought into force; check whether they are.",
        basis: MARRIAGE_VALUE_BASIS,
      },
      {
        topic: "mortgage lenders",
        detail: "Lenders set their own minimum lease lengths: commonly 70 to 85 years left when the loan is made, or 30 to 40 years beyond the end of the mortgage term.",
        basis: LENDERS_BASIS,
      },
    ],
  };
}
