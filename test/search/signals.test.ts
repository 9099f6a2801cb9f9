// What search reads in a query beyond its words: the values it carries, the places and currencies it names.
import assert from "node:assert/strict";
import { currenciesIn, currencyNameTerms, currencyPair } from "../../engine/search/currencies.ts";
import { citiesIn, countriesNamed, coverage, placesIn } from "../../engine/search/places.ts";
import { terms } from "../../engine/search/text.ts";
import { namedParams, readValues } from "../../engine/search/values.ts";

const kinds = (q: string) => [...readValues(q).kinds].sort();
const places = (q: string) => [...placesIn(q, terms(q))].sort();
const currencies = (q: string) => [...currenciesIn(q, terms(q))].sort();

describe("query signals", () => {
  it("finds the values a query carries, each once, and keeps identifiers out of the search words", () => {
    assert.deepEqual(kinds("decode 1HGCM82633A004352"), ["vin"]);
    assert.deepEqual(kinds("is 490154203237518 valid"), ["imei"]);
    assert.deepEqual(kinds("check GB82WEST12345698765432"), ["iban"]);
    assert.deepEqual(kinds("crimes near SW1A 1AA"), ["postcode"]);
    assert.deepEqual(kinds("postcodes near 51.5, -0.12"), ["coordinates"]);
    assert.deepEqual(kinds("when does bbc.co.uk expire"), ["domain"]);
    assert.deepEqual(kinds("MX records of example.me"), ["domain"]);
    assert.deepEqual(kinds("holidays in Spain in 2026"), ["year"]);
    // A year inside an id ("document 2024-12345") is no year to list.
    assert.deepEqual(kinds("Federal Register document 2024-12345"), []);
    assert.deepEqual(kinds("working days between 1 March and 30 June"), ["date", "period"]);
    assert.deepEqual(kinds("what's £75 in dollars"), ["amount"]);
    assert.equal(readValues("when does bbc.co.uk expire").rest.includes("uk"), false);
    assert.deepEqual(readValues("postcodes near 51.5, -0.12").point, { lat: 51.5, lng: -0.12 });
    assert.deepEqual(kinds("inflation in the UK"), []);
  });

  it("reads a time of day as a time to convert, and says 'time' for it", () => {
    assert.deepEqual(kinds("what is 9am Los Angeles in London").filter((k) => k !== "place"), ["clock"]);
    assert.deepEqual(kinds("convert 14:30 to UTC"), ["clock"]);
    assert.match(readValues("what is 9am Los Angeles").rest, /\btime\b/);
    assert.deepEqual(kinds("the 10 year yield"), []);
  });

  it("reads two postcodes as a pair, and keeps every identifier out of the search words", () => {
    const v = readValues("how far is it from B1 1AA to LS1 1UR");
    assert.deepEqual([...v.kinds].sort(), ["pair:postcode", "postcode"]);
    assert.deepEqual(v.identifiers.get("postcode"), ["B1 1AA", "LS1 1UR"]);
    // Three are a list to look up, not a pair to measure between.
    assert.deepEqual(kinds("look up B1 1AA, LS1 1UR and CF10 1EP"), ["postcode"]);
    assert.doesNotMatch(v.rest, /\d/);
  });

  it("reads 'from' one named place 'to' another as a route, which says 'journey'", () => {
    const v = readValues("how do I get from King's Cross to Canary Wharf by tube");
    assert.ok(v.kinds.has("route"));
    assert.match(v.rest, /\bjourney\b/);
    assert.ok(readValues("how do I get to Wembley Stadium from Euston").kinds.has("route"));
    assert.ok(!readValues("rates from 2020 to 2024").kinds.has("route"));
  });

  it("reads a company number said as one, and a holiday's name as a date", () => {
    assert.deepEqual(kinds("list filings of company 08888888"), ["company"]);
    assert.deepEqual(kinds("company number SC123456 accounts"), ["company"]);
    assert.deepEqual(kinds("company profile 00000006"), ["company"]);
    assert.deepEqual(kinds("is Boxing Day a bank holiday"), ["date"]);
  });

  it("names the kind of each identifier carried, as a word to search a little for", () => {
    assert.deepEqual(readValues("where is my server 104.16.132.229").kindWords, ["ip address"]);
    assert.deepEqual(readValues("look up SW1A 1AA").kindWords, ["postcode"]);
  });

  it("reads an international phone number, a part of a law, and a Dutch VAT number", () => {
    assert.deepEqual(kinds("check +33 1 42 68 53 00"), ["phone"]);
    assert.deepEqual(kinds("text of section 21 of the Housing Act"), ["section"]);
    assert.deepEqual(kinds("VIES check for NL123456789B01"), ["vat"]);
  });

  it("reads a national phone number in its groups, and tomorrow as a date", () => {
    assert.deepEqual(kinds("is 020 7946 0018 a real number"), ["phone"]);
    assert.deepEqual(kinds("who owns (415) 555-2671"), ["phone"]);
    assert.deepEqual(kinds("is tomorrow a holiday"), ["date"]);
  });

  it("reads an IANA zone, and the time in an ISO date-time", () => {
    assert.deepEqual(kinds("convert 2026-07-01T09:00 from Europe/Paris to America/Chicago"), ["clock", "date", "pair:zone", "zone"]);
  });

  it("reads arXiv identifiers, new and old style", () => {
    assert.deepEqual(kinds("arXiv 2301.07041 abstract"), ["arxiv"]);
    assert.deepEqual(kinds("abstract of hep-th/9901001"), ["arxiv"]);
  });

  it("reads an ONS code as the kind of area its first three characters name", () => {
    assert.deepEqual(kinds("what is ONS code E06000023"), ["gss"]);
    assert.match(readValues("what is ONS code E06000023").rest, /\bE06\b/);
  });

  it("names a city only capitalised, for endpoints that take its time zone", () => {
    const city = (q: string) => citiesIn(q, terms(q));
    assert.equal(city("what time is it in Tokyo"), true);
    assert.equal(city("9am in Los Angeles"), true);
    assert.equal(city("capital city of Kenya"), false);
  });

  it("reads a town named after 'in' as a place without a postcode, but not a month", () => {
    assert.ok(readValues("secondary schools in Leeds").kinds.has("place"));
    assert.ok(!readValues("votes in March 2024").kinds.has("place"));
  });

  it("finds identifier parameters given by name with a value", () => {
    const names = new Set(["cik", "member_id", "id", "from"]);
    assert.deepEqual([...namedParams("tickers for CIK 789019", names)], ["cik"]);
    assert.deepEqual([...namedParams("votes of member id 172", names)], ["member_id"]);
    assert.deepEqual([...namedParams("rates from 2020", names)], []);
    assert.deepEqual([...namedParams("food hygiene for FHRS 654321", new Set(["fhrs_id"]))], ["fhrs_id"]);
  });

  it("names countries by country, city or US state, and a word the files use only when capitalised", () => {
    assert.deepEqual(places("weather in Tokyo"), ["JP"]);
    assert.deepEqual(places("alerts in Oklahoma"), ["US"]);
    // Large cities the time zone database does not name as a zone's main city.
    assert.deepEqual(places("rain in Seattle"), ["US"]);
    assert.deepEqual(places("schools in Leeds"), ["GB"]);
    assert.deepEqual(places("flood warnings in England"), ["GB"]);
    assert.deepEqual(places("US national debt"), ["US"]);
    assert.deepEqual(places("tell us the rate"), []);
    // A group of countries named as one is its members, several countries to compare.
    assert.deepEqual(places("unemployment across the G7"), ["CA", "DE", "FR", "GB", "IT", "JP", "US"]);
    assert.equal(countriesNamed(terms("BRICS GDP")), 5);
    // A currency's name is no place: "US dollar" asks nothing of the United States.
    const q = "euro to US dollar rate history";
    const t = terms(q);
    assert.deepEqual([...placesIn(q, t.filter((x) => !currencyNameTerms(t).has(x)))], []);
    assert.deepEqual([...placesIn("reading the page", terms("reading the page"), (t) => t === "read")], []);
  });

  it("reads a group's countries from the countries it declares, else from its title", () => {
    const group = (title: string, covers?: string[]) => ({ name: "g", title, description: "", keywords: [], covers, disclaimers: [], endpoints: [], questions: [] });
    assert.deepEqual([...coverage(group("US weather (National Weather Service)"), terms)], ["US"]);
    assert.deepEqual([...coverage(group("Bathing water quality (Environment Agency)"), terms)], []);
    assert.deepEqual([...coverage(group("Bathing water quality (Environment Agency)", ["GB"]), terms)], ["GB"]);
  });

  it("names currencies by code, symbol or name, a qualified name over its last word", () => {
    assert.deepEqual(currencies("convert CAD to AUD"), ["AUD", "CAD"]);
    assert.deepEqual(currencies("500 Swiss francs in US dollars"), ["CHF", "USD"]);
    assert.deepEqual(currencies("pound to Canadian dollar"), ["CAD", "GBP"]);
    assert.deepEqual(currencies("£200 in euros"), ["EUR", "GBP"]);
    assert.deepEqual(currencies("try the rate"), []);
    assert.deepEqual(currencies("pound against the Aussie dollar"), ["AUD", "GBP"]);
    assert.deepEqual([...currencyPair("gbp-usd")!].sort(), ["GBP", "USD"]);
    assert.equal(currencyPair("bank-rate"), undefined);
  });
});
