// The in-memory index of the SEC ticker files: by ticker, by CIK, and a name search (whole words and word
// beginnings first, then trigram similarity for misspellings). Also used by us-company-filings to turn a ticker
// into a CIK without an upstream call.
export interface TickerRow {
  ticker: string;
  cik: number;
  name: string;
  exchange: string | null;
}

export interface Company {
  cik: number;
  name: string;
  /** The company's tickers, the first file's order kept (the main listing first). */
  tickers: TickerRow[];
  words: string[];
  trigrams: Set<string>;
}

export interface TickerIndex {
  byTicker: Map<string, TickerRow>;
  byCik: Map<number, Company>;
  companies: Company[];
}

/** "BRK.B", "brk/b", " BRK-B " -> "BRK-B": the SEC writes share classes with a hyphen. */
export function normaliseTicker(symbol: string): string {
  return symbol.trim().toUpperCase().replace(/[./]/g, "-");
}

/** Words of a conformed name: "US BANCORP \DE\" -> ["us", "bancorp", "de"]. */
export function nameWords(name: string): string[] {
  return name.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").split(/[^a-z0-9]+/).filter(Boolean);
}

function trigrams(text: string): Set<string> {
  const t = ` ${text} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
  return out;
}

export function buildTickerIndex(rows: TickerRow[]): TickerIndex {
  const byTicker = new Map<string, TickerRow>();
  const byCik = new Map<number, Company>();
  for (const r of rows) {
    byTicker.set(r.ticker, r);
    let c = byCik.get(r.cik);
    if (!c) {
      const words = nameWords(r.name);
      c = { cik: r.cik, name: r.name, tickers: [], words, trigrams: trigrams(words.join(" ")) };
      byCik.set(r.cik, c);
    }
    c.tickers.push(r);
  }
  // The primary listing first: one with an exchange before one without, then the shortest symbol (GOOGL/GOOG aside, "USB" before "USB-PA").
  for (const c of byCik.values()) c.tickers.sort((a, b) => Number(!a.exchange) - Number(!b.exchange) || a.ticker.length - b.ticker.length || a.ticker.localeCompare(b.ticker));
  return { byTicker, byCik, companies: [...byCik.values()] };
}

export interface NameMatch {
  company: Company;
  score: number;
}

/** Companies whose name matches q: every word of q a whole word (1) or a word beginning (0.8), else trigram similarity. */
export function searchNames(index: TickerIndex, q: string, exchange: string | undefined, limit: number): { total: number; matches: NameMatch[] } {
  const qWords = nameWords(q);
  const qTri = trigrams(qWords.join(" "));
  const out: NameMatch[] = [];
  for (const c of index.companies) {
    if (exchange && !c.tickers.some((t) => (t.exchange ?? "").toLowerCase().startsWith(exchange))) continue;
    let score = 0;
    if (qWords.length && qWords.every((w) => c.words.some((cw) => cw.startsWith(w)))) {
      const whole = qWords.filter((w) => c.words.includes(w)).length;
      score = 0.8 + (0.2 * whole) / qWords.length;
      if (c.words.slice(0, qWords.length).join(" ") === qWords.join(" ")) score += 0.1;
      // Fewer other words: "apple inc" before "apple hospitality reit inc".
      score -= Math.min(0.05, 0.01 * (c.words.length - qWords.length));
    } else {
      let shared = 0;
      for (const t of qTri) if (c.trigrams.has(t)) shared++;
      const sim = shared / (qTri.size + c.trigrams.size - shared);
      if (sim >= 0.3) score = sim * 0.7;
    }
    if (score > 0) out.push({ company: c, score: Math.round(score * 1000) / 1000 });
  }
  out.sort((a, b) => b.score - a.score || a.company.name.localeCompare(b.company.name));
  return { total: out.length, matches: out.slice(0, limit) };
}
