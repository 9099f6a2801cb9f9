// What a query says beyond its words, and whether an endpoint fits it: the values it carries and the parameters
// that take them, the places it names and the countries a group covers, the currencies it names and a pair-named
// rate, and whether it asks for a history ("over the last 20 years") that a latest-value endpoint cannot give.
// Each is a factor on the endpoint's word score, so it reorders endpoints the words found and finds none itself.
import { currenciesIn, currencyNameTerms, currencyPair } from "./currencies.ts";
import { citiesIn, countriesNamed, coverage, isCountryTerm, isRegionTerm, namesLocality, placesIn } from "./places.ts";
import { looksLikeDrug } from "./synonyms.ts";
import { stem, words } from "./text.ts";
import { isIdentifierKind, missingAlternatives, takesTime, namedParams, requiresIdentifier, takenKinds, unknownNames, type QueryValues } from "./values.ts";
import type { Endpoint } from "../endpoints/model.ts";

/** Each kind of value the query carries that the endpoint takes a parameter for. */
const TAKES_VALUE = 1.35;
/** The query carries an identifier (a domain, an IP, a VIN...) of a kind the endpoint takes no parameter for. */
const TAKES_NONE = 0.75;
/** The query names places and the endpoint's group covers other countries only. */
const OTHER_PLACE = 0.3;
/** The query names a place the group covers: a national source beats a worldwide one there. */
const OWN_PLACE = 1.15;
/** ...and more so where the group is that country's own source for a worldwide group's task (US weather, not global weather). */
const NATIONAL_SOURCE = 1.3;
/** The query names one country, or carries one identifier, and the endpoint lists things of which a sibling gives one (countries, country). */
const LIST_FOR_ONE = 0.7;
/** The query asks for several things of a kind by their plural, with no id; the endpoint looks up one of them by id. */
const ONE_FOR_MANY = 0.8;
/** The query carries an amount of money and the endpoint is a rate named by a currency pair (it takes no amount). */
const RATE_FOR_AMOUNT = 0.35;
/** The query names a currency outside the pair the endpoint is named by. */
const OTHER_CURRENCY = 0.35;
/** The query goes from one named place to another and the endpoint plans no journey: the places are its values, not its topic. */
const NOT_A_ROUTE = 0.6;
/** The endpoint requires a value the query gives an alternative to instead (a postcode where it gives coordinates). */
const CANNOT_CALL = 0.6;
/** The query names a thing by name (a company, a person, a drug) and no identifier; the endpoint takes identifiers only. */
const BY_NAME = 0.75;
/** The query names a drug ("metformin", "valsartan") and the endpoint is about food. */
const DRUG_NOT_FOOD = 0.7;
/** The query asks for things about a topic and the endpoint takes free text to search by. */
const SEARCHES_TOPIC = 1.25;
/** The query names something by name (a shop, a school, a person) and the endpoint takes free text to find it by. */
const SEARCHES_NAME = 1.15;
/** The query says nowhere (no place, postcode or point, not even "near me") and the endpoint needs a place. */
const NO_PLACE = 0.85;
/** The query names a place within a country and the endpoint takes one (a postcode, a region, a state). */
const LOCAL_PLACE = 1.1;
/** The query says a number and the endpoint is named by other numbers ("20 year gilt" is not gilt-10y). */
const OTHER_NUMBER = 0.45;
/** The query asks for values over time and the endpoint gives one value. */
const NO_HISTORY = 0.6;
/** The query asks for a value now and the endpoint is named for a series or a history. */
const NOT_SERIES = 0.85;
/** The query asks for values over time and the endpoint is named for them (world-indicators/series, yield-history). */
const SERIES = 1.3;

const ASKS_FOR_ID = /\b(?:codes?|ids?|identifiers?|cik|lei|ticker|symbol|slug|urn|isin|indicators?)\s+(?:for|of)\b|\b(?:which|what) (?:indicator|code|series)\b/i;
const NOW = /\b(?:today|now|current|currently|at the moment|at present|this morning)\b/i;
const HISTORY = /\b(?:histor(?:y|ic|ical)|over time|over the (?:last|past)|(?:last|past|previous) \d+ (?:\w+ )?(?:years?|months?|decades?|quarters?|weeks?|days?|observations|values|readings)|since (?:19|20)\d\d|trend|time series|back to (?:19|20)\d\d|between (?:19|20)\d\d and|(?:from )?(?:19|20)\d\d ?(?:-|–|to) ?(?:19|20)\d\d)\b/i;
const TOPIC = /["“][^"”]+["”]|(?:^|\s)'[^']+'(?=[\s.,?]|$)|\b(?:called|named|in the (?:title|name|text)|whose (?:title|name) (?:has|contains|includes)|about|regarding|concerning|mentioning|related to|(?:papers?|articles?|research|studies|bills?|rules?|works?|preprints?|documents?|legislation|laws?|news|votes|divisions) on|vot(?:e|ed|ing) on (?!(?:division|this|that|last|today|yesterday|in|at|during|since|by|\d))|matching (?:the )?(?:name |words? |title )?\w)\s+\w|\b(?:with|containing|having) \w+(?: \w+)? in (?:the|its|their) (?:titles?|names?)\b/i;
const FREE_TEXT = new Set(["q", "query", "search", "text", "title", "keyword", "term", "name"]);
const LOCAL_PARAMS = new Set(["postcode", "lat", "latitude", "region", "region_id", "county", "la", "location", "subdivision", "division", "state", "zone", "local_authority"]);
/** Words that say a question is about somewhere, though it names no place ("near me", "in my area", "regional"). */
const SOMEWHERE = /\b(?:near|nearby|nearest|closest|around|local|locally|here|my (?:area|location|postcode|address|street|town)|where i|postcodes?|regions?|regional|point|location|latitude|longitude|lat|lng|lon|coordinates|address|street|area|town|city|county|district|neighbourhood|ward)\b/i;
const RANGE_PARAMS = new Set(["from", "to", "since", "start", "months", "years", "values", "last"]);
const GIVES_HISTORY = /histor|over time|series|since|monthly|quarterly|annual|daily|weekly/i;

export interface QuerySignals {
  values: Set<string>;
  /** The identifiers' text by kind. */
  identifiers: Map<string, string[]>;
  /** Parameters it gives by name with a value. */
  params: Set<string>;
  places: Set<string>;
  /** How many places it names ("Spain, Italy and Greece": 3). */
  placeNames: number;
  /** How many countries it names by their names. */
  countries: number;
  currencies: Set<string>;
  history: boolean;
  /** It asks for the value now ("today", "right now", "current"), not over time. */
  now: boolean;
  topic: boolean;
  /** It says where, in any way: a place, a postcode, a point, "near me", "local", "region". */
  somewhere: boolean;
  /** It names a place within a country: a city, a state, a nation of the UK, a town. */
  locality: boolean;
  /** It names something by name and carries no identifier. */
  byName: boolean;
  /** It asks for an identifier by a thing's name ("the CIK of Alphabet", "indicator code for life expectancy"). */
  asksForId: boolean;
  /** The plural words it uses ("schools", "companies"), when it carries no identifier: it asks for several things, found by a search. */
  plurals: Set<string>;
  /** It names a city, which stands for its time zone where an endpoint takes one. */
  city: boolean;
  /** It names a drug by its international name ("metformin"). */
  drug: boolean;
  /** The small numbers it says (a term, a magnitude: "20 year", "magnitude 6"), not years or ids. */
  numbers: Set<string>;
}

export interface EndpointTraits {
  params: Set<string>;
  /** Its parameters' patterns and descriptions, to tell whether one would accept a value the query carries. */
  patterns: RegExp[];
  /** The patterns that name a part of a value outright, with those parts ("10.13039" in a funder id's pattern). */
  partPatterns: { re: RegExp; parts: string[] }[];
  freeText: boolean;
  local: boolean;
  /** It needs a place: a required postcode or point, or sets of them to give one of. */
  needsPlace: boolean;
  /** Its name says it gives a series or a history. */
  seriesByName: boolean;
  takes: Set<string>;
  requires: Set<string>;
  byIdentifier: boolean;
  covers: Set<string>;
  pair?: Set<string>;
  history: boolean;
  /** For an endpoint named for one thing it looks up by id ("school", "company"), that thing's plural. */
  pluralOfOne?: string[];
  /** It takes an IANA time zone, which cities name (Europe/London). */
  zone: boolean;
  /** Its name says it is about food. */
  food: boolean;
  /** Its group is a country's own source for a worldwide group's task. */
  nationalSource: boolean;
  /** It lists what a sibling endpoint gives one of: its name is the plural of the sibling's (countries, country). */
  listOfOne: boolean;
  /** The numbers its name says (gilt-20y: 20). */
  numbers: Set<string>;
}

/** isWord: whether a term is a word the endpoint files use (a place of that name then counts only capitalised). */
export function querySignals(query: string, values: QueryValues, terms: string[], isWord: (term: string) => boolean, paramNames: Set<string>): QuerySignals {
  const currencyNames = currencyNameTerms(terms);
  // A place's name that begins a name the files know ("Victoria line") names that thing, not the place.
  // A saint's name is no place either ("St Mary's" is not Mary in Turkmenistan).
  const namesThing = (t: string) => (!isRegionTerm(t) && terms.some((p) => p.startsWith(`${t}~`) && isWord(p))) || terms.includes(`st~${t}`) || terms.includes(`saint~${t}`);
  const placeTerms = terms.filter((t) => !currencyNames.has(t) && !namesThing(t));
  const places = placesIn(values.rest, placeTerms, isWord);
  if (values.point) for (const c of countryOfPoint(values.point)) places.add(c);
  const locality = values.kinds.has("place") || namesLocality(terms);
  return {
    values: values.kinds,
    identifiers: values.identifiers,
    params: namedParams(query, paramNames),
    places,
    placeNames: placeTerms.filter((t) => placesIn(values.rest, [t], isWord).size > 0).length + countriesNamed(placeTerms),
    countries: placeTerms.filter(isCountryTerm).length,
    currencies: currenciesIn(query, terms),
    history: HISTORY.test(query),
    now: NOW.test(query) && !HISTORY.test(query),
    // "worry about flooding at SW1A 1AA" names its thing by an identifier: no topic to search for.
    topic: TOPIC.test(query) && ![...values.kinds].some(isIdentifierKind),
    locality,
    somewhere: locality || places.size > 0 || values.kinds.has("postcode") || values.kinds.has("coordinates") || SOMEWHERE.test(query),
    city: citiesIn(values.rest, terms),
    drug: terms.some(looksLikeDrug),
    // "the past 24 hours" is a span, not a number that names anything.
    numbers: numbersSaid(values.rest),
    plurals: [...values.kinds].some(isIdentifierKind) || /\d/.test(values.rest) ? new Set() : new Set(values.rest.toLowerCase().match(/\b[a-z]+(?:ies|s)\b/g) ?? []),
    asksForId: ASKS_FOR_ID.test(query) && !values.kinds.size && !/\d/.test(values.rest),
    byName: !values.kinds.size && !/\d/.test(values.rest) && (unknownNames(values.rest, (w) => isWord(stem(w.toLowerCase()))).length > 0 || terms.some(looksLikeDrug)),
  };
}

export function endpointTraits(e: Endpoint, terms: (text: string) => string[]): EndpointTraits {
  const patterns = Object.values(e.params).flatMap((p) => (p.pattern ? [new RegExp(p.pattern, p.case ? "iu" : "u")] : []));
  return {
    params: new Set(Object.keys(e.params)),
    patterns,
    partPatterns: patterns.map((re) => ({ re, parts: literalsOf(re) })).filter((p) => p.parts.length),
    freeText: Object.keys(e.params).some((p) => FREE_TEXT.has(p)),
    local: Object.keys(e.params).some((p) => LOCAL_PARAMS.has(p)),
    seriesByName: /series|history/.test(e.operation),
    needsPlace: Object.entries(e.params).some(([n, p]) => p.required && LOCAL_PARAMS.has(n)) || (!!e.paramSets?.one_of && e.paramSets.one_of.every((set) => set.some((n) => LOCAL_PARAMS.has(n)))),
    takes: takenKinds(e.params),
    requires: takenKinds(e.params, true),
    byIdentifier: requiresIdentifier(e.params),
    covers: coverage(e.groupInfo, terms),
    pair: currencyPair(e.operation),
    pluralOfOne: requiresIdentifier(e.params) && /^[a-z]+$/.test(e.operation) ? pluralsOf(e.operation) : undefined,
    zone: Object.entries(e.params).some(([n, p]) => n === "tz" || /\bIANA (?:time )?zone\b/i.test(p.description)),
    history: Object.entries(e.params).some(([n, p]) => RANGE_PARAMS.has(n) && takesTime(p)) || GIVES_HISTORY.test(`${e.operation} ${e.summary}`),
    numbers: new Set(terms(e.operation).filter((t) => /^\d+$/.test(t))),
    nationalSource: !!e.groupInfo.nationalSourceFor,
    food: /\bfood\b/.test(e.operation),
    listOfOne: e.groupInfo.endpoints.some((s) => s !== e && pluralsOf(s.operation).includes(e.operation)),
  };
}


/** The plural forms a name may take ("school" -> schools, "country" -> countries). */
const pluralsOf = (name: string) => [`${name}s`, `${name.replace(/y$/, "ie")}s`];

/** Whether a parameter's own pattern accepts one of the values (an id parameter that takes a VAT number). */
const accepts = (t: EndpointTraits, values: string[] = []) => t.patterns.some((re) => values.some((v) => re.test(v.trim())));

/**
 * Whether a parameter's pattern names a part of one of the values outright: a funder id's pattern holds "10.13039",
 * the prefix of every Funder Registry DOI, so a DOI with it is a funder's, not any work's.
 */
const namesPart = (t: EndpointTraits, values: string[] = []) =>
  t.partPatterns.some(({ re, parts }) => values.some((v) => re.test(v.trim()) && parts.some((part) => v.includes(part))));

/** The runs of four or more literal letters or digits in a pattern ("13039" in ^(?:10\.13039/)?[0-9]{6,12}$). */
const literalsOf = (re: RegExp) => re.source.replace(/\[[^\]]*\]|\{[^}]*\}|\\./g, " ").match(/[A-Za-z0-9]{4,}/g) ?? [];

/** The factor on an endpoint's word score. */
export function fit(q: QuerySignals, t: EndpointTraits): number {
  let f = 1;
  for (const kind of q.values) {
    const count = q.identifiers.get(kind)?.length ?? 0;
    // Three or more of a kind are a list to look up at once, which only an endpoint taking a list can do.
    if (count >= 3 && t.takes.has(`many:${kind}`)) f *= TAKES_VALUE;
    if (namesPart(t, q.identifiers.get(kind))) f *= TAKES_VALUE;
    if (t.takes.has(kind) || (count > 1 && t.takes.has(`many:${kind}`))) f *= TAKES_VALUE;
    else if (isIdentifierKind(kind) && !t.takes.has(`many:${kind}`) && !accepts(t, q.identifiers.get(kind))) f *= TAKES_NONE;
  }
  for (const name of q.params) if (t.params.has(name)) f *= TAKES_VALUE;
  if (q.places.size && t.covers.size) {
    const covered = [...q.places].filter((c) => t.covers.has(c)).length;
    // Some of the places only (Eurostat for the G7): neither its own nor another's.
    f *= covered === q.places.size ? OWN_PLACE : covered ? 1 : OTHER_PLACE;
  }
  if (q.places.size && t.nationalSource && [...q.places].every((c) => t.covers.has(c))) f *= NATIONAL_SOURCE;
  // Several countries named are compared by an endpoint that takes several.
  if (q.placeNames >= 2 && t.params.has("countries")) f *= TAKES_VALUE;
  // A rate named by the pair asked for fits, unless an amount asks to convert (a rate endpoint takes no amount).
  // An amount of money is converted: a rate named by a pair takes no amount.
  if (t.pair && q.values.has("amount")) f *= RATE_FOR_AMOUNT;
  if (t.pair) f *= [...q.currencies].some((c) => !t.pair!.has(c)) ? OTHER_CURRENCY : q.currencies.size === 2 && !q.values.has("amount") ? TAKES_VALUE : 1;
  else if (q.currencies.size && t.takes.has("currency")) f *= TAKES_VALUE;
  if (q.history) f *= t.seriesByName ? SERIES : t.history ? 1 : NO_HISTORY;
  else if (q.now && t.seriesByName) f *= NOT_SERIES;
  if (q.values.has("route") && !t.takes.has("route")) f *= NOT_A_ROUTE;
  if (missingAlternatives(t.requires, q.values).length) f *= CANNOT_CALL;
  if (q.byName && t.byIdentifier) f *= BY_NAME;
  if (q.city && t.zone) f *= TAKES_VALUE;
  if (q.drug && t.food) f *= DRUG_NOT_FOOD;
  if (t.pluralOfOne?.some((p) => q.plurals.has(p))) f *= ONE_FOR_MANY;
  if (t.numbers.size && q.numbers.size && ![...q.numbers].some((n) => t.numbers.has(n))) f *= OTHER_NUMBER;
  if (t.listOfOne && (q.countries === 1 || [...q.identifiers.values()].flat().length === 1)) f *= LIST_FOR_ONE;
  if ((q.topic || q.asksForId) && t.freeText) f *= SEARCHES_TOPIC;
  else if (q.byName && t.freeText) f *= SEARCHES_NAME;
  if (q.locality && t.local) f *= LOCAL_PLACE;
  if (t.needsPlace && !q.somewhere) f *= NO_PLACE;
  return f;
}

/** The small numbers a text says, in digits or words ("five year"), but not a span of hours or days ("the past 24 hours"). */
function numbersSaid(text: string): Set<string> {
  const said = words(text.replace(/\b\d+[.,]\d+/g, " "));
  return new Set(said.filter((w, i) => /^\d{1,3}$/.test(w) && !/^(?:hours?|hrs?|days?|weeks?|minutes?|mins?)$/.test(said[i + 1] ?? "")));
}

/** Rough boxes, enough to tell a point in the contiguous United States or Great Britain from one elsewhere. */
const BOXES: { country: string; lat: [number, number]; lng: [number, number] }[] = [
  { country: "US", lat: [24.5, 49.5], lng: [-125, -66.9] },
  { country: "GB", lat: [49.9, 60.9], lng: [-8.2, 1.8] },
];

function countryOfPoint(p: { lat: number; lng: number }): string[] {
  return BOXES.filter((b) => p.lat >= b.lat[0] && p.lat <= b.lat[1] && p.lng >= b.lng[0] && p.lng <= b.lng[1]).map((b) => b.country);
}
