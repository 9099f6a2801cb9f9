// vat: format (offline syntax and check digits) and rates (our rates file in ibericode/vat-rates' format, dated):
// computed here. The checks against HMRC and VIES are YAML steps.
import fs from "node:fs";
import path from "node:path";
import { Problem } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

/** "gb 553 557-881" -> { country: "GB", number: "553557881" }; Greece's ISO code GR is VIES's EL. */
export function splitVatNumber(raw: string): { country: string; number: string } {
  const t = raw.toUpperCase().replace(/[\s.\-]/g, "");
  const country = t.slice(0, 2);
  return { country: country === "GR" ? "EL" : country, number: t.slice(2) };
}

// ---- format

type Checker = (n: string) => boolean;
const digits = (n: string) => [...n].map(Number);
const weighted = (n: string, w: number[]) => digits(n).reduce((s, d, i) => s + d * (w[i] ?? 0), 0);
const luhn: Checker = (n) => {
  let sum = 0;
  digits(n).reverse().forEach((d, i) => { const x = i % 2 ? d * 2 : d; sum += x > 9 ? x - 9 : x; });
  return sum % 10 === 0;
};

/** The format of each scheme's number (without its prefix), and its check-digit rule where we apply one. */
const SCHEMES: Record<string, { name: string; pattern: RegExp; check?: Checker }> = {
  GB: { name: "United Kingdom", pattern: /^(\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/, check: (n) => {
    if (/^(GD|HA)/.test(n)) return true;
    const total = weighted(n.slice(0, 7), [8, 7, 6, 5, 4, 3, 2]) + Number(n.slice(7, 9));
    return total % 97 === 0 || (total + 55) % 97 === 0;
  } },
  XI: { name: "Northern Ireland", pattern: /^(\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/ },
  AT: { name: "Austria", pattern: /^U\d{8}$/, check: (n) => {
    const d = digits(n.slice(1));
    let s = 0;
    for (let i = 0; i < 7; i++) s += i % 2 ? Math.floor((d[i] * 2) / 10) + ((d[i] * 2) % 10) : d[i];
    return (10 - ((s + 4) % 10)) % 10 === d[7];
  } },
  BE: { name: "Belgium", pattern: /^[01]\d{9}$/, check: (n) => 97 - (Number(n.slice(0, 8)) % 97) === Number(n.slice(8)) },
  BG: { name: "Bulgaria", pattern: /^\d{9,10}$/ },
  CY: { name: "Cyprus", pattern: /^\d{8}[A-Z]$/ },
  CZ: { name: "Czechia", pattern: /^\d{8,10}$/ },
  DE: { name: "Germany", pattern: /^\d{9}$/, check: (n) => {
    let product = 10;
    for (const d of digits(n.slice(0, 8))) {
      let sum = (d + product) % 10;
      if (sum === 0) sum = 10;
      product = (2 * sum) % 11;
    }
    const c = 11 - product;
    return (c === 10 ? 0 : c) === Number(n[8]);
  } },
  DK: { name: "Denmark", pattern: /^\d{8}$/, check: (n) => weighted(n, [2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0 },
  EE: { name: "Estonia", pattern: /^10\d{7}$/ },
  EL: { name: "Greece", pattern: /^\d{9}$/ },
  ES: { name: "Spain", pattern: /^[A-Z0-9]\d{7}[A-Z0-9]$/ },
  FI: { name: "Finland", pattern: /^\d{8}$/, check: (n) => {
    const r = weighted(n.slice(0, 7), [7, 9, 10, 5, 8, 4, 2]) % 11;
    return r !== 1 && (r === 0 ? 0 : 11 - r) === Number(n[7]);
  } },
  FR: { name: "France", pattern: /^[0-9A-HJ-NP-Z]{2}\d{9}$/, check: (n) => !/^\d{2}/.test(n) || Number(n.slice(0, 2)) === (12 + 3 * (Number(n.slice(2)) % 97)) % 97 },
  HR: { name: "Croatia", pattern: /^\d{11}$/ },
  HU: { name: "Hungary", pattern: /^\d{8}$/ },
  IE: { name: "Ireland", pattern: /^(\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/ },
  IT: { name: "Italy", pattern: /^\d{11}$/, check: luhn },
  LT: { name: "Lithuania", pattern: /^(\d{9}|\d{12})$/ },
  LU: { name: "Luxembourg", pattern: /^\d{8}$/, check: (n) => Number(n.slice(0, 6)) % 89 === Number(n.slice(6)) },
  LV: { name: "Latvia", pattern: /^\d{11}$/ },
  MT: { name: "Malta", pattern: /^\d{8}$/ },
  NL: { name: "Netherlands", pattern: /^\d{9}B\d{2}$/ },
  PL: { name: "Poland", pattern: /^\d{10}$/, check: (n) => {
    const c = weighted(n.slice(0, 9), [6, 5, 7, 2, 3, 4, 5, 6, 7]) % 11;
    return c !== 10 && c === Number(n[9]);
  } },
  PT: { name: "Portugal", pattern: /^\d{9}$/, check: (n) => {
    const c = 11 - (weighted(n.slice(0, 8), [9, 8, 7, 6, 5, 4, 3, 2]) % 11);
    return (c > 9 ? 0 : c) === Number(n[8]);
  } },
  RO: { name: "Romania", pattern: /^[1-9]\d{1,9}$/ },
  SE: { name: "Sweden", pattern: /^\d{10}01$/, check: (n) => luhn(n.slice(0, 10)) },
  SI: { name: "Slovenia", pattern: /^[1-9]\d{7}$/ },
  SK: { name: "Slovakia", pattern: /^[1-9]\d{9}$/ },
};

export function checkFormat(raw: string): Record<string, unknown> {
  const { country, number } = splitVatNumber(raw);
  const scheme = SCHEMES[country];
  if (!scheme) {
    return { query: raw, vat_number: null, country: null, country_name: null, format_valid: false, checksum_checked: false, checksum_valid: null, valid: false,
      note: `No VAT scheme with the prefix ${country}: a VAT number starts with its country code (GB, XI, or an EU state's, Greece EL).` };
  }
  const formatValid = scheme.pattern.test(number);
  const checked = formatValid && scheme.check !== undefined;
  const sum = checked ? scheme.check!(number) : null;
  return {
    query: raw,
    vat_number: `${country}${number}`,
    country,
    country_name: scheme.name,
    format_valid: formatValid,
    checksum_checked: checked,
    checksum_valid: sum,
    valid: formatValid && sum !== false,
    note: !formatValid ? `Not the format of a ${scheme.name} VAT number.`
      : sum === false ? "The check digits do not match: the number is mistyped or invented."
      : `Well formed${checked ? " with matching check digits" : " (this scheme's check digits are not tested here)"}; whether it is registered needs ${country === "GB" ? "uk-check" : "eu-check"}.`,
  };
}

export function format(ctx: PluginContext): Record<string, unknown> {
  return checkFormat(ctx.params.vat_number as string);
}

// ---- rates

interface Period { effective_from: string; rates: Record<string, number>; exceptions?: { name: string; postcode: string; standard: number }[] }
interface RatesFile { details: string; version: number; items: Record<string, Period[]> }

/** Where the rates in plugins/vat/vat-rates.json come from (our file, in the format of ibericode/vat-rates). */
export const RATES_SOURCE = {
  name: "ibericode/vat-rates",
  url: "https://github.com/ibericode/vat-rates/blob/52fe8a90f545c7e6849bd94c8fa24a4d83d4fd15/vat-rates.json",
  as_of: "2025-08-12",
  licence: "MIT",
};
const RATES = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "vat-rates.json"), "utf8")) as RatesFile;
const NAMES: Record<string, string> = Object.fromEntries(Object.entries(SCHEMES).map(([k, v]) => [k === "EL" ? "GR" : k, v.name]));

export function ratesOn(date: string, country?: string): Record<string, unknown>[] {
  const codes = country ? [country === "EL" ? "GR" : country] : Object.keys(RATES.items).sort();
  return codes.flatMap((code) => {
    const periods = RATES.items[code];
    if (!periods) return [];
    const period = [...periods].sort((a, b) => (a.effective_from < b.effective_from ? 1 : -1)).find((p) => p.effective_from <= date);
    if (!period) return [];
    const r = period.rates;
    const reduced = Object.entries(r).filter(([k]) => /^reduced\d*$/.test(k)).map(([, v]) => v).sort((a, b) => b - a);
    return [{
      country: code,
      vies_code: code === "GR" ? "EL" : code,
      name: NAMES[code] ?? null,
      effective_from: period.effective_from === "0000-01-01" ? null : period.effective_from,
      standard_rate_percent: r.standard ?? null,
      reduced_rates_percent: reduced,
      super_reduced_rate_percent: r.super_reduced ?? null,
      parking_rate_percent: r.parking ?? null,
      exceptions: (period.exceptions ?? []).map((e) => ({ name: e.name, postcode_pattern: e.postcode, standard_rate_percent: e.standard })),
    }];
  });
}

export function rates(ctx: PluginContext): Record<string, unknown> {
  const date = ctx.params.date as string;
  const country = ctx.params.country as string | undefined;
  const list = ratesOn(date, country);
  if (country && list.length === 0) {
    throw new Problem({ status: 404, code: "not_found", param: "country", detail: `country: no VAT rates for ${country} on ${date} in the data (EU states and GB; rates before a state's first recorded period are not held).` });
  }
  ctx.record({ source: "vat-rates", publisher: "ibericode/vat-rates (MIT), as of the date given", url: RATES_SOURCE.url, fetched_at: `${RATES_SOURCE.as_of}T00:00:00Z`, cached: true });
  return {
    date,
    data_as_of: RATES_SOURCE.as_of,
    source: RATES_SOURCE,
    ...(date > RATES_SOURCE.as_of ? { note: `Rates as known on ${RATES_SOURCE.as_of}: a change announced after that date is not included.` } : {}),
    count: list.length,
    countries: list,
  };
}
