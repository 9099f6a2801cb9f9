// The us-tickers group, answered from the local copy of the SEC ticker files (us-tickers.dataset.ts beside this file).
import { Problem } from "../../engine/basics/problem.ts";
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import { normaliseTicker, searchNames, type Company, type TickerIndex, type TickerRow } from "./lookup.ts";

const EDGAR = "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=";

export const padCik = (cik: number) => String(cik).padStart(10, "0");

const listing = (t: TickerRow) => ({ ticker: t.ticker, exchange: t.exchange });

function company(c: Company) {
  return { cik: c.cik, cik_padded: padCik(c.cik), name: c.name, url: EDGAR + padCik(c.cik), tickers: c.tickers.map(listing) };
}

const index = (ctx: PluginContext) => ctx.dataset<TickerIndex>("us-tickers").index;

/** A ticker's row, or a 404 naming `param`; BRK.B and brk-b both find BRK-B. */
export function findTicker(idx: TickerIndex, symbol: string, param: string): TickerRow {
  const row = idx.byTicker.get(normaliseTicker(symbol));
  if (!row) {
    throw new Problem({ status: 404, code: "not_found", param,
      detail: `No company in the SEC's ticker list has the ticker ${symbol.trim().toUpperCase()} (the list covers current exchange and OTC listings; delisted tickers are not in it). Search by name with us-tickers/search.` });
  }
  return row;
}

export function ticker(ctx: PluginContext) {
  const idx = index(ctx);
  const row = findTicker(idx, ctx.params.symbol as string, "symbol");
  const c = idx.byCik.get(row.cik)!;
  return { ticker: row.ticker, exchange: row.exchange, ...company(c), other_tickers: c.tickers.filter((t) => t.ticker !== row.ticker).map(listing) };
}

export function cik(ctx: PluginContext) {
  const idx = index(ctx);
  const n = Number(ctx.params.cik);
  const c = idx.byCik.get(n);
  if (!c) {
    throw new Problem({ status: 404, code: "not_found", param: "cik",
      detail: `No ticker in the SEC's list belongs to CIK ${n}: the company may have no listed securities (us-company-filings/company still knows every filer).` });
  }
  return company(c);
}

export function search(ctx: PluginContext) {
  const idx = index(ctx);
  const q = ctx.params.q as string;
  const exchange = ctx.params.exchange as string | undefined;
  const { total, matches } = searchNames(idx, q, exchange, ctx.params.limit as number);
  return {
    query: { q, exchange: exchange ?? null },
    total,
    count: matches.length,
    companies: matches.map((m) => ({ ...company(m.company), score: m.score })),
    ...(matches.length ? {} : { note: `No company name in the SEC's ticker list matches "${q}"${exchange ? ` on ${exchange}` : ""}.` }),
  };
}

export function dataset(ctx: PluginContext) {
  const handle = ctx.dataset<TickerIndex>("us-tickers");
  const byExchange: Record<string, number> = {};
  for (const t of handle.index.byTicker.values()) {
    const k = t.exchange ?? "unknown";
    byExchange[k] = (byExchange[k] ?? 0) + 1;
  }
  const v = handle.version;
  return {
    tickers: handle.index.byTicker.size,
    companies: handle.index.byCik.size,
    by_exchange: byExchange,
    loaded_at: v.loaded_at,
    files: v.sources.map((s) => ({ file: s.file, url: s.url, modified_at: s.date ?? null })),
    refresh: "daily",
    note: "The SEC regenerates its ticker files nightly. They list current exchange and OTC tickers; delisted tickers and many funds are absent, and a ticker without an exchange is listed with exchange null.",
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["us-tickers"], ticker, cik, search, dataset);
