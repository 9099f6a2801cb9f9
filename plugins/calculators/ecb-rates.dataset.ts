// ECB euro foreign exchange reference rates, the whole daily history: eurofxref-hist.zip holds one file,
// eurofxref-hist.csv ("Date,USD,JPY,...," with a trailing comma, newest first, N/A where a currency is not quoted).
// A --from folder may hold the CSV itself; a download is the zip.
import type { DatabaseSync } from "node:sqlite";
import type { DatasetDefinition } from "../../engine/datasets/types.ts";
import type { RateDay } from "./currency.ts";
import { isZip, zipEntries } from "../../engine/datasets/zip.ts";

const FILE = "eurofxref-hist.csv";
/** Currencies the service offers: those the ECB still quotes (the discontinued ones stop at the euro changeover). */
const MIN_CURRENCIES = 20;

export interface RatesIndex {
  /** Oldest first. */
  days: RateDay[];
}

const definition: DatasetDefinition<RatesIndex> = {
  name: "ecb-rates",
  title: "ECB euro foreign exchange reference rates",
  folder: "ecb_eurofxref",
  source: "ecb",
  files: [{ name: FILE, path: "/stats/eurofxref/eurofxref-hist.zip" }],
  refresh: "1d",
  licence: "ECB statistics, free reuse with the source acknowledged",
  attribution: "Source: ECB (euro foreign exchange reference rates)",

  async load(input, db, progress) {
    const raw = await input.bytes(FILE);
    const lines = (isZip(raw) ? zipEntries(raw)[0].read() : raw).toString("utf8").split(/\r?\n/).filter((l) => l.trim());
    const header = lines[0]?.split(",").map((h) => h.trim());
    if (header?.[0] !== "Date" || !header.includes("USD")) throw new Error(`${FILE} does not start with the header "Date,USD,..."; is it the ECB history?`);
    db.exec("CREATE TABLE rates (date TEXT NOT NULL, currency TEXT NOT NULL, per_eur REAL NOT NULL, PRIMARY KEY (date, currency)) WITHOUT ROWID");
    const insert = db.prepare("INSERT OR REPLACE INTO rates VALUES (?, ?, ?)");
    progress.phase(`loading ${FILE}`, lines.length - 1);
    let days = 0;
    db.exec("BEGIN");
    for (const line of lines.slice(1)) {
      const cells = line.split(",").map((c) => c.trim());
      if (!/^\d{4}-\d{2}-\d{2}$/.test(cells[0])) throw new Error(`${FILE}: a row does not start with a date: ${line.slice(0, 60)}`);
      for (let i = 1; i < header.length; i++) {
        const rate = Number(cells[i]);
        if (header[i] && cells[i] && cells[i] !== "N/A" && rate > 0) insert.run(cells[0], header[i], rate);
      }
      days++;
      progress.tick();
    }
    db.exec("COMMIT");
    const latest = db.prepare("SELECT date, count(*) AS n FROM rates GROUP BY date ORDER BY date DESC LIMIT 1").get() as { date: string; n: number } | undefined;
    if (!latest || latest.n < MIN_CURRENCIES) throw new Error(`${FILE}: the latest day quotes ${latest?.n ?? 0} currencies; expected at least ${MIN_CURRENCIES}`);
    return { counts: { days }, dataDates: { latest_rates: latest.date } };
  },

  index(db: DatabaseSync): RatesIndex {
    const rows = db.prepare("SELECT date, currency, per_eur FROM rates ORDER BY date").all() as { date: string; currency: string; per_eur: number }[];
    const days: RateDay[] = [];
    for (const r of rows) {
      if (days.at(-1)?.date !== r.date) days.push({ date: r.date, rates: new Map() });
      days.at(-1)!.rates.set(r.currency, r.per_eur);
    }
    return { days };
  },
};

export default definition;
