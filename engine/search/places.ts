// Places: the countries a query names (by country, city or US state) and the countries a group covers (the place
// its title names before any parenthesis: "US weather (National Weather Service)" covers the United States,
// "Schools in England (...)" Great Britain). A group that covers other countries than the ones asked about is
// the wrong source ("weather in Tokyo" is not for the US weather service); a national source for a place it
// covers beats a worldwide one.
import { getTimeZones } from "@vvo/tzdb";
import { stem, words } from "./text.ts";
import type { Group } from "../endpoints/model.ts";

const asTerm = (phrase: string) => words(phrase).map(stem).join("~");

const EU = "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE".split(" ");
const EURO_AREA = "AT BE HR CY EE FI FR DE GR IE IT LV LT LU MT NL PT SK SI ES".split(" ");

/** Names that stand for a region in a group's title or a query, beyond the countries' own names. */
const REGIONS: Record<string, string[]> = {
  usa: ["US"], "united states": ["US"],
  uk: ["GB"], britain: ["GB"], "great britain": ["GB"], "united kingdom": ["GB"], england: ["GB"], scotland: ["GB"], wales: ["GB"], "northern ireland": ["GB"], london: ["GB"],
  eu: EU, european: EU, "euro area": EURO_AREA, "euro-area": EURO_AREA, eurozone: EURO_AREA,
};

const US_STATES = (
  "Alabama, Alaska, Arizona, Arkansas, California, Colorado, Connecticut, Delaware, Florida, Georgia, Hawaii, Idaho, " +
  "Illinois, Indiana, Iowa, Kansas, Kentucky, Louisiana, Maine, Maryland, Massachusetts, Michigan, Minnesota, " +
  "Mississippi, Missouri, Montana, Nebraska, Nevada, New Hampshire, New Jersey, New Mexico, New York, North Carolina, " +
  "North Dakota, Ohio, Oklahoma, Oregon, Pennsylvania, Rhode Island, South Carolina, South Dakota, Tennessee, Texas, " +
  "Utah, Vermont, Virginia, Washington, West Virginia, Wisconsin, Wyoming"
).split(", ");

/** Large US cities the time zone database does not name as a zone's main city. */
const US_CITIES = (
  "Seattle, Miami, Boston, Atlanta, Austin, Portland, Las Vegas, Orlando, Nashville, New Orleans, Minneapolis, " +
  "Detroit, Baltimore, Pittsburgh, Cleveland, Cincinnati, St Louis, Kansas City, Salt Lake City, Sacramento, " +
  "San Jose, San Antonio, Charlotte, Tampa, Key West, Memphis, Milwaukee, Oklahoma City, Albuquerque, Tucson, " +
  "Raleigh, Buffalo, Boise, Omaha, Fort Worth, Jacksonville, Columbus"
).split(", ");

/** Large UK cities beside the zone's main ones. */
const UK_CITIES = (
  "Manchester, Leeds, Bristol, Sheffield, Edinburgh, Cardiff, Belfast, Newcastle, Nottingham, Leicester, Brighton, " +
  "Southampton, Portsmouth, Plymouth, Norwich, Coventry, Bradford, Aberdeen, Dundee, Swansea, Exeter, York, Oxford, Cambridge"
).split(", ");

/** Groups of countries named as one ("G7 countries", "the Nordics"): several countries to compare. */
const GROUPINGS: Record<string, string[]> = {
  g7: "CA FR DE IT JP GB US".split(" "),
  g20: "AR AU BR CA CN FR DE IN ID IT JP KR MX RU SA ZA TR GB US".split(" "),
  brics: "BR RU IN CN ZA".split(" "),
  nordic: "DK FI IS NO SE".split(" "), nordics: "DK FI IS NO SE".split(" "), scandinavia: "DK NO SE".split(" "),
  baltic: "EE LV LT".split(" "), benelux: "BE NL LU".split(" "),
  asean: "BN KH ID LA MY MM PH SG TH VN".split(" "),
};

/** The words for a country's people and things ("Irish VAT", "German GDP"), which name it as much as its name does. */
export const DEMONYMS: Record<string, string> = {
  american: "US", scottish: "GB", welsh: "GB", brits: "GB", irish: "IE", french: "FR",
  german: "DE", italian: "IT", spanish: "ES", portuguese: "PT", dutch: "NL", belgian: "BE", swiss: "CH", austrian: "AT",
  swedish: "SE", norwegian: "NO", danish: "DK", finnish: "FI", icelandic: "IS", polish: "PL", czech: "CZ",
  hungarian: "HU", greek: "GR", turkish: "TR", russian: "RU", ukrainian: "UA", chinese: "CN", japanese: "JP",
  korean: "KR", indian: "IN", pakistani: "PK", australian: "AU", canadian: "CA", mexican: "MX", brazilian: "BR",
  argentine: "AR", argentinian: "AR", chilean: "CL", colombian: "CO", peruvian: "PE", nigerian: "NG", kenyan: "KE",
  egyptian: "EG", israeli: "IL", saudi: "SA", vietnamese: "VN", thai: "TH", indonesian: "ID", filipino: "PH",
  singaporean: "SG", croatian: "HR", romanian: "RO", bulgarian: "BG", slovak: "SK", slovenian: "SI", estonian: "EE",
  latvian: "LV", lithuanian: "LT", luxembourgish: "LU", maltese: "MT", cypriot: "CY",
};

/** How many countries the terms name: a grouping ("G7") counts as its members. */
export const countriesNamed = (terms: string[]) => terms.reduce((n, t) => n + (GROUPINGS_BY_TERM.get(t)?.length ?? 0), 0);

/** search term (a stemmed word, or a pair "a~b") -> the countries it names */
const PLACES = new Map<string, Set<string>>();
const addPlace = (term: string, codes: string[]) => {
  const set = PLACES.get(term) ?? new Set<string>();
  for (const c of codes) set.add(c);
  PLACES.set(term, set);
};

const COUNTRIES = new Set<string>();
const display = new Intl.DisplayNames(["en"], { type: "region" });
for (const a of "ABCDEFGHIJKLMNOPQRSTUVWYZ") {
  for (const b of "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
    let name: string | undefined;
    try {
      name = display.of(a + b);
    } catch {
      continue;
    }
    const plain = name?.replace(/\s*\(.*\)$/, "").replace(/ SAR China$/, "");
    if (plain && plain !== a + b && !/[&.]/.test(plain)) {
      addPlace(asTerm(plain), [a + b]);
      COUNTRIES.add(asTerm(plain));
    }
  }
}
/** Cities that name a time zone or are a zone's main city ("Tokyo", "Los Angeles"). */
const CITIES = new Set<string>();
/** Places within a country: cities, US states, the UK's nations. */
const LOCALITIES = new Set<string>(["England", "Scotland", "Wales", "Northern Ireland", "London"].map(asTerm));
for (const zone of getTimeZones()) {
  for (const city of zone.mainCities) {
    addPlace(asTerm(city), [zone.countryCode]);
    LOCALITIES.add(asTerm(city));
    CITIES.add(asTerm(city));
  }
}
for (const [cities, country] of [[US_CITIES, "US"], [UK_CITIES, "GB"]] as const) {
  for (const city of cities) {
    addPlace(asTerm(city), [country]);
    LOCALITIES.add(asTerm(city));
  }
}
for (const state of US_STATES) {
  addPlace(asTerm(state), ["US"]);
  LOCALITIES.add(asTerm(state));
}
for (const [name, codes] of Object.entries(REGIONS)) addPlace(asTerm(name), codes);
for (const [demonym, code] of Object.entries(DEMONYMS)) addPlace(asTerm(demonym), [code]);
const GROUPINGS_BY_TERM = new Map(Object.entries(GROUPINGS).map(([name, codes]) => [asTerm(name), codes]));
for (const [term, codes] of GROUPINGS_BY_TERM) addPlace(term, codes);

/**
 * The countries a text names. A place whose name is also a word the endpoint files use otherwise ("Reading",
 * "Mobile") counts only where the query capitalises it.
 */
/** Whether a text names a city, capitalised ("time in Tokyo", not "capital city"). */
export function citiesIn(text: string, terms: string[]): boolean {
  return placesIn(text, terms.filter((t) => CITIES.has(t)), () => true).size > 0;
}

export function placesIn(text: string, terms: string[], isWord: (term: string) => boolean = () => false): Set<string> {
  const found = new Set<string>();
  const capitalised = new Set(words(text.replace(/\b[a-z]\S*/g, " ")).map(stem));
  for (const t of terms) {
    const codes = PLACES.get(t);
    if (!codes) continue;
    if (!t.includes("~") && isWord(t) && !capitalised.has(t) && !REGION_TERMS.has(t)) continue;
    for (const c of codes) found.add(c);
  }
  return found;
}

const REGION_TERMS = new Set(Object.keys(REGIONS).map(asTerm));

/** Whether a term names a region by a name that is never anything else ("UK", "US", "London", "EU"). */
export const isRegionTerm = (term: string) => REGION_TERMS.has(term);

/** The countries a group covers: those it declares, else the places its title names before any parenthesis; empty for the world. */
export function coverage(group: Group, terms: (text: string) => string[]): Set<string> {
  if (group.covers) return new Set(group.covers);
  const title = group.title.replace(/\(.*$/, "");
  return placesIn(title, terms(title));
}

/** Whether the terms name a place within a country (a city, a state, a nation of the UK). */
export const namesLocality = (terms: string[]) => terms.some((t) => LOCALITIES.has(t));

/** Whether a word is a country's name ("Spain"), as opposed to a town's. */
export const isCountry = (word: string) => COUNTRIES.has(asTerm(word));

/** Whether a search term is a country's name. */
export const isCountryTerm = (term: string) => COUNTRIES.has(term);
