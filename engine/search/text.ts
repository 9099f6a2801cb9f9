// Text to search terms: lower-cased words, stop words dropped, a light English stemmer, and word pairs.
// The same function reads the endpoint files and the agent's query, so both sides meet on the same terms.

const STOP_WORDS = new Set(
  ("a an and any are as at be by can do does for from get give gives has have how i in into is it its me my of on or " +
    "our please right show shows so tell than that the their them then there these this to us was what when where " +
    "which who whose why will with would you your now current currently today look up find check want need " +
    "some about per between")
    .split(" "),
);

const KEPT: Record<string, string> = { late: "late", lately: "recent", later: "later" };

/** Porter-style endings, enough to make "rates", "rated" and "rating" one term. */
export function stem(word: string): string {
  // Words whose stem would meet a parameter's abbreviation ("lately" -> "lat", latitude).
  if (word in KEPT) return KEPT[word];
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  const verb = (w.endsWith("ing") && w.length > 5) || (w.endsWith("ed") && w.length > 4);
  if (w.endsWith("ing") && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith("ly") && w.length > 5) w = w.slice(0, -2);
  if (w.length > 3 && /([^aeiou])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  // A soft c keeps its e, and gets it back where -ed or -ing took it ("priced", "pricing" -> "price"), so that
  // "France" stays a country and never meets the franc.
  if (verb && w.length > 3 && /[^c]c$/.test(w)) w = `${w}e`;
  if (w.length > 3 && w.endsWith("e") && !w.endsWith("ce")) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith("y")) w = `${w.slice(0, -1)}i`;
  return w;
}

const NUMBERS: Record<string, string> = {
  one: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7", eight: "8", nine: "9", ten: "10",
  twelve: "12", fifteen: "15", twenty: "20", thirty: "30", fifty: "50", hundred: "100",
};

/** Places whose name holds another place's name: one word each, so "Northern Ireland" never asks for Ireland. */
const GLUED_PLACES = /\b(northern ireland|new south wales|new york|new jersey|new england|new mexico|west virginia|papua new guinea|equatorial guinea|south sudan|south africa|south korea|north korea)\b/g;

/** "over the last 20 years", "over time": how far back, which says nothing of the topic (no "20-year gilt", no time zone). */
const SPAN = /\bover time\b|\b(?:over the |in the |for the )?(?:last|past|previous|next)\s+(?:(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|fifty|hundred|few|several)\s+)?(?:years?|months?|decades?|quarters?)\b/gi;

/**
 * The words of a text, before stemming. Hyphens and underscores split words ("company_number", "gbp-usd"),
 * "US" becomes "usa", number words become digits, and a number glued to its unit is split ("5y", "10yr" -> "5 year", "10 year").
 */
export function words(text: string): string[] {
  return text
    .replace(/\bU\.?S\.?(?=$|[^A-Za-z])/g, "usa") // "US" the country, not "us" the pronoun
    .toLowerCase()
    .replace(GLUED_PLACES, (m) => m.replace(/\s+/g, ""))
    // "check" is a stop word ("check the rate"), but a check digit is a thing of its own.
    .replace(/\bcheck[- ]?(digit|sum|character)s?\b/g, "checksum")
    .replace(SPAN, " ")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/[^a-z0-9']+/)
    .map((w) => w.replace(/^'+|'+$/g, "").replace(/'s$/, ""))
    .flatMap((w) => {
      const glued = /^(\d+)(y|yr|yrs|year|years)$/.exec(w);
      return glued ? [glued[1], "year"] : [NUMBERS[w] ?? w];
    })
    .filter((w) => w && !STOP_WORDS.has(w));
}

/** Search terms of a text: stemmed words, then each adjacent pair as one more term ("base~rat"). */
export function terms(text: string): string[] {
  const single = words(text).map(stem);
  const pairs = single.slice(1).map((w, i) => `${single[i]}~${w}`);
  return [...single, ...pairs];
}

export const isPair = (term: string) => term.includes("~");
