// Values a query carries (a VIN, an IMEI, a postcode, coordinates, a year, an amount of money...) and the
// parameters that take them. "Decode 1HGCM82633A004352" asks for an endpoint with a vin parameter, not for the
// one that decodes the first three characters; "holidays in Germany in 2026" for one that takes a year, not a date.
import { isCountry } from "./places.ts";
import type { ParamSpec } from "../endpoints/params.ts";

interface ValueKind {
  kind: string;
  /** Finds the value in the query as typed. */
  pattern: RegExp;
  /** Parameter names that take it... */
  names: string[];
  /** ...or parameter formats. */
  formats?: ParamSpec["format"][];
  /** ...or parameter descriptions that name it ("An OpenAlex work id or a DOI"). */
  described?: RegExp;
  /** The word for the kind, which the query asks for a little even where it does not say it ("an IP address"). */
  word?: string;
  /** What the value says in the query's words, where its own text is dropped ("9am" says "time"). */
  says?: (value: string) => string;
}

const MONTH = "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?";
const MONEY_WORD = "pounds?|quid|dollars?|euros?|yen|francs?|yuan|rupees?|kron[ae]r?|pesos?|rand|zloty|lira|roubles?|rubles?|[A-Z]{3}";

/** A day named by its holiday ("Easter Monday 2026", "Boxing Day"): a date to check, as much as "26 December". */
const HOLIDAY_DATE = /\b(?:christmas (?:day|eve)|boxing day|new year's (?:day|eve)|good friday|easter (?:monday|sunday)|whit monday|ascension day|may day|labou?r day|independence day|thanksgiving day)\b/;
const DATES = new RegExp(`\\b(?:tomorrow|yesterday)\\b|\\b\\d{4}-\\d{2}-\\d{2}(?:\\b|(?=T))|\\b\\d{1,2}(?:st|nd|rd|th)? (?:${MONTH})\\b|\\b(?:${MONTH}) \\d{1,2}(?:st|nd|rd|th)?\\b`, "gi");

// Order matters: an identifier is claimed by the first kind that finds it (an IBAN is not also read as a postcode).
const KINDS: ValueKind[] = [
  { kind: "url", word: "url", pattern: /\bhttps?:\/\/\S+/i, names: ["url"], formats: ["public-url"] },
  { kind: "email", word: "email", pattern: /\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/, names: ["email"], formats: ["email"] },
  // An international phone number ("+44 20 7946 0958", "+1 415 555 2671") or a national one in its groups ("020 7946 0018", "(415) 555-2671").
  { kind: "phone", word: "phone number", pattern: /\+\d{1,3}(?:[\s().-]*\d){6,14}\b|\b0\d{2,4}[\s-]\d{3,4}[\s-]?\d{3,4}\b|\(\d{3}\)\s?\d{3}-\d{4}\b|\b\d{3}-\d{3}-\d{4}\b/, names: ["phone"], described: /\bphone number\b/i },
  { kind: "doi", word: "doi", pattern: /\b10\.\d{4,9}\/\S+/, names: ["doi"], described: /\bDOI\b/ },
  // A new-style arXiv identifier (2301.07041, 2301.07041v2) or an old one (hep-th/9901001).
  { kind: "arxiv", word: "arxiv", pattern: /\b\d{4}\.\d{4,5}(?:v\d+)?\b|\b[a-z-]+(?:\.[A-Z]{2})?\/\d{7}\b/, names: [], described: /\barXiv (?:id|identifier)/i },
  { kind: "iban", word: "iban", pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b/, names: ["iban"], described: /\bIBAN\b/ },
  // 17 characters of a VIN's alphabet (no I, O or Q), letters and digits both.
  { kind: "vin", word: "vin", pattern: /\b(?=[A-HJ-NPR-Z0-9]*\d)(?=[A-HJ-NPR-Z0-9]*[A-HJ-NPR-Z])[A-HJ-NPR-Z0-9]{17}\b/i, names: ["vin", "vins"], described: /\bVIN\b/ },
  { kind: "lei", word: "lei", pattern: /\b(?=[A-Z0-9]*[A-Z])[A-Z0-9]{18}\d{2}\b/, names: ["lei"], described: /\bLEI\b/ },
  { kind: "isin", word: "isin", pattern: /\b[A-Z]{2}(?=[A-Z0-9]*\d)[A-Z0-9]{9}\d\b/, names: ["isin"], described: /\bISIN\b/ },
  { kind: "vat", word: "vat number", pattern: /\b(?:GB|XI|ATU|[A-Z]{2})\d{8,12}(?:B\d{2})?\b/, names: ["vat", "vat_number", "vrn"], described: /\bVAT\b/ },
  { kind: "imei", word: "imei", pattern: /\b\d{15}\b|\b\d{2}-?\d{6}-?\d{6}-?\d\b/, names: ["imei", "imeis"], described: /\bIMEI\b/ },
  { kind: "ip", word: "ip address", pattern: /\b(?:\d{1,3}\.){3}\d{1,3}\b|\b[0-9a-f]{1,4}(?::[0-9a-f]{0,4}){2,7}\b/i, names: ["ip", "ips"], formats: ["ipv4-or-ipv6"] },
  { kind: "coordinates", pattern: /-?\b\d{1,2}\.\d+\s*[,\s]\s*-?\d{1,3}\.\d+\b|\b\d{1,2}(?:\.\d+)?°?\s*[NS][\s,]+\d{1,3}(?:\.\d+)?°?\s*[EW]\b/i, names: ["lat", "latitude"], formats: ["latitude"] },
  { kind: "domain", word: "domain", pattern: /\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|co|uk|de|fr|gov|edu|dev|app|ai|info|eu|me|tv|us|ca|au|nz|nl|es|it|ch|se|ie|be|jp|ly|xyz|biz|gg|sh|fm)\b/i, names: ["domain", "url"], formats: ["domain", "public-url"] },
  { kind: "postcode", word: "postcode", pattern: /\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b/i, names: ["postcode", "postcodes"], formats: ["uk-postcode"] },
  // A Companies House number said as one ("company 08888888", "company number SC123456", "Monzo Bank Limited (09446231)").
  { kind: "company", word: "company number", pattern: /(?<=\b(?:company|companies house)(?: number| no\.?| profile| details)? |\b(?:limited|ltd|llp|plc) \(?)(?:[A-Z]{2}|\d{2})\d{6}\b/i, names: ["company_number"] },
  { kind: "registration", word: "registration", pattern: /\b[A-Z]{2}\d{2}\s?[A-Z]{3}\b/, names: ["registration"] },
  { kind: "pmid", pattern: /\bPMIDs?\b/i, names: ["pmid", "pmids"] },
  // A time of day ("9am", "14:30", "3.15pm"): a time to convert, not a number of anything.
  { kind: "clock", pattern: /\b(?:[01]?\d|2[0-3])(?:[:.][0-5]\d)?\s?(?:am|pm)\b|(?:\b|(?<=\dT))(?:[01]?\d|2[0-3]):[0-5]\d\b/i, names: ["time"], says: () => "time" },
  // An IANA time zone ("Europe/Paris", "America/Argentina/Salta").
  { kind: "zone", word: "time zone", pattern: /\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)\/[A-Za-z_]+(?:\/[A-Za-z_]+)?\b/, names: ["tz"], described: /\bIANA (?:time )?zone/i },
  // An ONS (GSS) code says what kind of area it is by its first three characters (E06 a unitary authority, E05 a ward).
  { kind: "gss", pattern: /\b[EWSNK]\d{8}\b/, names: [], says: (code) => code.slice(0, 3) },
  { kind: "amount", pattern: new RegExp(`[£$€¥]\\s?\\d|\\b\\d[\\d,.]*\\s?(?:[A-Za-z]+ )?(?:${MONEY_WORD})\\b`), names: ["amount"] },
  // A part of a law by its number ("section 21", "regulation 3", "schedule 2").
  { kind: "section", pattern: /\b(?:section|regulation|article|schedule|paragraph)\s+\d+[A-Z]?\b/i, names: ["provision"] },
  { kind: "date", pattern: new RegExp(`${DATES.source}|${HOLIDAY_DATE.source}`, "i"), names: ["date"] },
  { kind: "year", pattern: /\b(?<!\d-)(?:19|20)\d{2}\b(?!-\d)|\bthis year\b|\bnext year\b/i, names: ["year"] },
];

/** Values that name a thing rather than a topic: their text is no search word ("bbc.co.uk" says nothing of the UK). */
const IDENTIFIERS = new Set(["clock", "zone", "gss", "arxiv", "company", "phone", "url", "email", "doi", "iban", "vin", "lei", "isin", "vat", "imei", "ip", "coordinates", "domain", "postcode", "registration"]);

export interface QueryValues {
  /** The kinds of value the query carries. */
  kinds: Set<string>;
  /** The query without the identifiers' text. */
  rest: string;
  /** The words for the kinds of identifier it carries ("ip address" for 8.8.8.8). */
  kindWords: string[];
  /** The text of each identifier the query carries, by kind. */
  identifiers: Map<string, string[]>;
  /** The point the query gives in decimal degrees, if any. */
  point?: { lat: number; lng: number };
}

/** The kinds of value that identify a thing: an endpoint that takes none of a kind the query carries is not for it. */
export const isIdentifierKind = (kind: string) => IDENTIFIERS.has(kind) && kind !== "clock" && kind !== "gss";

export function readValues(query: string): QueryValues {
  let rest = query;
  const kinds = new Set<string>();
  const identifiers = new Map<string, string[]>();
  let point: QueryValues["point"];
  for (const k of KINDS) {
    const m = k.pattern.exec(rest);
    if (!m) continue;
    kinds.add(k.kind);
    if (k.kind === "coordinates") point = decimalPoint(m[0]);
    const all = [...rest.matchAll(new RegExp(k.pattern.source, `${k.pattern.flags}g`))].map((x) => x[0]);
    // Two of a kind are a pair to relate (a distance, a conversion), which an endpoint taking two of them does.
    if (all.length === 2 && k.kind !== "date" && k.kind !== "year") kinds.add(`pair:${k.kind}`);
    if (!IDENTIFIERS.has(k.kind)) continue;
    for (const text of all) rest = rest.replace(text, ` ${k.says?.(text) ?? ""} `);
    identifiers.set(k.kind, all);
  }
  // A full date is a date, not also a year to list; two of them are a period (their pair).
  if (kinds.has("date")) kinds.delete("year");
  if ((query.match(DATES) ?? []).length >= 2 || MONTHS_SPAN.test(query)) kinds.add("period");
  if (PLACE_NAME.test(query)) kinds.add("place");
  // Like a time of day, a route says what it asks for in a word the question may not use.
  if (ROUTE.test(rest.replace(/\(\s*\)/g, " ").replace(/\s+/g, " "))) {
    kinds.add("route");
    rest += " journey";
  }
  const kindWords = KINDS.filter((k) => k.word && identifiers.has(k.kind)).map((k) => k.word!);
  return { kinds, rest, point, identifiers, kindWords };
}

function decimalPoint(text: string): QueryValues["point"] {
  const m = /^(-?\d+(?:\.\d+)?)\s*[,\s]\s*(-?\d+(?:\.\d+)?)$/.exec(text.trim());
  return m ? { lat: Number(m[1]), lng: Number(m[2]) } : undefined;
}

/** Two months that bound a span ("between March and May 2026", "from October to December"). */
const MONTHS_SPAN = new RegExp(`\\b(?:between|from) (?:${MONTH})(?: (?:19|20)\\d\\d)? (?:and|to|until) (?:${MONTH})\\b`, "i");
const MONTHS_AND_DAYS = new RegExp(`^(?:${MONTH}|monday|tuesday|wednesday|thursday|friday|saturday|sunday)$`, "i");
const NATIONS = /^(?:England|Scotland|Wales|Britain|Ireland|Europe|America|Africa|Asia)$/;
/** A town or city named in words after "in", "near" or "around" ("schools in Leeds"): a place, but no postcode. */
const PLACE_NAME = {
  test: (query: string) =>
    [...query.matchAll(/\b(?:in|near|around)\s+([A-Z][a-z]{2,})/g)].some((m) => !MONTHS_AND_DAYS.test(m[1]) && !NATIONS.test(m[1]) && !isCountry(m[1])),
};

/** From one named place to another ("from King's Cross to Canary Wharf"): a journey or a distance. */
const PLACE_WORDS = "[A-Z][\\w']*(?:\\s+[A-Z][\\w']*)*";
const ROUTE = new RegExp(`\\bfrom\\s+${PLACE_WORDS}\\s+to\\s+[A-Z]|\\bto\\s+${PLACE_WORDS}\\s+from\\s+[A-Z]`);

const IDENTIFIER_NAME = /(?:^|_)(?:ids?|codes?|urn|pmids?|lei|isin|cik|symbol|rxcui|tac|wmi|campaign|eventid|vrn|vins?|imeis?|iban|doi|number|registration|ndc|station|outcode|tz)$/;

/** Whether every parameter the endpoint requires is an identifier (an id, a code...), and it requires one. */
export function requiresIdentifier(params: Record<string, ParamSpec>): boolean {
  const required = Object.entries(params).filter(([, spec]) => spec.required);
  return required.length > 0 && required.every(([name]) => IDENTIFIER_NAME.test(name));
}

/** Names in the query the endpoint files do not know ("Barclays", "Nvidia", "Keir Starmer"): capitalised words past the first. */
export function unknownNames(query: string, isWord: (word: string) => boolean): string[] {
  return [...query.matchAll(/(?<=\S\s+)\b[A-Z][a-z]+\b/g)].map((m) => m[0]).filter((w) => !isWord(w));
}

/**
 * Identifier parameters the query gives by name with a value ("CIK 789019", "URN 100000", "station 9414290",
 * "tac: 35693803"): the name, then a code with a digit or in capitals.
 */
export function namedParams(query: string, paramNames: Set<string>): Set<string> {
  const named = new Set<string>();
  for (const m of query.matchAll(/\b(?:([A-Za-z]+)[ _])?([A-Za-z]{2,})s?\s*[:#=]?\s+(?=[\w.-]*\d|[A-Z]{2,}\b)/g)) {
    // "member id 172" gives member_id, not any id.
    const name = [`${m[1]}_${m[2]}`, m[2], `${m[2]}_id`].map((n) => n.toLowerCase()).find((n) => paramNames.has(n));
    if (name && IDENTIFIER_NAME.test(name)) named.add(name);
  }
  return named;
}

/** A required parameter of one of these kinds cannot be filled from the other kind given instead. */
const ALTERNATIVES = [["coordinates", "postcode"], ["vin", "registration"], ["place", "postcode"]];

/** The kinds an endpoint requires that the query gives an alternative to, not the kind itself. */
export function missingAlternatives(required: Set<string>, given: Set<string>): string[] {
  return ALTERNATIVES.flatMap((family) => family.filter((k) => required.has(k) && !given.has(k) && family.some((o) => o !== k && given.has(o))));
}

/** A date, a year or a count of periods: "from" and "to" are a range only then, not two currencies or two places. */
export const takesTime = (p: ParamSpec) => p.format === "date" || p.type === "integer" || p.type === "number" || /\\d\{4\}/.test(p.pattern ?? "");

/** The kinds of value an endpoint's parameters take. */
export function takenKinds(params: Record<string, ParamSpec>, requiredOnly = false): Set<string> {
  const taken = new Set<string>();
  const taking = new Map<string, number>();
  for (const [name, spec] of Object.entries(params)) {
    if (requiredOnly && !spec.required) continue;
    for (const k of KINDS) {
      if (!(k.names.includes(name) || (spec.format && k.formats?.includes(spec.format)) || k.described?.test(spec.description))) continue;
      // A list parameter takes several values: one value alone is for an endpoint that takes one.
      taken.add(spec.type === "array" ? `many:${k.kind}` : k.kind);
      taking.set(k.kind, (taking.get(k.kind) ?? 0) + 1);
    }
    if (takesCurrency(spec)) taken.add("currency");
  }
  // Two parameters of a kind relate a pair of values (a distance between postcodes, a conversion between zones).
  for (const [kind, n] of taking) if (n >= 2) taken.add(`pair:${kind}`);
  const names = Object.keys(params).filter((n) => !requiredOnly || params[n].required);
  const place = (n: string) => params[n] && !params[n].format && !params[n].enum && !/\\d/.test(params[n].pattern ?? "") && !takesCurrency(params[n]);
  if (names.includes("from") && names.includes("to") && place("from") && place("to")) taken.add("route");
  const time = (n: string) => !!params[n] && takesTime(params[n]);
  // A range of dates: from and to, or a pair named for what they bound (published_from, published_to).
  const ranged = names.some((n) => /(?:^|_)from$/.test(n) && time(n) && time(n.replace(/from$/, "to")));
  if (ranged || (names.includes("date") && names.includes("until"))) taken.add("period");
  return taken;
}

const CURRENCY_CODES = new Set(Intl.supportedValuesOf("currency"));

/** A parameter whose allowed values are currency codes. */
function takesCurrency(spec: ParamSpec): boolean {
  return (spec.enum ?? []).filter((v) => typeof v === "string" && CURRENCY_CODES.has(v.toUpperCase())).length >= 3;
}
