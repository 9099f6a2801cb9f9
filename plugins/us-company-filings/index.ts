// SEC EDGAR calls that need a company: the CIK comes from `cik`, or from `ticker` through the local us-tickers
// dataset (no upstream call). data.sec.gov wants the CIK zero-padded to 10 digits in every path.
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import { durationMs } from "../../engine/basics/duration.ts";
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import type { TickerIndex } from "../us-tickers/lookup.ts";
import { findTicker, padCik } from "../us-tickers/index.ts";

interface Resolved { cik: number; cik10: string; ticker: string | null; param: "cik" | "ticker" }

export function resolveCik(ctx: PluginContext): Resolved {
  if (ctx.params.ticker !== undefined) {
    const row = findTicker(ctx.dataset<TickerIndex>("us-tickers").index, ctx.params.ticker as string, "ticker");
    return { cik: row.cik, cik10: padCik(row.cik), ticker: row.ticker, param: "ticker" };
  }
  const cik = Number(ctx.params.cik);
  return { cik, cik10: padCik(cik), ticker: null, param: "cik" };
}

/** GET a data.sec.gov path; a 404 (the S3 "NoSuchKey" the SEC answers for a CIK or tag it has no file for) becomes `notFound`. */
async function edgar(ctx: PluginContext, path: string, cache: string, notFound: () => Problem): Promise<Record<string, unknown>> {
  try {
    return (await ctx.fetch({ source: "sec-data", path, format: "json", cacheMs: durationMs(cache), expect: { match: /^\s*\{/ } })) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof UpstreamError && (e.status === 404 || e.status === 403 && /NoSuchKey/.test(e.text ?? ""))) throw notFound();
    throw e;
  }
}

const noCompany = (r: Resolved) => () => new Problem({ status: 404, code: "not_found", param: r.param,
  detail: `SEC EDGAR has no filer with CIK ${r.cik}${r.ticker ? ` (ticker ${r.ticker})` : ""}.` });

/** The submissions file: company facts and the ~1,000 most recent filings (cached 10 minutes: new filings appear through the day). */
export async function submissions(ctx: PluginContext) {
  const r = resolveCik(ctx);
  const body = await edgar(ctx, `/submissions/CIK${r.cik10}.json`, "10m", noCompany(r));
  return { cik: r.cik, ticker: r.ticker, submissions: body };
}

type Columns = Record<string, unknown[]>;

/**
 * The submissions file, and when `since` goes back before its `recent` filings, the older pages that cover it
 * (at most 3, newest first), their columns appended to `recent`.
 */
export async function filings(ctx: PluginContext) {
  const r = resolveCik(ctx);
  const body = await edgar(ctx, `/submissions/CIK${r.cik10}.json`, "10m", noCompany(r));
  const f = body.filings as { recent: Columns; files?: { name: string; filingFrom: string; filingTo: string }[] } | undefined;
  if (!f?.recent || !Array.isArray(f.recent.accessionNumber)) throw new UpstreamError("unexpected", "sec-data", `/submissions/CIK${r.cik10}.json`, "answered without filings.recent");
  const since = ctx.params.since as string | undefined;
  const recent: Columns = Object.fromEntries(Object.entries(f.recent).map(([k, v]) => [k, [...(v as unknown[])]]));
  const dates = recent.filingDate as string[];
  const oldest = dates.at(-1);
  if (since && oldest && since < oldest) {
    const pages = (f.files ?? []).filter((p) => p.filingTo >= since).sort((a, b) => b.filingTo.localeCompare(a.filingTo)).slice(0, 3);
    for (const p of pages) {
      const page = (await edgar(ctx, `/submissions/${p.name}`, "1d", noCompany(r))) as Columns;
      for (const k of Object.keys(recent)) recent[k].push(...((page[k] as unknown[] | undefined) ?? new Array((page.accessionNumber as unknown[]).length).fill(null)));
    }
  }
  return { cik: r.cik, ticker: r.ticker, name: body.name, recent };
}

/** "us-gaap:Revenues" -> ["us-gaap", "Revenues"]; a bare tag is us-gaap's. */
export function splitConcept(concept: string): [string, string] {
  const i = concept.indexOf(":");
  return i < 0 ? ["us-gaap", concept] : [concept.slice(0, i).toLowerCase(), concept.slice(i + 1)];
}

export async function concept(ctx: PluginContext) {
  const r = resolveCik(ctx);
  const [taxonomy, tag] = splitConcept(ctx.params.concept as string);
  const body = await edgar(ctx, `/api/xbrl/companyconcept/CIK${r.cik10}/${encodeURIComponent(taxonomy)}/${encodeURIComponent(tag)}.json`, "1d",
    () => new Problem({ status: 404, code: "not_found", param: "concept",
      detail: `SEC EDGAR has no ${taxonomy}:${tag} facts for CIK ${r.cik}: the company never reported that concept (tags differ by filer, e.g. Revenues, RevenueFromContractWithCustomerExcludingAssessedTax), or the CIK is not a filer.` }));
  return { cik: r.cik, ticker: r.ticker, taxonomy, tag, doc: body };
}

interface Fact { start?: string; end: string; val: number; accn: string; fy: number | null; fp: string | null; form: string; filed: string; frame?: string }
interface Concept { label?: string; units?: Record<string, Fact[]> }

// Each figure's tags, first found wins: the revenue tag differs by filer and by year (SalesRevenueNet before 2018,
// RevenuesNetOfInterestExpense for banks).
const METRICS: { name: string; tags: string[]; instant: boolean }[] = [
  { name: "revenue", tags: ["RevenueFromContractWithCustomerExcludingAssessedTax", "Revenues", "SalesRevenueNet", "RevenuesNetOfInterestExpense"], instant: false },
  { name: "net_income", tags: ["NetIncomeLoss", "ProfitLoss"], instant: false },
  { name: "eps_diluted", tags: ["EarningsPerShareDiluted"], instant: false },
  { name: "assets", tags: ["Assets"], instant: true },
  { name: "liabilities", tags: ["Liabilities"], instant: true },
  { name: "equity", tags: ["StockholdersEquity", "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest"], instant: true },
  { name: "cash", tags: ["CashAndCashEquivalentsAtCarryingValue", "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"], instant: true },
  { name: "operating_cash_flow", tags: ["NetCashProvidedByUsedInOperatingActivities"], instant: false },
];

const days = (f: Fact) => (f.start ? (Date.parse(f.end) - Date.parse(f.start)) / 86_400_000 : 0);
const ANNUAL_FORMS = new Set(["10-K", "10-K/A", "20-F", "20-F/A", "40-F", "40-F/A"]);

function figure(f: Fact | undefined, unit: string, tag: string) {
  if (!f) return null;
  return { value: f.val, unit, start_date: f.start ?? null, end_date: f.end, fiscal_year: f.fy ?? null, fiscal_period: f.fp ?? null, form: f.form, filed_date: f.filed, accession_number: f.accn, concept: `us-gaap:${tag}` };
}

/** The latest one: by period end, then the latest filing (an amendment restates). */
const latest = (facts: Fact[]) => facts.reduce<Fact | undefined>((a, f) => (!a || f.end > a.end || (f.end === a.end && f.filed > a.filed) ? f : a), undefined);

/** The company facts file (several MB for large filers; cached a day) reduced to the headline figures. */
export async function financials(ctx: PluginContext) {
  const r = resolveCik(ctx);
  const body = await edgar(ctx, `/api/xbrl/companyfacts/CIK${r.cik10}.json`, "1d", () => new Problem({ status: 404, code: "not_found", param: r.param,
    detail: `SEC EDGAR has no XBRL financial data for CIK ${r.cik}${r.ticker ? ` (ticker ${r.ticker})` : ""}: the CIK is not a filer, or it files no XBRL financial statements (e.g. funds, individuals).` }));
  const facts = body.facts as Record<string, Record<string, Concept>> | undefined;
  if (!facts || typeof facts !== "object") throw new UpstreamError("unexpected", "sec-data", `/api/xbrl/companyfacts/CIK${r.cik10}.json`, "answered without facts");
  const gaap = facts["us-gaap"] ?? {};
  const annual: Record<string, unknown> = {};
  const quarterly: Record<string, unknown> = {};
  for (const m of METRICS) {
    // Of the tags the company used, the one with the most recent period.
    let best: { tag: string; unit: string; facts: Fact[] } | undefined;
    for (const tag of m.tags) {
      const units = gaap[tag]?.units;
      if (!units) continue;
      const unit = Object.keys(units).find((u) => u === "USD" || u === "USD/shares") ?? Object.keys(units)[0];
      const list = units[unit] ?? [];
      if (list.length && (!best || latest(list)!.end > latest(best.facts)!.end)) best = { tag, unit, facts: list };
    }
    if (!best) {
      annual[m.name] = null;
      quarterly[m.name] = null;
      continue;
    }
    const year = best.facts.filter((f) => ANNUAL_FORMS.has(f.form) && f.fp === "FY" && (m.instant ? !f.start : days(f) > 350 && days(f) < 380));
    const quarter = best.facts.filter((f) => (m.instant ? !f.start : days(f) > 80 && days(f) < 100));
    annual[m.name] = figure(latest(year), best.unit, best.tag);
    quarterly[m.name] = figure(latest(quarter), best.unit, best.tag);
  }
  return { cik: r.cik, ticker: r.ticker, name: body.entityName ?? null, annual, quarterly };
}

// A ticker is read from the local us-tickers dataset: while it is not loaded, such a call answers 503 before any
// payment is asked for (a CIK needs no dataset).
needsDatasets((params) => (params.ticker !== undefined ? ["us-tickers"] : []), submissions, filings, concept, financials);
