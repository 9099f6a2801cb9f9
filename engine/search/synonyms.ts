// Everyday words agents use for what the endpoint files name formally. A query word listed here also
// searches for its alternatives, at a lower weight than the word itself. Keep entries general (no tool names):
// the endpoint files' own keywords are the place for endpoint-specific vocabulary. Phrases have one or two words
// (after stop words go), since the index knows single words and adjacent pairs.
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
  ["airport", "airfield", "aerodrome"],
  ["radio", "frequency", "tower", "atc"],
  ["house", "home", "property", "flat"],
  ["sold", "sale", "sell"],
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
  ["underlying", "regular", "core"],
  ["rise", "increase", "growth", "change"],
];

/** search term (a stemmed word, or a pair "a~b") -> alternative terms */
export const SYNONYMS: Map<string, string[]> = new Map();

for (const group of GROUPS) {
  const asTerms = group.map((phrase) => words(phrase).map(stem).join("~"));
  for (const term of asTerms) {
    const others = asTerms.filter((t) => t !== term);
    SYNONYMS.set(term, [...new Set([...(SYNONYMS.get(term) ?? []), ...others])]);
  }
}
