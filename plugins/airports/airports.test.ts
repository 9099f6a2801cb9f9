// The airports group on the OurAirports test extract (plugins/airports/fixtures/airports): lookups, the CSV's quirks,
// spatial queries, postcodes, refusals, and the dataset's own checks against truncated files.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import { datasetCopy, fixture, freeAccess, getJson, tempDir, useTestServer } from "../../test/support/helpers.ts";
import { boxesAround, distanceKm } from "../shared/geo.ts";
import type { Running } from "../../engine/http/server.ts";

const AIRPORTS = datasetCopy("airports");
const POSTCODES = "https://api.postcodes.io";

describe("airports", () => {
  let server: Running;
  const get = (pathAndQuery: string) => getJson(`${server.url}/v1/airports/${pathAndQuery}`);

  useTestServer({ access: freeAccess }, (s) => (server = s));

  it("answers 503 with how to load the dataset before it is loaded", async () => {
    const res = await get("airport?code=EGLL");
    assert.equal(res.status, 503);
    assert.equal(res.body.code, "dataset_not_loaded");
    assert.match(res.body.detail, /npm run sync -- airports/);
  });

  describe("with the test extract loaded", () => {
    before(async () => {
      await server.engine.datasets.loadTestDatasets(["airports"]);
    });

    it("records what was loaded: every file and its row count", () => {
      const v = server.engine.datasets.use("airports").version;
      assert.deepEqual(v.counts, { airports: 18, runways: 36, frequencies: 73, countries: 3, regions: 6, navaids: 5 });
      assert.deepEqual(v.sources.map((s) => s.file), ["airports.csv", "runways.csv", "airport-frequencies.csv", "countries.csv", "regions.csv", "navaids.csv"]);
    });

    it("finds an airport by ICAO, IATA, OurAirports ident or GPS code, in any case", async () => {
      for (const [code, ident, by] of [["egll", "EGLL", "icao"], ["LGW", "EGKK", "iata"], ["GB-0988", "GB-0988", "ident"], ["EGDO", "EGDO", "ident"]]) {
        const res = await get(`airport?code=${code}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.data.ident, ident);
        assert.equal(res.body.data.matched_by, by);
      }
    });

    it("keeps quoted commas inside fields and gives empty fields as null", async () => {
      const scilly = (await get("airport?code=ISC")).body.data;
      assert.equal(scilly.town, "St. Mary's, Isles of Scilly");
      assert.equal(scilly.local_code, null);
      const kjfk = (await get("airport?code=JFK")).body.data;
      assert.deepEqual(kjfk.keywords, ["Manhattan", "New York City", "NYC", "Idlewild", "IDL", "KIDL"]);
      const strip = (await get("airport?code=GB-0988")).body.data;
      assert.equal(strip.town, null);
      assert.equal(strip.elevation_ft, null);
      assert.equal(strip.elevation_m, null);
      assert.equal(strip.iata, null);
    });

    it("prefers the open airport to a closed one, and marks closed airports", async () => {
      const open = (await get("airport?code=EGHK")).body.data;
      assert.equal(open.ident, "GB-1327");
      assert.equal(open.type, "heliport");
      const closed = (await get("airport?code=GB-0641")).body.data;
      assert.equal(closed.name, "RAF St Eval");
      assert.equal(closed.type, "closed");
    });

    it("gives runways with both ends, and frequencies by kind", async () => {
      const rw = (await get("runways?code=EGLL")).body.data;
      assert.deepEqual(rw.runways.map((r: { ident: string }) => r.ident), ["09L/27R", "09R/27L"]);
      assert.deepEqual(rw.runways[0].ends.map((e: { ident: string; heading_deg_true: number; displaced_threshold_ft: number }) => [e.ident, e.heading_deg_true, e.displaced_threshold_ft]), [["09L", 90, 1007], ["27R", 270, null]]);
      assert.equal(rw.runways[0].length_m, 3901);
      const fq = (await get("frequencies?code=EGLL")).body.data;
      assert.deepEqual(fq.by_type.TWR, [118.5, 118.7, 124.475]);
      assert.deepEqual(fq.by_type.ATIS, [113.75, 115.1, 121.935, 128.075]);
    });

    it("says on every endpoint that the data is not for navigation", async () => {
      nock(POSTCODES).get("/postcodes/TR18%205EG").reply(200, fixture("uk-postcodes:TR18-5EG.json"));
      for (const q of ["airport?code=EGLL", "runways?code=EGLL", "frequencies?code=EGLL", "country?country=GB", "near?postcode=TR185EG",
        "search?q=london", "navaids?code=EGHQ"]) {
        const res = await get(q);
        assert.equal(res.status, 200, `${q}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.meta.disclaimers.join(" "), /not for navigation/, q);
        assert.equal(res.body.meta.sources.at(-1).url, "https://davidmegginson.github.io/ourairports-data/airports.csv");
      }
    });

    describe("near", () => {
      it("finds airports nearest first within the radius, with the types asked for", async () => {
        const res = await get("near?lat=50.1&lng=-5.5&radius_km=30&type=heliport,closed");
        const idents = res.body.data.airports.map((a: { ident: string }) => a.ident);
        assert.deepEqual(idents, ["GB-1233", "GB-1327"]);
        const d = res.body.data.airports.map((a: { distance_km: number }) => a.distance_km);
        assert.ok(d[0] <= d[1]);
        const all = await get("near?lat=50.1&lng=-5.5&radius_km=30&limit=2");
        assert.equal(all.body.data.count, 2);
        assert.ok(all.body.data.airports.every((a: { type: string }) => ["large", "medium", "small"].includes(a.type)));
      });

      it("answers 404 for a postcode postcodes.io does not know, 400 for one that is not a postcode, 502 when postcodes.io fails", async () => {
        nock(POSTCODES).get("/postcodes/ZZ1%201ZZ").reply(404, fixture("uk-postcodes:not-found.json"));
        const unknown = await get("near?postcode=ZZ1%201ZZ");
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.param, "postcode");
        const invalid = await get("near?postcode=NOT-A-POSTCODE");
        assert.equal(invalid.status, 400);
        assert.equal(invalid.body.param, "postcode");
        nock(POSTCODES).get("/postcodes/TR18%205EG").times(2).reply(500, "oops");
        const failed = await get("near?postcode=TR18%205EG");
        assert.equal(failed.status, 502);
      });

      it("refuses a point and a postcode together, and half a point", async () => {
        assert.equal((await get("near?lat=50&lng=-5&postcode=TR18%205EG")).body.param, "postcode");
        const half = await get("near?lat=50");
        assert.equal(half.status, 400);
        assert.equal(half.body.param, "lng");
      });

      it("reads the airports through the R*Tree, not a scan of the table", () => {
        const { db } = server.engine.datasets.use("airports");
        const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT a.id FROM airports a JOIN airports_geo g ON g.id = a.id
          WHERE g.min_lat >= 1 AND g.max_lat <= 2 AND g.min_lng >= 1 AND g.max_lng <= 2`).all().map((r) => String(r.detail));
        assert.ok(plan.some((d) => /VIRTUAL TABLE INDEX/.test(d)), plan.join("; "));
        assert.ok(!plan.some((d) => /^SCAN a\b/.test(d)), plan.join("; "));
      });
    });

    it("describes a country: counts by type, large airports, regions; 404 for an unknown one", async () => {
      const ie = (await get("country?country=ie")).body.data;
      assert.equal(ie.country.name, "Ireland");
      assert.deepEqual(ie.counts_by_type, { large: 1 });
      assert.deepEqual(ie.regions, [{ code: "IE-D", local_code: "D", name: "County Dublin", airports: 1 }]);
      const zz = await get("country?country=ZZ");
      assert.equal(zz.status, 404);
      assert.equal(zz.body.param, "country");
    });

    it("searches by word prefixes of name, town and keywords, with filters", async () => {
      assert.deepEqual((await get("search?q=heath%20lon")).body.data.airports.map((a: { ident: string }) => a.ident), ["EGLL"]);
      assert.deepEqual((await get("search?q=idlewild")).body.data.airports.map((a: { ident: string }) => a.ident), ["KJFK"]);
      assert.equal((await get("search?q=london&country=IE")).body.data.count, 0);
      const punct = await get("search?q=--");
      assert.equal(punct.status, 400);
      assert.equal(punct.body.param, "q");
    });

    it("finds navaids near an airport or a point, and refuses both at once", async () => {
      const res = (await get("navaids?code=EGHE&radius_km=10")).body.data;
      assert.deepEqual(res.navaids.map((n: { ident: string; frequency_khz: number }) => [n.ident, n.frequency_khz]), [["STM", 321]]);
      const both = await get("navaids?code=EGHE&lat=50&lng=-5");
      assert.equal(both.status, 400);
      assert.equal((await get("navaids?code=NOPE")).status, 404);
    });
  });

  describe("the dataset refuses broken files and keeps the loaded version", () => {
    function brokenCopy(file: string, edit: (text: string) => string): string {
      const dir = tempDir("pda-airports-");
      for (const f of fs.readdirSync(AIRPORTS).filter((f) => f.endsWith(".csv"))) fs.copyFileSync(path.join(AIRPORTS, f), path.join(dir, f));
      fs.writeFileSync(path.join(dir, file), edit(fs.readFileSync(path.join(AIRPORTS, file), "utf8")));
      return dir;
    }
    const quiet = { phase() {}, tick() {}, log() {}, done() {} };

    it("a file cut in the middle of a row", async () => {
      const from = brokenCopy("runways.csv", (t) => t.slice(0, Math.floor(t.length / 2)));
      await assert.rejects(server.engine.datasets.sync("airports", { from, progress: quiet }), /runways\.csv is not well-formed CSV, perhaps cut short .*stays in use/);
    });

    it("an airports.csv cut at a line end, which runways and frequencies point past", async () => {
      const from = brokenCopy("airports.csv", (t) => t.split("\n").slice(0, 8).join("\n") + "\n");
      await assert.rejects(server.engine.datasets.sync("airports", { from, progress: quiet }), /refer to airports missing from airports\.csv; it looks truncated/);
    });

    it("a file that is not in the OurAirports format", async () => {
      const from = brokenCopy("navaids.csv", () => "ident,name\nLND,Lands End\n");
      await assert.rejects(server.engine.datasets.sync("airports", { from, progress: quiet }), /navaids\.csv lacks the columns id, type/);
      assert.equal(server.engine.datasets.use("airports").version.counts.airports, 18);
    });
  });

  it("measures distances and antimeridian boxes correctly", () => {
    assert.equal(Math.round(distanceKm({ lat: 51.470748, lng: -0.459909 }, { lat: 40.639447, lng: -73.779317 })), 5540);
    assert.deepEqual(boxesAround({ lat: -17, lng: 179.9 }, 50).map((b) => [Math.sign(b.minLng), b.maxLng]), [[1, 180], [-1, boxesAround({ lat: -17, lng: 179.9 }, 50)[1].maxLng]]);
    assert.ok(boxesAround({ lat: -17, lng: 179.9 }, 50)[1].maxLng < -179);
  });
});
