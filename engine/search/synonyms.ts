// Everyday words agents use for what the endpoint files name formally. A query word listed here also
// searches for its alternatives, at a lower weight than the word itself. Keep entries general (no tool names):
// the endpoint files' own keywords are the place for endpoint-specific vocabulary. Phrases have one or two words
// (after stop words go), since the index knows single words and adjacent pairs.
import { DEMONYMS } from "./places.ts";
import { stem, words } from "./text.ts";

const GROUPS: string[][] = [
  ["base rate", "bank rate", "interest rate"],
  ["exchange rate", "fx", "forex", "currency"],
  ["pound", "sterling", "gbp"],
  ["dollar", "usd"],
  ["euro", "eur"],
  ["yen", "jpy"],
  ["swiss franc", "chf"],
  ["canadian", "loonie", "cad"],
  ["australian", "aussie", "aud"],
  ["bond", "gilt", "yield"],
  ["home loan", "mortgage"],
  ["inflation", "cpi", "consumer prices", "price index"],
  ["job", "employment", "work"],
  ["jobless", "unemployment", "inactivity"],
  ["wage", "pay", "salary", "earnings"],
  ["economy", "gdp", "output"],
  ["shop", "retail", "store"],
  ["export", "import", "trade"],
  ["debt", "borrowing"],
  ["phone", "handset", "mobile", "device", "imei"],
  ["sanction", "watchlist", "blacklist", "designated", "ofac"],
  ["crypto", "bitcoin", "btc", "ethereum", "eth", "wallet"],
  ["airport", "airfield", "aerodrome", "airstrip"],
  ["radio", "frequency", "tower", "atc"],
  ["house", "home", "property", "flat"],
  ["sold", "sale", "sell", "bought", "buy", "purchase"],
  ["working day", "business day", "weekday"],
  ["how far", "distance"],
  ["tube", "underground", "metro"],
  ["council", "local authority"],
  ["lease", "leasehold"],
  ["probate", "estate", "death"],
  ["company", "business", "firm", "entity"],
  ["person", "individual"],
  ["ship", "vessel"],
  ["share", "proportion", "percentage", "rate"],
  ["without", "excluding"],
  ["bike", "bicycle", "cycle"],
  ["at once", "one go", "batch", "bulk"],
  ["underlying", "regular", "core"],
  ["rise", "increase", "growth", "change", "grow"],
  ["big", "large", "major", "main"],
  ["latest", "recent", "newest", "new"],
  ["earn", "revenue", "income", "profit"],
  ["people", "population", "inhabitants", "residents"],
  ["per person", "per capita", "per head"],
  ["load", "page speed", "pagespeed", "performance"],
  ["parliament", "commons", "mps"],
  ["problem", "malfunction", "adverse event", "complaint"],
  ["uk", "united kingdom", "britain", "british", "great britain", "brits"],
  ["insolvency", "insolvent", "bankrupt", "bankruptcy", "bust", "liquidation", "receivership"],
  ["label", "leaflet", "package insert", "prescribing information"],
  ["holiday", "day off", "banks closed"],
  ["humidity", "humid", "muggy"],
  ["thunderstorm", "thunder", "lightning"],
  ["temperature", "hot", "cold", "warm"],
  ["weather", "temperature", "wind", "rain", "snow"],
  ["earthquake", "quake", "tremor", "seismic", "shaken", "shaking"],
  ["recall", "safety fix", "had to fix", "seat belt", "airbag"],
  ["burglary", "break ins", "burgled", "broken into"],
  ["hygiene", "clean", "cleanliness", "dirty"],
  ["restaurant", "places to eat", "eatery", "takeaway"],
  ["unsecured", "without security"],
  ["duty", "tariff", "import tax", "customs"],
  ["high tide", "high water", "highest water"],
  ["redirect", "ends up", "end up", "forwarded"],
  ["wind", "windy", "gust"],
  ["rain", "rainy", "umbrella", "precipitation"],
  ["shrink", "contract", "decline", "recession", "growth"],
  ["cost of living", "expensive", "rising prices", "prices rising", "price rises", "inflation"],
  ["telecoms", "mobile network", "broadband", "phone provider"],
];

/**
 * A country named in a query also asks for "country": endpoints that take any country (holidays, airports,
 * statistics by country) are what answer for one the files never name. The names are the ISO 3166 regions as
 * the runtime's ICU spells them in English; the UK and its nations search for "uk" instead.
 */
const UK_NATIONS = ["england", "scotland", "wales", "northern ireland", "northernireland"];
const NOT_COUNTRIES = new Set(["GB", "UK", "US", "EU", "EZ", "UN", "ZZ", "QO"]);

function countryNames(): string[] {
  const names = new Set<string>();
  const display = new Intl.DisplayNames(["en"], { type: "region" });
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (const a of letters) {
    for (const b of letters) {
      const code = a + b;
      if (NOT_COUNTRIES.has(code) || code.startsWith("X")) continue;
      let name: string | undefined;
      try {
        name = display.of(code);
      } catch {
        continue;
      }
      // "Myanmar (Burma)", "Hong Kong SAR China": the name before any qualifier, and only names of one or two words.
      const plain = name?.replace(/\s*\(.*\)$/, "").replace(/ SAR China$/, "");
      if (plain && plain !== code && !/[&.]/.test(plain) && words(plain).length <= 2) names.add(plain);
    }
  }
  return [...names];
}

/** search term (a stemmed word, or a pair "a~b") -> alternative terms */
export const SYNONYMS: Map<string, string[]> = new Map();

for (const group of GROUPS) {
  const asTerms = group.map((phrase) => words(phrase).map(stem).join("~"));
  for (const term of asTerms) {
    const others = asTerms.filter((t) => t !== term);
    SYNONYMS.set(term, [...new Set([...(SYNONYMS.get(term) ?? []), ...others])]);
  }
}

const asTerm = (phrase: string) => words(phrase).map(stem).join("~");
const addAlternative = (term: string, alt: string) => SYNONYMS.set(term, [...new Set([...(SYNONYMS.get(term) ?? []), alt])]);
for (const nation of UK_NATIONS) addAlternative(asTerm(nation), "uk");
const regionName = new Intl.DisplayNames(["en"], { type: "region" });
for (const [demonym, code] of Object.entries(DEMONYMS)) addAlternative(asTerm(demonym), asTerm(code === "GB" ? "uk" : regionName.of(code)!.replace(/\s*\(.*\)$/, "")));
for (const country of countryNames()) if (!UK_NATIONS.includes(country.toLowerCase())) addAlternative(asTerm(country), asTerm("country"));

/**
 * Cities as the IANA time zone IDs name them ("Asia/Tokyo", "America/New_York"). A city the endpoint files never
 * name also asks for "city": the endpoints that take any place, not one that happens to share another word.
 */
export const CITIES: Set<string> = new Set(
  Intl.supportedValuesOf("timeZone")
    .map((id) => id.split("/").pop()!.replace(/_/g, " "))
    .filter((city) => words(city).length <= 2)
    .map(asTerm),
);
export const CITY = asTerm("city");

/**
 * A word that ends like an international nonproprietary drug name (the WHO's INN
 * stems: -statin, -pril, -sartan, -mab...) also asks for "drug": "adverse events for metformin" is about a drug,
 * not food. Matched on the stemmed word ("sertraline" -> "sertralin").
 */
const INN_STEM = /(?:mab|pril|sartan|statin|olol|formin|azol|cillin|mycin|cyclin|[^o]vir|tinib|prazol|oxetin|azepam|dipin|triptan|profen|caine?|glutid|gliptin|parin|farin|floxacin|olon|dronat|setron|tidin|afil|lukast|thiazid|semid|tralin|apin|xaban|gatran|sone|oxacin|ciclib|parib|adol|tamol|terol|idon|azolam|tylin|zosin|morphin|codein|insulin)$/;
export const looksLikeDrug = (term: string) => term.length >= 6 && !term.includes("~") && INN_STEM.test(term);
export const DRUG = asTerm("drug");
