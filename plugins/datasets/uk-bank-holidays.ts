// GOV.UK bank holidays (https://www.gov.uk/bank-holidays.json, OGL v3): per division (england-and-wales,
// scotland, northern-ireland) a list of events {title, date, notes, bunting}; substitute days say so in notes.
import type { DatabaseSync } from "node:sqlite";
import type { DatasetDefinition } from "../../engine/datasets/types.ts";
import { HolidayCalendar, NATIONS, type Holiday, type Nation } from "../calculators/bank-holidays.ts";

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

  async load(input, db) {
    let feed: Feed;
    try {
      feed = JSON.parse(await input.text(FILE)) as Feed;
    } catch (e) {
      throw new Error(`${FILE} is not valid JSON (${(e as Error).message})`);
    }
    db.exec("CREATE TABLE holidays (nation TEXT NOT NULL, date TEXT NOT NULL, title TEXT NOT NULL, substitute INTEGER NOT NULL, PRIMARY KEY (nation, date))");
    const insert = db.prepare("INSERT OR REPLACE INTO holidays VALUES (?, ?, ?, ?)");
    const counts: Record<string, number> = {};
    db.exec("BEGIN");
    for (const nation of NATIONS) {
      const events = feed[nation]?.events;
      if (!Array.isArray(events) || events.length < MIN_EVENTS) throw new Error(`${FILE} has ${events?.length ?? "no"} events for ${nation}; expected at least ${MIN_EVENTS}`);
      for (const e of events) {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(e.date) || !e.title) throw new Error(`${FILE}: an event of ${nation} has no valid date or title: ${JSON.stringify(e).slice(0, 120)}`);
        insert.run(nation, e.date, e.title, /substitute/i.test(e.notes ?? "") ? 1 : 0);
      }
      counts[nation] = events.length;
    }
    db.exec("COMMIT");
    const last = db.prepare("SELECT max(date) AS d FROM holidays").get() as { d: string };
    return { counts, dataDates: { last_holiday: last.d } };
  },

  index(db: DatabaseSync): HolidayIndex {
    const rows = db.prepare("SELECT nation, date, title, substitute FROM holidays ORDER BY date").all() as { nation: Nation; date: string; title: string; substitute: number }[];
    const of = (nation: Nation): Holiday[] => rows.filter((r) => r.nation === nation).map((r) => ({ date: r.date, title: r.title, substitute: r.substitute === 1 }));
    return Object.fromEntries(NATIONS.map((n) => [n, new HolidayCalendar(n, of(n))])) as HolidayIndex;
  },
};

export default definition;
