// GOV.UK bank holidays (https://www.gov.uk/bank-holidays.json, OGL v3): per division (england-and-wales,
// scotland, northern-ireland) a list of events {title, date, notes, bunting}; substitute days say so in notes.
// The feed's window moves (by mid-August 2025 it had dropped every year before 2024): each load keeps the holidays
// of the version in use dated before the new feed's first one, so history never shrinks. From its first date on,
// the new feed is authoritative (a holiday added, moved or withdrawn there replaces the old list).
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { DatasetDefinition } from "../../engine/datasets/types.ts";
import { HolidayCalendar, NATIONS, type Holiday, type Nation } from "./bank-holidays.ts";

const FILE = "bank-holidays.json";
/** Fewer events than this in a division means a cut or changed file (the feed holds about eight a year over several years). */
const MIN_EVENTS = 8;

interface Feed { [division: string]: { division: string; events: { title: string; date: string; notes?: string }[] } }

export type HolidayIndex = Record<Nation, HolidayCalendar>;

const definition: DatasetDefinition<HolidayIndex> = {
  name: "uk-bank-holidays",
  title: "UK bank holidays (GOV.UK)",
  folder: "uk_bank_holidays",
  source: "govuk",
  files: [{ name: FILE, path: "/bank-holidays.json" }],
  refresh: "7d",
  licence: "Open Government Licence v3.0",
  attribution: "Contains public sector information licensed under the Open Government Licence v3.0 (GOV.UK bank holidays)",

  async load(input, db, progress) {
    let feed: Feed;
    try {
      feed = JSON.parse(await input.text(FILE)) as Feed;
    } catch (e) {
      throw new Error(`${FILE} is not valid JSON (${(e as Error).message})`);
    }
    const earlier = rowsInUse(db);
    // kept: 1 when the row comes from an earlier fetch, dated before the current feed's window.
    db.exec("CREATE TABLE holidays (nation TEXT NOT NULL, date TEXT NOT NULL, title TEXT NOT NULL, substitute INTEGER NOT NULL, kept INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (nation, date))");
    const insert = db.prepare("INSERT OR REPLACE INTO holidays VALUES (?, ?, ?, ?, ?)");
    const counts: Record<string, number> = {};
    let kept = 0;
    db.exec("BEGIN");
    for (const nation of NATIONS) {
      const events = feed[nation]?.events;
      if (!Array.isArray(events) || events.length < MIN_EVENTS) throw new Error(`${FILE} has ${events?.length ?? "no"} events for ${nation}; expected at least ${MIN_EVENTS}`);
      let first = "9999-12-31";
      for (const e of events) {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(e.date) || !e.title) throw new Error(`${FILE}: an event of ${nation} has no valid date or title: ${JSON.stringify(e).slice(0, 120)}`);
        insert.run(nation, e.date, e.title, /substitute/i.test(e.notes ?? "") ? 1 : 0, 0);
        if (e.date < first) first = e.date;
      }
      counts[nation] = events.length;
      for (const r of earlier.filter((r) => r.nation === nation && r.date < first)) {
        insert.run(nation, r.date, r.title, r.substitute, 1);
        counts[nation]++;
        kept++;
      }
    }
    db.exec("COMMIT");
    const span = db.prepare("SELECT min(date) AS first, max(date) AS last FROM holidays").get() as { first: string; last: string };
    if (kept) progress.log(`kept ${kept} holidays of earlier years from the version in use (the feed no longer lists them)`);
    return { counts, dataDates: { first_holiday: span.first, last_holiday: span.last } };
  },

  index(db: DatabaseSync): HolidayIndex {
    const rows = db.prepare("SELECT nation, date, title, substitute FROM holidays ORDER BY date").all() as { nation: Nation; date: string; title: string; substitute: number }[];
    const of = (nation: Nation): Holiday[] => rows.filter((r) => r.nation === nation).map((r) => ({ date: r.date, title: r.title, substitute: r.substitute === 1 }));
    return Object.fromEntries(NATIONS.map((n) => [n, new HolidayCalendar(n, of(n))])) as HolidayIndex;
  },
};

/**
 * The holidays of the version in use, read from its SQLite file next to the one being loaded
 * (<DATA_DIR>/datasets/uk-bank-holidays/<version>.sqlite, named by current.json: docs/datasets.md, "Versions").
 * None for a first load or an in-memory database.
 */
function rowsInUse(db: DatabaseSync): { nation: string; date: string; title: string; substitute: number }[] {
  const loading = db.location();
  if (!loading) return [];
  const dir = path.dirname(loading);
  let version: string | undefined;
  try {
    version = (JSON.parse(fs.readFileSync(path.join(dir, "current.json"), "utf8")) as { version?: string }).version;
  } catch {
    return [];
  }
  const file = path.join(dir, `${version}.sqlite`);
  if (!version || !fs.existsSync(file)) return [];
  const old = new DatabaseSync(file, { readOnly: true });
  try {
    return old.prepare("SELECT nation, date, title, substitute FROM holidays").all() as { nation: string; date: string; title: string; substitute: number }[];
  } finally {
    old.close();
  }
}

export default definition;
