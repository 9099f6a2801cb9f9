// Currencies a query names, by ISO code ("USD", "usd"), symbol ("£") or name ("Swiss francs", "yen", "sterling"),
// so that "convert CAD to AUD" is not answered by a sterling rate: an endpoint named by a currency pair
// (bank-of-england/gbp-usd) fits a query only when it names no currency outside the pair.
import { stem, words } from "./text.ts";

/** The currencies agents name most, most traded first: a bare "dollar" is the US dollar, "franc" the Swiss. */
const MAJOR = "USD EUR JPY GBP CNY AUD CAD CHF HKD SGD SEK KRW NOK NZD INR MXN ZAR TRY BRL DKK PLN THB ILS CZK HUF RUB".split(" ");
const SYMBOLS: Record<string, string> = { "£": "GBP", $: "USD", "€": "EUR", "¥": "JPY" };
const ALIASES: Record<string, string> = {
  sterling: "GBP", quid: "GBP", pound: "GBP", renminbi: "CNY", rouble: "RUB",
  // Traders' and travellers' names.
  "swedish kronor": "SEK", kronor: "SEK", "norwegian kroner": "NOK", "danish kroner": "DKK",
  aussie: "AUD", "aussie dollar": "AUD", loonie: "CAD", greenback: "USD", swissie: "CHF", "kiwi dollar": "NZD",
};

const asTerm = (phrase: string) => words(phrase).map(stem).join("~");

/** search term -> currency code: each major currency's English name ("swiss~franc"), its last word ("franc") and its code. */
const NAMES = new Map<string, string>();
const display = new Intl.DisplayNames(["en"], { type: "currency" });
for (const code of MAJOR) {
  const name = display.of(code) ?? code;
  NAMES.set(asTerm(name), code);
  const last = asTerm(name.split(" ").pop()!);
  if (!NAMES.has(last)) NAMES.set(last, code);
  // Typed in lower case, a code is a currency unless it is an everyday word ("try").
  if (code !== "TRY") NAMES.set(code.toLowerCase(), code);
}
for (const [alias, code] of Object.entries(ALIASES)) NAMES.set(asTerm(alias), code);
// "usd" is the pronoun rewritten ("US" -> "usa"); "US dollar" names one currency, not two.
NAMES.set("usa~dollar", "USD");

/** The currencies a query names; a qualified name ("Canadian dollar") wins over its last word ("dollar"). */
export function currenciesIn(query: string, terms: string[]): Set<string> {
  const found = new Set<string>();
  const covered = new Set<string>();
  for (const t of terms.filter((x) => x.includes("~"))) {
    const code = NAMES.get(t);
    if (!code) continue;
    found.add(code);
    for (const part of t.split("~")) covered.add(part);
  }
  for (const t of terms.filter((x) => !x.includes("~") && !covered.has(x))) {
    const code = NAMES.get(t);
    if (code) found.add(code);
  }
  for (const [symbol, code] of Object.entries(SYMBOLS)) if (query.includes(symbol)) found.add(code);
  for (const [code] of query.matchAll(/\b[A-Z]{3}\b/g)) if (MAJOR.includes(code)) found.add(code);
  return found;
}

/** The words and pairs of the terms that name a currency by a qualified name ("US dollar", "Swiss franc"): no place then. */
export function currencyNameTerms(terms: string[]): Set<string> {
  const named = new Set<string>();
  for (const t of terms) if (t.includes("~") && NAMES.has(t)) for (const part of [t, ...t.split("~")]) named.add(part);
  return named;
}

/** The pair an endpoint is named by ("gbp-usd" -> GBP, USD), if it is. */
export function currencyPair(operation: string): Set<string> | undefined {
  const m = /^([a-z]{3})-([a-z]{3})$/.exec(operation);
  if (!m || !MAJOR.includes(m[1].toUpperCase()) || !MAJOR.includes(m[2].toUpperCase())) return undefined;
  return new Set([m[1].toUpperCase(), m[2].toUpperCase()]);
}
