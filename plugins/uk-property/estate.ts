// The deadlines that follow a death in England and Wales, each with its legal basis: what the given dates allow
// is computed, and what they do not is listed with the input it needs. Information, not legal advice.
import { addMonths, daysBetween, endOfMonth, isoDay, utc } from "../shared/calendar.ts";

export interface EstateInput {
  dateOfDeath?: Date;
  grantDate?: Date;
  noticeDate?: Date;
  grossEstate?: number;
}

interface Rule {
  key: string;
  title: string;
  needs: "date_of_death" | "grant_date" | "notice_claim_date";
  basis: string;
  note: string;
  date(d: Date): Date;
}

export interface Deadline {
  key: string;
  title: string;
  date: string;
  from: string;
  basis: string;
  note: string;
  days_left: number;
  passed: boolean;
}

const monthOf = (d: Date) => utc(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);

const RULES: Rule[] = [
  {
    key: "iht_payment_due",
    title: "Inheritance tax due",
    needs: "date_of_death",
    basis: "Inheritance Tax Act 1984, s.226(1); interest from the day after (s.233)",
    note: "Six months after the end of the month of death. Tax on land and some other assets may be paid in ten yearly instalments (s.227).",
    date: (death) => endOfMonth(addMonths(monthOf(death), 6)),
  },
  {
    key: "iht_account_due",
    title: "Inheritance tax account (IHT400) to be delivered",
    needs: "date_of_death",
    basis: "Inheritance Tax Act 1984, s.216(6)(a)",
    note: "Twelve months from the end of the month of death. An excepted estate (for example one within the nil-rate band) needs no account.",
    date: (death) => endOfMonth(addMonths(monthOf(death), 12)),
  },
  {
    key: "executors_year",
    title: "End of the executor's year",
    needs: "date_of_death",
    basis: "Administration of Estates Act 1925, s.44",
    note: "Personal representatives cannot be made to distribute before one year from the death.",
    date: (death) => addMonths(death, 12),
  },
  {
    key: "inheritance_act_claims",
    title: "Time limit for Inheritance Act claims",
    needs: "grant_date",
    basis: "Inheritance (Provision for Family and Dependants) Act 1975, s.4 (and s.20 for distribution)",
    note: "Six months from the grant of representation; the court may allow a later claim. Personal representatives who distribute after this date are protected from such claims.",
    date: (grant) => addMonths(grant, 6),
  },
  {
    key: "creditor_claims",
    title: "Creditors' claims period ends",
    needs: "notice_claim_date",
    basis: "Trustee Act 1925, s.27",
    note: "A notice to creditors must give at least two months to claim; after the date in the notice the estate may be distributed having regard only to the claims made.",
    date: (notice) => addMonths(notice, 2),
  },
];

/** Nil-rate band by date of death (frozen at £325,000 since 6 April 2009). */
const NIL_RATE_BANDS: [string, number][] = [["2009-04-06", 325_000], ["2008-04-06", 312_000], ["2007-04-06", 300_000]];
/** Residence nil-rate band, from 6 April 2017, for a home left to direct descendants. */
const RESIDENCE_BANDS: [string, number][] = [["2020-04-06", 175_000], ["2019-04-06", 150_000], ["2018-04-06", 125_000], ["2017-04-06", 100_000]];
const bandOn = (table: [string, number][], day: string) => table.find(([from]) => day >= from)?.[1];

export interface NilRateBand {
  gross_estate: number;
  as_of_death_on: string;
  nil_rate_band: number;
  residence_nil_rate_band: number;
  above_nil_rate_band: boolean;
  likely: "below_nil_rate_band" | "within_bands_with_residence_band" | "within_bands_with_transferred_bands" | "above_available_bands";
  explanation: string;
  basis: string;
}

const pounds = (n: number) => `£${n.toLocaleString("en-GB")}`;

export function nilRateBand(gross: number, deathDay: string): NilRateBand | undefined {
  const nrb = bandOn(NIL_RATE_BANDS, deathDay);
  if (nrb === undefined) return undefined;
  const rnrb = bandOn(RESIDENCE_BANDS, deathDay) ?? 0;
  const withHome = nrb + rnrb;
  let likely: NilRateBand["likely"];
  let explanation: string;
  if (gross <= nrb) {
    likely = "below_nil_rate_band";
    explanation = `The gross estate is within the nil-rate band of ${pounds(nrb)}: no inheritance tax is likely to be due, and the estate may be an excepted estate.`;
  } else if (gross <= withHome) {
    likely = "within_bands_with_residence_band";
    explanation = `The gross estate is above the nil-rate band of ${pounds(nrb)} but within ${pounds(withHome)}, which is reached only if the residence nil-rate band (${pounds(rnrb)}) applies: a home left to children or grandchildren.`;
  } else if (gross <= 2 * withHome) {
    likely = "within_bands_with_transferred_bands";
    explanation = `The gross estate is above the nil-rate band of ${pounds(nrb)}. It may still pass free of tax with the residence nil-rate band and the unused bands of a spouse or civil partner who died earlier (up to ${pounds(2 * withHome)}).`;
  } else {
    likely = "above_available_bands";
    explanation = `The gross estate is above the most the nil-rate bands can cover (${pounds(2 * withHome)} with transferred and residence bands); inheritance tax at 40% is likely on the excess unless it goes to a spouse, civil partner or charity. The residence band tapers away above £2,000,000.`;
  }
  return {
    gross_estate: gross,
    as_of_death_on: deathDay,
    nil_rate_band: nrb,
    residence_nil_rate_band: rnrb,
    above_nil_rate_band: gross > nrb,
    likely,
    explanation: `${explanation} Debts, funeral costs and exemptions (spouse, civil partner, charity) reduce the taxable estate.`,
    basis: "Inheritance Tax Act 1984, s.7 and Schedule 1 (nil-rate band), s.8D-8M (residence nil-rate band), s.8A (transfer of unused band)",
  };
}

export interface EstateDeadlines {
  as_of: string;
  deadlines: Deadline[];
  needs_input: { key: string; title: string; needs: string; basis: string }[];
  nil_rate_band: NilRateBand | null;
}

export function estateDeadlines(input: EstateInput, today: Date): EstateDeadlines {
  const given: Record<Rule["needs"], Date | undefined> = {
    date_of_death: input.dateOfDeath,
    grant_date: input.grantDate,
    notice_claim_date: input.noticeDate,
  };
  const deadlines: Deadline[] = [];
  const needs: EstateDeadlines["needs_input"] = [];
  for (const rule of RULES) {
    const from = given[rule.needs];
    if (!from) {
      needs.push({ key: rule.key, title: rule.title, needs: rule.needs, basis: rule.basis });
      continue;
    }
    const date = rule.date(from);
    deadlines.push({
      key: rule.key, title: rule.title, date: isoDay(date), from: `${rule.needs} ${isoDay(from)}`,
      basis: rule.basis, note: rule.note, days_left: Math.max(0, daysBetween(today, date)), passed: date < today,
    });
  }
  let band: NilRateBand | null = null;
  if (input.grossEstate === undefined) {
    needs.push({ key: "nil_rate_band", title: "Whether the estate is likely above the nil-rate band", needs: "gross_estate", basis: "Inheritance Tax Act 1984, s.7" });
  } else {
    band = nilRateBand(input.grossEstate, isoDay(input.dateOfDeath ?? today)) ?? null;
    if (!band) needs.push({ key: "nil_rate_band", title: "Whether the estate is likely above the nil-rate band", needs: "a date_of_death on or after 2007-04-06 (earlier bands are not covered)", basis: "Inheritance Tax Act 1984, s.7" });
  }
  deadlines.sort((a, b) => a.date.localeCompare(b.date));
  return { as_of: isoDay(today), deadlines, needs_input: needs, nil_rate_band: band };
}
