// uk-bank-holidays keeps history when the GOV.UK feed's window moves: each sync through the real dataset
// mechanism merges the version in use (holidays before the new feed's first date are kept; from that date on the
// new feed is authoritative), so the years the feed drops are still answered.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Running } from "../../engine/http/server.ts";
import { datasetCopy, freeAccess, getJson, tempDir, useTestServer } from "../../test/support/helpers.ts";

const quiet = { phase() {}, tick() {}, log() {}, done() {} };

interface Feed { [division: string]: { division: string; events: { title: string; date: string; notes: string; bunting: boolean }[] } }

/** England and Wales 2024, as GOV.UK published it until mid-August 2025 (when the feed dropped years before 2024). */
const EW_2024 = [
  ["2024-01-01", "New Year’s Day"], ["2024-03-29", "Good Friday"], ["2024-04-01", "Easter Monday"], ["2024-05-06", "Early May bank holiday"],
  ["2024-05-27", "Spring bank holiday"], ["2024-08-26", "Summer bank holiday"], ["2024-12-25", "Christmas Day"], ["2024-12-26", "Boxing Day"],
].map(([date, title]) => ({ title, date, notes: "", bunting: true }));

/** A folder holding one fetch of the feed (the 2025-2026 test file, changed by `edit`). */
function fetchFolder(edit: (feed: Feed) => void): string {
  const feed = JSON.parse(fs.readFileSync(datasetCopy("uk-bank-holidays", "bank-holidays.json"), "utf8")) as Feed;
  edit(feed);
  const dir = tempDir("pda-bank-holidays-");
  fs.writeFileSync(path.join(dir, "bank-holidays.json"), JSON.stringify(feed));
  return dir;
}

describe("uk-bank-holidays: history is kept when the feed's window moves", function () {
  this.timeout(30_000);
  let server: Running;
  useTestServer({ access: freeAccess }, (s) => (server = s));
  const sync = (from: string) => server.engine.datasets.sync("uk-bank-holidays", { from, progress: quiet });
  const call = (op: string, q: string) => getJson(`${server.url}/v1/uk-bank-holidays/${op}?${q}`);

  it("merges versions: 2024 survives a feed that starts in 2025, and the newer feed wins from its first date", async () => {
    // July: the feed still has 2024.
    const july = await sync(fetchFolder((f) => f["england-and-wales"].events.unshift(...EW_2024)));
    assert.equal(july.counts["england-and-wales"], 24);
    // August: the window moved, 2024 is gone from the feed.
    const august = await sync(fetchFolder(() => {}));
    assert.equal(august.counts["england-and-wales"], 24, "never shrinks");
    assert.equal(august.data_dates?.first_holiday, "2024-01-01");
    server.engine.clearCaches();
    const list2024 = await call("list", "year=2024&division=england-and-wales");
    assert.equal(list2024.status, 200, JSON.stringify(list2024.body));
    assert.deepEqual(list2024.body.data.divisions[0].holidays.map((h: { date: string }) => h.date), EW_2024.map((e) => e.date));
    assert.equal((await call("is-holiday", "date=2024-08-26")).body.data.holiday.title, "Summer bank holiday");
    assert.equal((await call("next", "from=2024-12-27")).body.data.holidays[0].date, "2025-01-01");
    const span = await call("working-days", "from=2024-12-23&to=2025-01-03");
    assert.equal(span.body.data.working_days, 7, "24, 27, 30, 31 Dec and 2, 3 Jan, plus 23 Dec");
    assert.equal(span.body.data.coverage.from, "2024-01-01");

    // Later: a holiday of 2026 is withdrawn from the feed. The feed is authoritative for its own window, and
    // the history kept before it (2024, from the July version) carries on through a third version.
    const later = await sync(fetchFolder((f) => {
      f["england-and-wales"].events = f["england-and-wales"].events.filter((e) => e.date !== "2026-05-04");
    }));
    assert.equal(later.counts["england-and-wales"], 23);
    server.engine.clearCaches();
    assert.equal((await call("is-holiday", "date=2026-05-04")).body.data.is_holiday, false);
    assert.equal((await call("is-holiday", "date=2024-01-01")).body.data.is_holiday, true);
    assert.equal((await call("list", "year=2023")).status, 422, "a year never published is still refused");
  });
});
