// Currency conversion at the ECB euro reference rates: every rate is units of a currency per 1 EUR, so any pair
// is a cross rate through the euro. A day without rates (weekend, TARGET holiday) uses the last published day.

export interface RateDay {
  date: string;
  /** Units per 1 EUR; EUR itself is not listed. */
  rates: Map<string, number>;
}

/** The last day with rates on or before `date` (days sorted oldest first), or undefined. */
export function rateDayOnOrBefore(days: RateDay[], date: string): RateDay | undefined {
  let lo = 0;
  let hi = days.length - 1;
  let found: RateDay | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (days[mid].date <= date) {
      found = days[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export const currenciesOn = (day: RateDay) => ["EUR", ...day.rates.keys()].sort();

const perEuro = (day: RateDay, currency: string) => (currency === "EUR" ? 1 : day.rates.get(currency));

export interface Conversion {
  from: string;
  to: string;
  amount: number;
  result: number;
  rate: number;
  inverse_rate: number;
  rate_date: string;
  /** The ECB rates used (units per 1 EUR). */
  eur_rates: Record<string, number>;
}

const significant = (n: number, digits = 10) => Number(n.toPrecision(digits));

/** Converts amount; undefined when either currency has no rate that day. */
export function convert(day: RateDay, from: string, to: string, amount: number): Conversion | undefined {
  const f = perEuro(day, from);
  const t = perEuro(day, to);
  if (f === undefined || t === undefined) return undefined;
  const rate = t / f;
  return {
    from, to, amount,
    result: Math.round(amount * rate * 1e6) / 1e6,
    rate: significant(rate),
    inverse_rate: significant(1 / rate),
    rate_date: day.date,
    eur_rates: Object.fromEntries([from, to].filter((c) => c !== "EUR").map((c) => [c, day.rates.get(c)!])),
  };
}
