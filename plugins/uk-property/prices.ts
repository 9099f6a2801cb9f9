// Sold prices from HM Land Registry Price Paid Data (England and Wales, since 1995), for the area report. (sold-prices
// and price-summary are YAML steps reading the same file with the group's JSONata functions.)
// The PPD report app answers a CSV without a header row whose fields are all quoted (addresses hold commas), so it
// is parsed as rows of columns by position.
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { addMonths, isoDay } from "../shared/calendar.ts";

const PROPERTY_TYPES: Record<string, string> = { D: "detached", S: "semi-detached", T: "terraced", F: "flat-maisonette", O: "other" };
const TENURES: Record<string, string> = { F: "freehold", L: "leasehold" };
const CATEGORIES: Record<string, string> = { A: "standard", B: "additional" };
const HTML = [/<html/i];
/** A Price Paid row begins with its quoted transaction id (a GUID, braced in older files) and price. */
const PPD_ROW = /^\s*"\{?[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\}?","\d+"/i;

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
