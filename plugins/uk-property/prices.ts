// Sold prices from HM Land Registry Price Paid Data (England and Wales, since 1995), for the area report, and the UK
// House Price Index, for revalue. (sold-prices, price-summary and house-price-index are YAML steps, their reading
// of the same files the group's JSONata functions.)
// The PPD report app answers a CSV without a header row whose fields are all quoted (addresses hold commas), so it
// is parsed as rows of columns by position; the UKHPI download is a CSV with a header row, one row per month.
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { addMonths, day, isoDay } from "../shared/calendar.ts";
import { clock } from "../shared/clock.ts";

const PROPERTY_TYPES: Record<string, string> = { D: "detached", S: "semi-detached", T: "terraced", F: "flat-maisonette", O: "other" };
const TENURES: Record<string, string> = { F: "freehold", L: "leasehold" };
const CATEGORIES: Record<string, string> = { A: "standard", B: "additional" };
const HTML = [/<html/i];
/** A Price Paid row begins with its quoted transaction id (a GUID, braced in older files) and price. */
const PPD_ROW = /^\s*"\{?[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\}?","\d+"/i;
/** The UK HPI download's header row, with the index column read here. */
const HPI_HEADER = /^\uFEFF?Name,URI,[^\r\n]*"House price index All property types"/;

export interface Sale {
  id: string;
  price_gbp: number;
  date: string;
  postcode: string;
  address: string;
  saon: string | null;
  paon: string | null;
  street: string | null;
  locality: string | null;
  town: string | null;
  district: string | null;
  county: string | null;
  property_type: string | null;
  new_build: boolean;
  tenure: string | null;
  category: string | null;
  url: string | null;
}

const orNull = (s: string | undefined) => (s && s.trim() !== "" ? s.trim() : null);

/** One row of ppd_data.csv: unique_id, price_paid, deed_date, postcode, property_type, new_build, estate_type, saon,
 * paon, street, locality, town, district, county, transaction_category, linked_data_uri. */
function saleFromRow(row: string[]): Sale | undefined {
  const price = Number(row[1]);
  const date = (row[2] ?? "").slice(0, 10);
  if (row.length < 15 || !Number.isFinite(price) || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const [saon, paon, street, locality, town] = [row[7], row[8], row[9], row[10], row[11]].map(orNull);
  return {
    id: row[0].replace(/[{}]/g, ""),
    price_gbp: price,
    date,
    postcode: row[3],
    address: [saon, paon && street ? `${paon} ${street}` : paon ?? street, locality, town, row[3]].filter(Boolean).join(", "),
    saon, paon, street, locality, town,
    district: orNull(row[12]),
    county: orNull(row[13]),
    property_type: PROPERTY_TYPES[row[4]] ?? null,
    new_build: row[5] === "Y",
    tenure: TENURES[row[6]] ?? null,
    category: CATEGORIES[row[14]] ?? null,
    url: orNull(row[15])?.replace(/^http:/, "https:") ?? null,
  };
}

/** Every recorded sale in a full postcode, newest first. */
export async function salesIn(ctx: PluginContext, postcode: string): Promise<Sale[]> {
  const body = await ctx.fetch({
    source: "hm-land-registry",
    path: "/app/ppd/ppd_data.csv",
    query: { postcode, limit: "all" },
    format: "csv",
    csv: { header: false },
    cacheMs: 86_400_000,
    reject: HTML,
    // A postcode with no recorded sales is an empty CSV (the download has no header line).
    expect: { empty: true, match: PPD_ROW },
  });
  const sales = (body as string[][]).map(saleFromRow).filter((s): s is Sale => s !== undefined);
  return sales.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? null : s.length % 2 ? s[m] : Math.round((s[m - 1] + s[m]) / 2);
};

function stats(sales: Sale[]) {
  const prices = sales.map((s) => s.price_gbp);
  return {
    count: prices.length,
    median_price_gbp: median(prices),
    mean_price_gbp: prices.length ? Math.round(prices.reduce((a, b) => a + b, 0) / prices.length) : null,
    min_price_gbp: prices.length ? Math.min(...prices) : null,
    max_price_gbp: prices.length ? Math.max(...prices) : null,
  };
}

/** Price statistics over the standard-category sales of the last `years` years (to today). */
export function summarise(all: Sale[], years: number, today: Date) {
  const since = isoDay(addMonths(today, -12 * years));
  const recent = all.filter((s) => s.date >= since);
  const standard = recent.filter((s) => s.category === "standard");
  const group = (key: (s: Sale) => string) => {
    const m = new Map<string, Sale[]>();
    for (const s of standard) m.set(key(s), [...(m.get(key(s)) ?? []), s]);
    return m;
  };
  const byType = [...group((s) => s.property_type ?? "other")].map(([property_type, ss]) => ({ property_type, ...stats(ss) })).sort((a, b) => b.count - a.count);
  const byYear = [...group((s) => s.date.slice(0, 4))].map(([date, ss]) => ({ date, count: ss.length, median_price_gbp: median(ss.map((s) => s.price_gbp)) })).sort((a, b) => (a.date < b.date ? -1 : 1));
  return {
    years,
    from_date: since,
    ...stats(standard),
    additional_sales_excluded: recent.length - standard.length,
    by_property_type: byType,
    by_year: byYear,
    latest_sale: standard[0] ? { date: standard[0].date, price_gbp: standard[0].price_gbp, address: standard[0].address, property_type: standard[0].property_type } : null,
    sales_since_1995: all.length,
  };
}

// --- UK House Price Index --------------------------------------------------------------------------------------

export interface HpiMonth {
  date: string;
  index: number | null;
  average_price_gbp: number | null;
  annual_change_percent: number | null;
  monthly_change_percent: number | null;
  sales_volume: number | null;
  average_price_by_type_gbp: { detached: number | null; semi_detached: number | null; terraced: number | null; flat_maisonette: number | null };
}

type HpiRow = Record<string, string>;
const isMonthRow = (r: HpiRow) => /^\d{4}-\d{2}$/.test(r.Period ?? "") && (r["Reporting period"] ?? "monthly") === "monthly";

const num = (v: unknown) => (v === undefined || v === null || String(v).trim() === "" ? null : Number.isFinite(Number(v)) ? Number(v) : null);

/** The region's whole monthly series (oldest first), with its name; 404 naming `region` when the slug is unknown. */
export async function hpiSeries(ctx: PluginContext, region: string): Promise<{ name: string; months: HpiMonth[] }> {
  let body: unknown;
  try {
    body = await ctx.fetch({
      source: "hm-land-registry",
      path: "/app/ukhpi/download/new.csv",
      query: { location: `http://landregistry.data.gov.uk/id/region/${region}`, from: "1995-01-01" },
      format: "csv",
      cacheMs: 86_400_000,
      reject: HTML,
      // A location the index covers has months; an unknown one is a 404 (caught below).
      expect: { match: HPI_HEADER, test: (rows) => Array.isArray(rows) && (rows as HpiRow[]).some(isMonthRow) },
    });
  } catch (e) {
    if (e instanceof UpstreamError && (e.status === 404 || e.status === 400)) throw unknownRegion(region);
    throw e;
  }
  const rows = (body as HpiRow[]).filter(isMonthRow);
  const months = rows.map((r) => ({
    date: r.Period,
    index: num(r["House price index All property types"]),
    average_price_gbp: num(r["Average price All property types"]),
    annual_change_percent: num(r["Percentage change (yearly) All property types"]),
    monthly_change_percent: num(r["Percentage change (monthly) All property types"]),
    sales_volume: num(r["Sales volume All property types"] ?? r["Sales volume"]),
    average_price_by_type_gbp: {
      detached: num(r["Average price Detached houses"]),
      semi_detached: num(r["Average price Semi-detached houses"]),
      terraced: num(r["Average price Terraced houses"]),
      flat_maisonette: num(r["Average price Flats and maisonettes"]),
    },
  })).sort((a, b) => (a.date < b.date ? -1 : 1));
  return { name: rows[0].Name ?? region, months };
}

const unknownRegion = (region: string) => new Problem({ status: 404, code: "not_found", param: "region", detail: `region: the UK House Price Index has no region "${region}". Use a slug such as united-kingdom, england, england-and-wales, london, south-east, kent, city-of-westminster, wales or scotland.` });

const withIndex = (months: HpiMonth[]) => months.filter((m) => m.index !== null);

export async function revalue(ctx: PluginContext) {
  const { amount, sale_date: saleDate, region } = ctx.params as { amount: number; sale_date: string; region: string };
  if (day(saleDate) > clock.today()) throw new Problem({ status: 400, code: "invalid_parameter", param: "sale_date", detail: `sale_date cannot be in the future (got ${saleDate}).` });
  const { name, months } = await hpiSeries(ctx, region);
  const indexed = withIndex(months);
  const saleMonth = saleDate.slice(0, 7);
  const at = indexed.find((m) => m.date === saleMonth);
  const latest = indexed.at(-1)!;
  if (!at) {
    const first = indexed[0]?.date;
    if (first && saleMonth < first) throw new Problem({ status: 400, code: "invalid_parameter", param: "sale_date", detail: `sale_date: the index for ${name} starts in ${first} (got ${saleDate}).` });
    throw new Problem({ status: 400, code: "invalid_parameter", param: "sale_date", detail: `sale_date: the index for ${name} is published up to ${latest.date}; ${saleMonth} is not out yet, so there is nothing to revalue by.` });
  }
  const factor = latest.index! / at.index!;
  return {
    region,
    name,
    sale: { date: saleDate, price_gbp: amount, month: at.date, index: at.index },
    latest: { month: latest.date, index: latest.index },
    change_percent: Math.round((factor - 1) * 1000) / 10,
    estimated_value_gbp: Math.round((amount * factor) / 1000) * 1000,
    estimated_value_exact_gbp: Math.round(amount * factor),
    note: `The sale price moved with the UK House Price Index for ${name} (all property types) from ${at.date} to ${latest.date}, rounded to the nearest £1,000. An index estimate, not a valuation: it ignores the property's condition, improvements and local differences within the region.`,
  };
}
