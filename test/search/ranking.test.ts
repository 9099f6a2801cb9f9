// The search_apis ranking on the real endpoint files: what an agent types finds the right endpoint, and the
// labelled query set (endpoints/<group>/search-queries.json) stays above a quality floor, so a ranking regression
// fails here.
import assert from "node:assert/strict";
import path from "node:path";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { createSearchIndex } from "../../engine/search/index.ts";
import { labelledQuestions, measureUnseen, setOf } from "../../engine/search/quality.ts";
import { terms } from "../../engine/search/text.ts";
import { ROOT } from "../support/helpers.ts";

const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
const index = createSearchIndex(registry.endpoints.values());
/**
 * The labelled questions by set (endpoints/<group>/search-queries.json, docs/search.md) and the floor each keeps when
 * measured by an index that learnt from every other set and never from it: what it reached when the floor was set.
 */
const SETS = [
  { set: "tuning", floor: { top1: 0.955, top3: 0.995 }, what: "written with the endpoint files" },
  { set: "held-out", floor: { top1: 0.985, top3: 0.995 }, what: "held out in round one" },
  { set: "held-out-late", floor: { top1: 0.97, top3: 0.99 }, what: "written late in round one" },
  { set: "blind-round-2", floor: { top1: 0.965, top3: 0.995 }, what: "written blind, 89.6% / 97.2% when measured once" },
  { set: "blind-round-3", floor: { top1: 0.975, top3: 0.995 }, what: "written blind, 93.4% / 99.0% when measured once" },
  { set: "blind-round-4", floor: { top1: 0.975, top3: 0.99 }, what: "written blind, 93.0% / 98.1% when measured once" },
  { set: "blind-round-5", floor: { top1: 0.965, top3: 0.99 }, what: "written blind, 92.6% / 98.6% when measured once" },
  { set: "blind-round-6", floor: { top1: 0.975, top3: 0.995 }, what: "written blind, 94.6% / 98.7% when measured once" },
  { set: "blind-round-7", floor: { top1: 0.965, top3: 0.995 }, what: "written blind, 93.9% / 99.5% when measured once" },
  { set: "blind-round-8", floor: { top1: 0.945, top3: 0.99 }, what: "written blind, 90.0% / 98.1% when measured once" },
  { set: "blind-round-9", floor: { top1: 0.965, top3: 0.99 }, what: "written blind, 92.8% / 98.0% when measured once" },
  { set: "blind-round-10", floor: { top1: 0.965, top3: 0.995 }, what: "written blind, 97.2% / 99.7% when measured once, after learning" },
  { set: "blind-round-11", floor: { top1: 0.965, top3: 0.995 }, what: "written blind, 97.1% / 99.8% when measured once, after learning" },
];
const top = (query: string, opts = {}) => index.search(query, opts).map((h) => h.endpoint.toolName);

describe("search index", () => {
  describe("terms", () => {
    it("makes one term of a word's forms, and of number words and digits", () => {
      assert.deepEqual(terms("rates rated rating").slice(0, 3), ["rat", "rat", "rat"]);
      assert.deepEqual(terms("five-year gilts"), terms("5y gilt"));
      assert.deepEqual(terms("ten year"), terms("10-year"));
    });

    it("keeps a country apart from a currency, and a day's forms together", () => {
      assert.notDeepEqual(terms("France"), terms("franc"));
      assert.deepEqual(terms("francs"), terms("franc"));
      assert.deepEqual(terms("priced pricing prices"), ["price", "price", "price", "price~price", "price~price"]);
      assert.deepEqual(terms("days holidays").slice(0, 2), terms("day holiday").slice(0, 2));
    });

    it("keeps a check digit though 'check' is a stop word", () => {
      assert.deepEqual(terms("check digits"), terms("checksum"));
      assert.deepEqual(terms("check the rate"), terms("rate"));
    });

    it("keeps 'lately' and 'late' apart from lat, the latitude", () => {
      assert.deepEqual(terms("lately"), terms("recent"));
      assert.ok(!terms("late payment").includes("lat"));
    });

    it("keeps US the country and drops us the pronoun", () => {
      assert.ok(terms("US sanctions").includes("usa"));
      assert.ok(!terms("tell us the rate").includes("usa"));
    });
  });

  describe("ranking", () => {
    it("finds an endpoint from an agent's own words", () => {
      assert.equal(top("what is the UK base rate")[0], "bank-of-england__bank-rate");
      assert.equal(top("pound to dollar exchange rate")[0], "bank-of-england__gbp-usd");
      assert.equal(top("UK inflation")[0], "uk-economy__cpi-annual-rate");
    });

    it("tells converting an amount from a rate series, and counting working days from dates", () => {
      assert.equal(top("convert 250 US dollars to euros")[0], "calculators__currency-convert");
      assert.equal(top("working days between 1 March and 30 April")[0], "calculators__uk-business-days");
    });

    it("matches parameter names", () => {
      const [first] = index.search("term_years lease_start");
      assert.equal(first.endpoint.toolName, "uk-property__lease-length");
    });

    it("forgives a misspelt word", () => {
      assert.match(top("mortage rates")[0], /^bank-of-england__mortgage-/);
    });

    it("puts an endpoint named outright first", () => {
      assert.equal(top("bank-of-england__gbp-chf")[0], "bank-of-england__gbp-chf");
      assert.equal(top("uk-economy/series")[0], "uk-economy__series");
    });

    it("keeps to a group and a limit, best first", () => {
      const hits = index.search("rate", { group: "uk-economy", limit: 3 });
      assert.equal(hits.length, 3);
      for (const h of hits) assert.equal(h.endpoint.group, "uk-economy");
      assert.deepEqual(hits.map((h) => h.score), [...hits.map((h) => h.score)].sort((a, b) => b - a));
    });

    it("tells the right source from the words around the topic (the failures issue 27 names)", () => {
      // A city outside the United States is not for the US weather service.
      assert.equal(top("7-day weather forecast for Nairobi")[0], "global-weather__forecast");
      // A named drug is a drug's adverse events, not food's.
      assert.equal(top("side effects reported for simvastatin")[0], "openfda__drug-adverse-events");
      // CPI is not CPIH.
      assert.ok(!top("CPI")[0].includes("cpih"), top("CPI")[0]);
      // Two currencies other than sterling are converted, not read off a sterling rate.
      assert.equal(top("convert 40 Swiss francs to Swedish krona")[0], "calculators__currency-convert");
      // A full 17-character VIN is decoded whole, not by its manufacturer code.
      assert.equal(top("decode vehicle 3FAHP0HA7AR123456")[0], "us-vehicle-decoding__decode");
      // Years of history want the series, not the latest value.
      assert.equal(top("Japan GDP per capita for the past 25 years")[0], "world-indicators__series");
      // A country's holidays in a year are the year's list, not the check of one date.
      assert.equal(top("Christmas and other holidays in Norway in 2027")[0], "public-holidays__holidays");
      // Schools by kind in a town are a search, not the schools near a postcode.
      assert.equal(top("primary schools in Norwich")[0], "schools__search");
    });

    it("reads what values say: a time of day, an ONS code's kind, two postcodes, an identifier asked for by name", () => {
      assert.equal(top("what is 9am Los Angeles in London")[0], "time-zones__convert");
      assert.equal(top("what is ONS code E06000023")[0], "uk-geography__local-authority");
      assert.equal(top("how far is it from B1 1AA to LS1 1UR")[0], "calculators__postcode-distance");
      assert.equal(top("how do I get from King's Cross to Canary Wharf by tube")[0], "london-transport__journey");
      // A value alone still finds the endpoints for its kind.
      assert.match(top("look up SW1A 1AA")[0], /^uk-postcodes__/);
      assert.equal(top("list filings of company 08888888")[0], "companies-house__filing-history");
      // A place's name that begins a name the files know is that thing: the Victoria line is no city.
      assert.equal(top("is the Victoria line delayed")[0], "london-transport__line-status");
      assert.equal(top("how do I get to Wembley Stadium from Euston")[0], "london-transport__journey");
      // One value is for an endpoint that takes one, not a list.
      assert.equal(top("postcode lookup CF10 1EP")[0], "uk-postcodes__lookup");
      assert.equal(top("World Bank indicator code for life expectancy")[0], "world-indicators__search-indicators");
      // A currency's name is no place: the ECB's euro-dollar history is not a US source's.
      assert.equal(top("ECB euro to US dollar reference rate history")[0], "euro-area-rates__series");
    });

    it("reads a list of values or countries, a span of years or observations, a route, a thing named by name", () => {
      // Three postcodes "in one go" are a bulk lookup, not a journey between two of them.
      assert.equal(top("look up B1 1AA, LS1 1UR and CF10 1EP in one go")[0], "uk-postcodes__bulk");
      assert.equal(top("Japan inflation 1990-2020")[0], "world-indicators__series");
      assert.equal(top("euro to dollar reference rate, the last 30 daily observations")[0], "euro-area-rates__series");
      // From one named place to another is a journey: the places are its values, not a stop to search for.
      assert.equal(top("what is the best way from King's Cross to Gatwick Airport")[0], "london-transport__journey");
      // Several countries are compared by the endpoint that takes several.
      assert.equal(top("life expectancy in Chile, Peru and Bolivia (World Bank)")[0], "world-indicators__compare");
      // A school named by name, with no URN, is found by a search, not looked up by id.
      assert.equal(top("Ofsted rating for Dixons Trinity Academy")[0], "schools__search");
    });

    it("weighs sources and siblings by what the question names (round five)", () => {
      // A US city's forecast is the National Weather Service's, the country's own source for global weather's task.
      assert.equal(top("forecast for Denver this weekend")[0], "us-weather__forecast");
      // A named drug is asked of drug endpoints, never food ones.
      assert.equal(top("FDA recall notices for atorvastatin contamination")[0], "openfda__drug-recalls");
      // One country is the one-country endpoint's, not the list's.
      assert.equal(top("income group of Kenya")[0], "world-indicators__country");
      // Two zones are a conversion; an amount in named currencies is one too.
      assert.equal(top("what time is 14:00 America/Chicago in Europe/Madrid")[0], "time-zones__convert");
      assert.equal(top("what is 300 CHF in Swedish kronor")[0], "calculators__currency-convert");
      // Plain words for going bust and for a site's age.
      assert.equal(top("has the builder's company 01234567 gone bust")[0], "companies-house__insolvency");
      assert.equal(top("how long has example.org existed")[0], "domains__facts");
      // A saint's name is no place: St Mary's is a school's name, not Mary in Turkmenistan.
      assert.equal(top("a school called St Mary's in Cornwall")[0], "schools__search");
      // "about" beside a postcode is no topic to search for.
      assert.equal(top("flooding worries at my home, postcode TA7 0AA")[0], "uk-floods__warnings-for-postcode");
    });

    it("finds nothing for words no endpoint uses", () => {
      assert.deepEqual(index.search("zxqv wplk"), []);
    });
  });

  describe("quality on the labelled questions", () => {
    const questions = labelledQuestions(registry);
    const endpoints = [...registry.endpoints.values()];

    /** Endpoints that need no questions of their own, each with the reason. None today. */
    const EXEMPT: Record<string, string> = {};

    it("asks at least 3 questions of every endpoint", () => {
      const asked = new Map<string, number>();
      for (const q of questions) asked.set(q.tool, (asked.get(q.tool) ?? 0) + 1);
      const short = endpoints
        .filter((e) => !(e.toolName in EXEMPT) && (asked.get(e.toolName) ?? 0) < 3)
        .map((e) => `${e.toolName} (${asked.get(e.toolName) ?? 0})`);
      assert.deepEqual(short, [], `endpoints with fewer than 3 questions in endpoints/<group>/search-queries.json: ${short.join(", ")}`);
    });

    it("knows every set it keeps a floor for, and no set without one", () => {
      assert.deepEqual([...new Set(questions.map(setOf))].sort(), SETS.map((s) => s.set).sort());
    });

    for (const { set, floor, what } of SETS) {
      it(`${set} (${what}), by an index that never learnt from it: the expected tool first for at least ${floor.top1 * 100}%, in the top 3 for ${floor.top3 * 100}%`, () => {
        const q = measureUnseen(endpoints, questions, set);
        const misses = q.misses.map((m) => `"${m.query}" wants ${m.expected}, got ${m.got.join(", ")}`).join("\n  ");
        assert.ok(q.ran >= 100, `${q.ran} questions`);
        assert.ok(q.top3 >= floor.top3, `top-3 ${q.top3.toFixed(3)} over ${q.ran} questions; not in the top 3:\n  ${misses}`);
        assert.ok(q.top1 >= floor.top1, `top-1 ${q.top1.toFixed(3)} over ${q.ran} questions`);
      });
    }
  });
});
