// Country names as the lists write them -> ISO 3166 alpha-2, so `country=RU`, `country=Russia` and the lists'
// "Russian Federation" meet. English names come from the runtime's ICU data; the lists' own spellings are added.
import { normalise } from "./normalise.ts";

const EXTRA: Record<string, string> = {
  "russian federation": "RU", "iran islamic republic of": "IR", "iran": "IR", "korea north": "KP", "north korea": "KP",
  "democratic peoples republic of korea": "KP", "dprk": "KP", "korea south": "KR", "south korea": "KR", "republic of korea": "KR",
  "syrian arab republic": "SY", "burma": "MM", "myanmar": "MM", "congo democratic republic of the": "CD",
  "democratic republic of the congo": "CD", "drc": "CD", "congo republic of the": "CG", "republic of the congo": "CG",
  "venezuela bolivarian republic of": "VE", "bolivia plurinational state of": "BO", "tanzania united republic of": "TZ",
  "moldova republic of": "MD", "lao peoples democratic republic": "LA", "laos": "LA", "viet nam": "VN", "vietnam": "VN",
  "turkiye": "TR", "turkey": "TR", "cote d ivoire": "CI", "ivory coast": "CI", "palestinian": "PS", "palestine": "PS",
  "west bank": "PS", "gaza": "PS", "united kingdom": "GB", "uk": "GB", "great britain": "GB", "united states": "US", "usa": "US",
  "united states of america": "US", "uae": "AE", "united arab emirates": "AE", "czech republic": "CZ", "czechia": "CZ",
  "macedonia": "MK", "north macedonia": "MK", "the former yugoslav republic of macedonia": "MK", "bahamas the": "BS",
  "gambia the": "GM", "crimea": "UA", "kosovo": "XK", "hong kong": "HK", "macau": "MO", "taiwan": "TW", "eswatini": "SZ",
  "swaziland": "SZ", "cabo verde": "CV", "cape verde": "CV", "holy see": "VA", "micronesia federated states of": "FM",
  "saint kitts and nevis": "KN", "st kitts and nevis": "KN", "saint vincent and the grenadines": "VC", "brunei darussalam": "BN",
};

let table: Map<string, string> | undefined;

function build(): Map<string, string> {
  const names = new Intl.DisplayNames(["en"], { type: "region" });
  const map = new Map<string, string>();
  const A = "A".charCodeAt(0);
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(A + i, A + j);
      let name: string | undefined;
      try {
        name = names.of(code);
      } catch {
        continue;
      }
      // Deprecated codes (SU, BU, TP...) repeat current names: the first code, in A-Z order the current one, wins.
      if (!name || name === code || map.has(normalise(name))) continue;
      map.set(normalise(name), code);
    }
  }
  for (const [k, v] of Object.entries(EXTRA)) map.set(normalise(k), v);
  return map;
}

/** ISO alpha-2 for a country name or code the lists or a caller use; undefined when unknown. */
export function countryCode(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const t = text.trim();
  if (/^[A-Za-z]{2}$/.test(t)) return t.toUpperCase() === "UK" ? "GB" : t.toUpperCase();
  table ??= build();
  const n = normalise(t);
  return table.get(n) ?? table.get(n.replace(/^the /, "")) ?? table.get(n.split(" ").slice(0, 2).join(" "));
}
