// The calculators group: bank holidays and business days (real 2025-2027 holidays per nation), great-circle
// distance and bearing, ECB cross rates, the datasets' loaders, and the endpoints over HTTP.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import nock from "nock";
import { HolidayCalendar, easterSunday, ruleHolidays, type Nation } from "../shared/bank-holidays.ts";
import { compassPoint, distanceKm, initialBearing } from "../shared/geo.ts";
import { convert, rateDayOnOrBefore, type RateDay } from "./currency.ts";
import { addMonths, day, isoDay } from "../shared/calendar.ts";
import { clock } from "../shared/clock.ts";
import holidaysDefinition from "../shared/uk-bank-holidays.dataset.ts";
import ecbDefinition, { type RatesIndex } from "./ecb-rates.dataset.ts";
import postcodesDefinition, { normalisePostcode, type PostcodeIndex } from "../shared/gb-postcodes.dataset.ts";
import { gridToOsgb36, gridToWgs84 } from "../shared/osgb.ts";
import { datasetCopy, fixtureFile, fixture, getJson, freeAccess, useTestServer } from "../../test/support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";
import { storedZip } from "../../test/support/zip.ts";
import type { DatasetInput, DatasetProgress } from "../../engine/datasets/types.ts";

const quiet: DatasetProgress = { phase() {}, tick() {}, log() {} };

const fileInput = (name: string, file: string): DatasetInput => ({
  files: [name],
  bytes: async () => fs.readFileSync(file),
  text: async () => fs.readFileSync(file, "utf8"),
  origin: () => ({ url: file }),
});

/** The GOV.UK bank holidays of 2025-2027 (https://www.gov.uk/bank-holidays), as month-day. */
const GOV_UK: Record<Nation, Record<number, string[]>> = {
  "england-and-wales": {
    2025: ["01-01", "04-18", "04-21", "05-05", "05-26", "08-25", "12-25", "12-26"],
    2026: ["01-01", "04-03", "04-06", "05-04", "05-25", "08-31", "12-25", "12-28"],
    2027: ["01-01", "03-26", "03-29", "05-03", "05-31", "08-30", "12-27", "12-28"],
  },
  scotland: {
    2025: ["01-01", "01-02", "04-18", "05-05", "05-26", "08-04", "12-01", "12-25", "12-26"],
    2026: ["01-01", "01-02", "04-03", "05-04", "05-25", "08-03", "11-30", "12-25", "12-28"],
    2027: ["01-01", "01-04", "03-26", "05-03", "05-31", "08-02", "11-30", "12-27", "12-28"],
  },
  "northern-ireland": {
    2025: ["01-01", "03-17", "04-18", "04-21", "05-05", "05-26", "07-14", "08-25", "12-25", "12-26"],
    2026: ["01-01", "03-17", "04-03", "04-06", "05-04", "05-25", "07-13", "08-31", "12-25", "12-28"],
    2027: ["01-01", "03-17", "03-26", "03-29", "05-03", "05-31", "07-12", "08-30", "12-27", "12-28"],
  },
};

describe("bank holiday rules", () => {
  it("finds Easter Sunday", () => {
    assert.deepEqual([2025, 2026, 2027, 2038].map((y) => isoDay(easterSunday(y))), ["2025-04-20", "2026-04-05", "2027-03-28", "2038-04-25"]);
  });

  for (const [nation, years] of Object.entries(GOV_UK)) {
    it(`give the published ${nation} holidays of 2025-2027, substitute days included`, () => {
      for (const [year, dates] of Object.entries(years)) {
        assert.deepEqual(ruleHolidays(nation as Nation, Number(year)).map((h) => h.date.slice(5)), dates, `${nation} ${year}`);
      }
    });
  }

  it("move Christmas on a Saturday to Monday and Boxing Day to Tuesday, marked as substitutes", () => {
    const xmas = ruleHolidays("england-and-wales", 2027).filter((h) => h.date >= "2027-12-01");
    assert.deepEqual(xmas, [
      { date: "2027-12-27", title: "Christmas Day", substitute: true },
      { date: "2027-12-28", title: "Boxing Day", substitute: true },
    ]);
  });
});

describe("business days", () => {
  const ew = new HolidayCalendar("england-and-wales");
  const scot = new HolidayCalendar("scotland");

  it("skips weekends and holidays when adding", () => {
    assert.equal(isoDay(ew.addBusinessDays(day("2025-12-24"), 1)), "2025-12-29");
    assert.equal(isoDay(ew.addBusinessDays(day("2025-12-19"), 5)), "2025-12-30");
    assert.equal(isoDay(ew.addBusinessDays(day("2026-01-05"), -8)), "2025-12-19");
    assert.equal(isoDay(ew.addBusinessDays(day("2025-04-17"), 1)), "2025-04-22"); // over Easter
    assert.equal(isoDay(scot.addBusinessDays(day("2025-04-17"), 1)), "2025-04-21"); // no Easter Monday in Scotland
  });

  it("counts the business days after a date up to and including another, per nation", () => {
    assert.equal(ew.countBusinessDays(day("2025-12-19"), day("2026-01-05")), 8);
    assert.equal(scot.countBusinessDays(day("2025-12-19"), day("2026-01-05")), 7); // 2 January too
    assert.equal(ew.countBusinessDays(day("2026-01-05"), day("2025-12-19")), -8);
    assert.equal(ew.countBusinessDays(day("2025-12-24"), day("2025-12-24")), 0);
  });

  it("prefers the published list to the rules for the years it covers", () => {
    // The published list knows the coronation holiday of 8 May 2023; the rules cannot.
    const cal = new HolidayCalendar("england-and-wales", [{ date: "2023-05-08", title: "Bank holiday for the coronation of King Charles III", substitute: false }]);
    assert.equal(cal.isBusinessDay(day("2023-05-08")), false);
    assert.equal(cal.source(2023), "gov.uk");
    assert.equal(cal.source(2024), "rules");
    assert.equal(new HolidayCalendar("england-and-wales").isBusinessDay(day("2023-05-08")), true);
  });
});

describe("calendar months", () => {
  it("uses the corresponding date, or the last day of a shorter month", () => {
    assert.equal(isoDay(addMonths(day("2025-08-31"), 6)), "2026-02-28");
    assert.equal(isoDay(addMonths(day("2024-02-29"), 12)), "2025-02-28");
    assert.equal(isoDay(addMonths(day("2025-06-10"), 6)), "2025-12-10");
  });
});

describe("great-circle distance and bearing", () => {
  it("gives one degree of longitude at the equator and the cardinal bearings", () => {
    const o = { lat: 0, lng: 0 };
    assert.equal(distanceKm(o, { lat: 0, lng: 1 }).toFixed(3), "111.195"); // 2π × 6371.0088 / 360
    assert.equal(initialBearing(o, { lat: 0, lng: 1 }), 90);
    assert.equal(initialBearing(o, { lat: 1, lng: 0 }), 0);
    assert.equal(initialBearing(o, { lat: 0, lng: -1 }), 270);
  });

  it("puts Paris about 344 km south-south-east of London", () => {
    const london = { lat: 51.5074, lng: -0.1278 };
    const paris = { lat: 48.8566, lng: 2.3522 };
    assert.equal(Math.round(distanceKm(london, paris)), 344);
    assert.equal(compassPoint(initialBearing(london, paris)), "SSE");
  });

  it("names the 16 compass points", () => {
    assert.deepEqual([0, 11, 12, 90, 180, 200, 348.75, 359].map(compassPoint), ["N", "N", "NNE", "E", "S", "SSW", "N", "N"]);
  });
});

describe("National Grid to WGS84", () => {
  it("matches the worked example of the Ordnance Survey guide on the Airy ellipsoid", () => {
    // E 651409.903, N 313177.270 -> 52°39'27.2531"N, 1°43'4.5177"E (OSGB36), "A guide to coordinate systems in Great Britain", annex C.
    const { phi, lambda } = gridToOsgb36(651409.903, 313177.27);
    const arcsec = (r: number) => (r * 180 * 3600) / Math.PI;
    assert.equal(arcsec(phi).toFixed(4), (52 * 3600 + 39 * 60 + 27.2531).toFixed(4));
    assert.equal(arcsec(lambda).toFixed(4), (1 * 3600 + 43 * 60 + 4.5177).toFixed(4));
  });

  it("puts postcodes where postcodes.io does, within a few metres", () => {
    // SW1A 1AA: E 529090, N 179645; postcodes.io 51.501009, -0.141588. TR18 5EG: E 146278, N 28452; 50.101832, -5.549482.
    assert.deepEqual(gridToWgs84(529090, 179645), { latitude: 51.501009, longitude: -0.141588 });
    const tr18 = gridToWgs84(146278, 28452);
    assert.ok(distanceKm({ lat: tr18.latitude, lng: tr18.longitude }, { lat: 50.101832, lng: -5.549482 }) < 0.01, JSON.stringify(tr18));
  });
});

describe("currency cross rates", () => {
  const days: RateDay[] = [
    { date: "2026-04-10", rates: new Map([["USD", 1.1711], ["GBP", 0.87105]]) },
    { date: "2026-04-13", rates: new Map([["USD", 1.1684], ["GBP", 0.87058], ["JPY", 186.75]]) },
  ];

  it("takes the last day on or before a date", () => {
    assert.equal(rateDayOnOrBefore(days, "2026-04-12")?.date, "2026-04-10");
    assert.equal(rateDayOnOrBefore(days, "2026-04-13")?.date, "2026-04-13");
    assert.equal(rateDayOnOrBefore(days, "2026-04-09"), undefined);
  });

  it("converts through the euro", () => {
    const c = convert(days[1], "GBP", "USD", 100)!;
    assert.equal(c.rate, 1.342093777); // 1.1684 / 0.87058
    assert.equal(c.result, 134.209378);
    assert.equal(convert(days[1], "EUR", "JPY", 2)!.result, 373.5);
    assert.equal(convert(days[1], "USD", "EUR", 1.1684)!.result, 1);
    assert.equal(convert(days[0], "GBP", "JPY", 1), undefined);
  });
});

describe("dataset loads", () => {
  it("reads the GOV.UK bank holidays feed into one calendar per nation", async () => {
    const db = new DatabaseSync(":memory:");
    const result = await holidaysDefinition.load(fileInput("bank-holidays.json", datasetCopy("uk-bank-holidays", "bank-holidays.json")), db, quiet);
    assert.deepEqual(result.counts, { "england-and-wales": 16, scotland: 18, "northern-ireland": 20 });
    const index = holidaysDefinition.index!(db) as Record<Nation, HolidayCalendar>;
    assert.deepEqual(index.scotland.holiday(day("2025-12-01")), { date: "2025-12-01", title: "St Andrew’s Day", substitute: true });
    assert.equal(index["northern-ireland"].isBusinessDay(day("2026-03-17")), false);
  });

  it("refuses a bank holidays feed without a nation", async () => {
    const db = new DatabaseSync(":memory:");
    const feed = JSON.parse(fs.readFileSync(datasetCopy("uk-bank-holidays", "bank-holidays.json"), "utf8")) as Record<string, unknown>;
    delete feed.scotland;
    const input = { ...fileInput("bank-holidays.json", "x"), text: async () => JSON.stringify(feed) };
    await assert.rejects(holidaysDefinition.load(input, db, quiet), /no events for scotland/);
  });

  it("reads the ECB history from the CSV and from the zip the ECB publishes", async () => {
    for (const file of [datasetCopy("ecb-rates", "eurofxref-hist.csv"), fixtureFile("calculators:eurofxref-hist.zip")]) {
      const db = new DatabaseSync(":memory:");
      const result = await ecbDefinition.load(fileInput("eurofxref-hist.csv", file), db, quiet);
      assert.deepEqual(result.counts, { days: 4 }, file);
      assert.deepEqual(result.dataDates, { latest_rates: "2026-04-13" }, file);
      const { days } = ecbDefinition.index!(db) as RatesIndex;
      assert.deepEqual(days.map((d) => d.date), ["2026-04-01", "2026-04-02", "2026-04-10", "2026-04-13"]);
      assert.equal(days[3].rates.get("GBP"), 0.87058);
      assert.equal(days[3].rates.has("BGN"), false, "N/A is left out");
    }
  });

  it("reads Code-Point Open from its zip: plain and gzipped area files, metadata counts, no grid reference left out", async () => {
    const db = new DatabaseSync(":memory:");
    const result = await postcodesDefinition.load(fileInput("codepo_gb.zip", datasetCopy("gb-postcodes", "codepo_gb.zip")), db, quiet);
    assert.deepEqual(result.counts, { postcodes: 6 });
    assert.deepEqual(result.dataDates, { release: "2025.4.0" });
    const index = postcodesDefinition.index!(db) as PostcodeIndex;
    assert.deepEqual(index.lookup("sw1a1aa"), {
      postcode: "SW1A 1AA", latitude: 51.501009, longitude: -0.141588, easting: 529090, northing: 179645,
      country: "England", district_code: "E09000033", ward_code: "E05013806",
    });
    assert.equal(index.lookup("B1 1BA")?.district_code, "E08000025");
    assert.equal(index.lookup("EH1 1YZ")?.country, "Scotland");
    assert.equal(index.lookup("EH99 1ZZ"), undefined);
  });

  it("refuses a Code-Point Open area file shorter than its metadata says", async () => {
    const zip = storedZip({
      "Doc/metadata.txt": "DATASET VERSION NUMBER: 2025.4.0\r\n      TR\t3\r\n",
      "Data/CSV/tr.csv": '"TR1 1AA",10,182961,43918,"E92000001","","","","E06000052",""\r\n"TR18 5EG",10,146278,28452,"E92000001","","","","E06000052",""\r\n',
    });
    const input = { ...fileInput("codepo_gb.zip", "x"), bytes: async () => zip };
    await assert.rejects(postcodesDefinition.load(input, new DatabaseSync(":memory:"), quiet), /tr\.csv has 2 postcodes; Doc\/metadata\.txt says 3/);
  });

  it("writes a postcode one way whatever its spacing", () => {
    assert.deepEqual(["SW1A1AA", "sw1a 1aa", "B1  1AA", "EH991ZZ"].map(normalisePostcode), ["SW1A 1AA", "SW1A 1AA", "B1 1AA", "EH99 1ZZ"]);
  });

  it("refuses a file that is not the ECB history", async () => {
    const db = new DatabaseSync(":memory:");
    const input = { ...fileInput("eurofxref-hist.csv", "x"), bytes: async () => Buffer.from("<html>Service unavailable</html>") };
    await assert.rejects(ecbDefinition.load(input, db, quiet), /header/);
  });
});

describe("calculators endpoints", () => {
  let server: Running;
  const realToday = clock.today;
  useTestServer({ access: freeAccess }, (s) => (server = s));
  after(() => {
    clock.today = realToday;
  });
  const get = (url: string) => getJson(`${server.url}${url}`);

  describe("uk-business-days", () => {
    it("works from the standing rules while the GOV.UK list is not loaded, and says so", async () => {
      const res = await get("/v1/calculators/uk-business-days?date=2026-12-28");
      assert.equal(res.status, 200);
      assert.equal(res.body.data.holiday.title, "Boxing Day");
      assert.deepEqual(res.body.data.holiday_sources, { 2026: "rules" });
      assert.match(res.body.data.note, /not loaded/);
    });

    it("falls back to the rules for the years the loaded list does not cover", async () => {
      await server.engine.datasets.loadTestDatasets!(["uk-bank-holidays"]);
      const res = await get("/v1/calculators/uk-business-days?date=2026-12-24&until=2027-01-04&nation=scotland");
      assert.equal(res.status, 200);
      // 29, 30, 31 December 2026; 1 January 2027 New Year's Day, 4 January the substitute for 2 January.
      assert.equal(res.body.data.until.business_days, 3);
      assert.deepEqual(res.body.data.holiday_sources, { 2026: "gov.uk", 2027: "rules" });
      assert.match(res.body.data.note, /beyond the published GOV.UK list/);
      assert.equal(res.body.meta.sources[0].source, "govuk");
    });

    it("subtracts business days in Northern Ireland over St Patrick's Day", async () => {
      const res = await get("/v1/calculators/uk-business-days?date=2026-03-18&add=-1&nation=northern-ireland");
      assert.equal(res.body.data.add.date, "2026-03-16");
      assert.equal(res.body.data.add.day_of_week, "Monday");
      assert.equal(res.body.data.is_business_day, true);
    });
  });

  describe("postcode-distance", () => {
    const TR18 = () => nock("https://api.postcodes.io").get("/postcodes/TR18%205EG").reply(200, fixture("uk-postcodes:TR18-5EG.json"), { "content-type": "application/json" });

    it("answers 0 km and no bearing for the same postcode twice", async () => {
      TR18();
      const res = await get("/v1/calculators/postcode-distance?from=TR18%205EG&to=TR185EG");
      assert.equal(res.status, 200);
      assert.equal(res.body.data.distance_km, 0);
      assert.equal(res.body.data.compass, null);
    });

    it("answers 502, not charged, when postcodes.io fails", async () => {
      TR18();
      nock("https://api.postcodes.io").get("/postcodes/SW1A%201AA").times(3).reply(500, "oops");
      const res = await get("/v1/calculators/postcode-distance?from=TR18%205EG&to=SW1A%201AA");
      assert.equal(res.status, 502);
      assert.equal(res.body.upstream, "postcodes-io");
    });

    it("answers 404 for a postcode without a grid location", async () => {
      TR18();
      const body = JSON.parse(fixture("calculators:postcodes-io-SW1A-1AA.json")) as { result: Record<string, unknown> };
      Object.assign(body.result, { latitude: null, longitude: null });
      nock("https://api.postcodes.io").get("/postcodes/SW1A%201AA").reply(200, body);
      const res = await get("/v1/calculators/postcode-distance?from=TR18%205EG&to=SW1A%201AA");
      assert.equal(res.status, 404);
      assert.equal(res.body.param, "to");
    });

    // Last in this block: from here on GB postcodes are found locally.
    it("locates GB postcodes from the local dataset once it is loaded, and others through postcodes.io", async () => {
      await server.engine.datasets.loadTestDatasets!(["gb-postcodes"]);
      nock("https://api.postcodes.io").get("/postcodes/BT1%205GS").reply(200, fixture("calculators:postcodes-io-BT1-5GS.json"), { "content-type": "application/json" });
      const res = await get("/v1/calculators/postcode-distance?from=EH1%201YZ&to=BT1%205GS");
      assert.equal(res.status, 200);
      assert.equal(res.body.data.from.located_by, "gb-postcodes");
      assert.equal(res.body.data.to.located_by, "postcodes-io");
      assert.equal(res.body.data.to.district_code, "N09000003");
      assert.deepEqual(res.body.meta.sources.map((s: { source: string }) => s.source).sort(), ["os-codepoint", "postcodes-io"]);
      assert.ok(nock.isDone(), "postcodes.io was asked for the Northern Ireland postcode");
    });
  });

  describe("currency-convert", () => {
    before(async () => {
      await server.engine.datasets.loadTestDatasets!(["ecb-rates"]);
      clock.today = () => day("2026-04-15");
    });

    it("uses the last rates before a weekend day and says which day it used", async () => {
      const res = await get("/v1/calculators/currency-convert?from=EUR&to=GBP&amount=250&date=2026-04-12");
      assert.equal(res.status, 200);
      assert.equal(res.body.data.rate_date, "2026-04-10");
      assert.equal(res.body.data.result, 217.7625); // 250 × 0.87105
      assert.equal(res.body.data.via, null);
      assert.match(res.body.data.note, /no reference rates for 2026-04-12/);
    });

    it("uses the last rates before Good Friday and Easter Monday", async () => {
      const res = await get("/v1/calculators/currency-convert?from=USD&to=JPY&date=2026-04-06");
      assert.equal(res.body.data.rate_date, "2026-04-02");
      assert.equal(res.body.data.rate, Number((183.94 / 1.1525).toPrecision(10)));
    });

    it("answers 404 for a date after the rates held end, and notes old latest rates", async () => {
      clock.today = () => day("2026-04-25");
      try {
        const res = await get("/v1/calculators/currency-convert?from=GBP&to=USD&date=2026-04-20");
        assert.equal(res.status, 404);
        assert.equal(res.body.param, "date");
        assert.match(res.body.detail, /end on 2026-04-13/);
        const latest = await get("/v1/calculators/currency-convert?from=GBP&to=USD");
        assert.equal(latest.body.data.rate_date, "2026-04-13");
        assert.match(latest.body.data.note, /newest reference rates held are of 2026-04-13/);
      } finally {
        clock.today = () => day("2026-04-15");
      }
    });

    it("answers amount 1 by default at the latest rates", async () => {
      const res = await get("/v1/calculators/currency-convert?from=usd&to=eur");
      assert.equal(res.body.data.amount, 1);
      assert.equal(res.body.data.rate_date, "2026-04-13");
      assert.equal(res.body.data.requested_date, "latest");
      assert.equal(res.body.data.note, undefined);
    });
  });

  describe("refuses bad input with 400 naming the parameter", () => {
    before(() => {
      clock.today = () => day("2026-04-15");
    });
    const cases: [string, string, RegExp][] = [
      ["/v1/calculators/uk-business-days", "date", /date is required/],
      ["/v1/calculators/uk-business-days?date=25-12-2025", "date", /YYYY-MM-DD/],
      ["/v1/calculators/uk-business-days?date=1999-12-25", "date", /from 2008-01-01 to 2099-12-31/],
      ["/v1/calculators/uk-business-days?date=2025-12-25&add=1.5", "add", /whole number/],
      ["/v1/calculators/uk-business-days?date=2025-12-25&add=3000", "add", /-2500 to 2500/],
      ["/v1/calculators/uk-business-days?date=2099-12-01&add=100", "add", /2008 to 2099/],
      ["/v1/calculators/uk-business-days?date=2025-12-25&until=tomorrow", "until", /YYYY-MM-DD/],
      ["/v1/calculators/uk-business-days?date=2025-12-25&until=2100-01-04", "until", /from 2008-01-01 to 2099-12-31/],
      ["/v1/calculators/uk-business-days?date=2025-12-25&nation=wales", "nation", /england-and-wales, scotland, northern-ireland/],
      ["/v1/calculators/postcode-distance?to=SW1A%201AA", "from", /from is required/],
      ["/v1/calculators/postcode-distance?from=SW1A%201AA&to=SW1A", "to", /UK postcode/],
      ["/v1/calculators/postcode-distance?from=XX&to=SW1A%201AA", "from", /UK postcode/],
      ["/v1/calculators/currency-convert?to=USD", "from", /from is required/],
      ["/v1/calculators/currency-convert?from=GBP", "to", /to is required/],
      ["/v1/calculators/currency-convert?from=POUND&to=USD", "from", /one of EUR, AUD/],
      ["/v1/calculators/currency-convert?from=GBP&to=USD&amount=ten", "amount", /a number/],
      ["/v1/calculators/currency-convert?from=GBP&to=USD&amount=-5", "amount", /from 0/],
      ["/v1/calculators/currency-convert?from=GBP&to=USD&date=2025-12-01", "date", /from 2026-01-15 to 2026-04-15/],
      ["/v1/calculators/currency-convert?from=GBP&to=USD&date=2026-04-16", "date", /to 2026-04-15/],
      ["/v1/calculators/currency-convert?from=GBP&to=BGN", "to", /currencies with an ECB reference rate on 2026-04-13/],
    ];
    for (const [url, param, detail] of cases) {
      it(url.replace("/v1/calculators/", ""), async () => {
        const res = await get(url);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.param, param);
        assert.match(res.body.detail, detail);
      });
    }
  });
});
