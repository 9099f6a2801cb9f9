// Name normalisation shared by the index and the query: one Latin lower-case form, words split, honorifics and
// legal-form words marked, and a phonetic key that makes transliteration variants meet (Mohammed, Muhammad, محمد).

const CYRILLIC: Record<string, string> = {
  а: "a", б: "b", в: "v", г: "g", д: "d", е: "e", ё: "e", ж: "zh", з: "z", и: "i", й: "y", к: "k", л: "l", м: "m", н: "n",
  о: "o", п: "p", р: "r", с: "s", т: "t", у: "u", ф: "f", х: "kh", ц: "ts", ч: "ch", ш: "sh", щ: "shch", ъ: "", ы: "y", ь: "",
  э: "e", ю: "yu", я: "ya", і: "i", ї: "yi", є: "ye", ґ: "g", ў: "u", ђ: "dj", ј: "j", љ: "lj", њ: "nj", ћ: "c", џ: "dz",
};

// Arabic and Persian letters to their usual Latin consonants; short vowels are not written, so the result is close to
// the consonant skeleton the phonetic key reduces Latin spellings to.
const ARABIC: Record<string, string> = {
  "ا": "a", "أ": "a", "إ": "i", "آ": "a", "ٱ": "a", "ب": "b", "ت": "t", "ث": "th", "ج": "j", "ح": "h", "خ": "kh", "د": "d",
  "ذ": "dh", "ر": "r", "ز": "z", "س": "s", "ش": "sh", "ص": "s", "ض": "d", "ط": "t", "ظ": "z", "ع": "", "غ": "gh", "ف": "f",
  "ق": "q", "ك": "k", "ل": "l", "م": "m", "ن": "n", "ه": "h", "و": "w", "ي": "y", "ى": "a", "ة": "a", "ء": "", "ئ": "y",
  "ؤ": "w", "پ": "p", "چ": "ch", "ژ": "zh", "گ": "g", "ک": "k", "ی": "y",
};

const GREEK: Record<string, string> = {
  α: "a", β: "v", γ: "g", δ: "d", ε: "e", ζ: "z", η: "i", θ: "th", ι: "i", κ: "k", λ: "l", μ: "m", ν: "n", ξ: "x", ο: "o",
  π: "p", ρ: "r", σ: "s", ς: "s", τ: "t", υ: "y", φ: "f", χ: "ch", ψ: "ps", ω: "o",
};

const LATIN_EXTRA: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", đ: "d", ł: "l", ı: "i", þ: "th", ð: "d", ħ: "h" };

/** Honorifics and titles, each spelling with the one form it is compared in (Shaykh and Sheikh are one title). */
const TITLES: Record<string, string> = {
  mr: "mr", mrs: "mrs", ms: "ms", miss: "miss", dr: "dr", doctor: "dr", prof: "prof", sir: "sir", dame: "dame", lord: "lord", lady: "lady",
  sheikh: "sheikh", shaikh: "sheikh", shaykh: "sheikh", sheik: "sheikh", haji: "haji", hajji: "haji", hadji: "haji", alhaji: "haji",
  mullah: "mullah", mulla: "mullah", maulana: "maulana", mawlawi: "mawlawi", maulvi: "mawlawi", sayyid: "sayyid", sayed: "sayyid",
  syed: "sayyid", sayyed: "sayyid", seyed: "sayyid", seyyed: "sayyid", imam: "imam", emir: "emir", amir: "emir", general: "general",
  gen: "general", colonel: "colonel", col: "colonel", major: "major", capt: "captain", captain: "captain", lieutenant: "lieutenant",
  lt: "lieutenant", brigadier: "brigadier", admiral: "admiral", president: "president", minister: "minister", his: "his", her: "her",
  excellency: "excellency", honourable: "hon", hon: "hon", rev: "rev", reverend: "rev", father: "father", engineer: "engineer", eng: "engineer",
};

/**
 * A title, or in a query a word one slip away from a longer title (Seyd, Skyyed for Seyyed), in its compared form. A
 * near miss stays a query word too (Saeed is a name, one slip from Sayed): it counts as the title only against a
 * listed name that has that title.
 */
export function titleOf(word: string, query: boolean): string | undefined {
  if (TITLES[word]) return TITLES[word];
  if (!query || word.length < 4) return undefined;
  const near = Object.keys(TITLES).find((t) => t.length >= 4 && t[0] === word[0] && oneEditApart(t, word));
  return near && TITLES[near];
}

/** The titles a name carries, each in its one compared form: a title shared by the query and a listed name counts a little. */
export function titlesOf(text: string, query = false): string[] {
  return [...new Set(normalise(text).split(" ").map((w) => titleOf(w, query)).filter((t): t is string => !!t))];
}

/** Whether two words are one typing slip apart: a letter changed, added, lost, or two neighbours swapped. */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return a === b;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    return a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2));
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Honorifics, titles and legal forms: they say little about who is meant, so they are dropped before comparing. */
export const NOISE_WORDS = new Set([
  ...Object.keys(TITLES),
  // legal forms (English, Russian, European, Asian)
  "sal", "llc", "ltd", "limited", "inc", "incorporated", "corp", "corporation", "co", "company", "plc", "llp", "lp", "gmbh", "mbh", "ag",
  "sa", "sas", "sarl", "srl", "spa", "bv", "nv", "oy", "ab", "as", "kg", "ooo", "oao", "zao", "pao", "ao", "jsc", "pjsc", "ojsc",
  "cjsc", "tov", "pt", "tbk", "bhd", "sdn", "pte", "pvt", "fze", "fzco", "fzc", "fzllc", "dmcc", "est", "establishment", "joint",
  "stock", "public", "closed", "open", "obshchestvo", "ogranichennoy", "otvetstvennostyu", "aktsionernoe", "publichnoe",
  "zakrytoe", "otkrytoe", "s", "sociedad", "anonima", "societe", "anonyme", "group", "holding", "holdings",
  // joining words
  "the", "of", "and", "for", "de", "del", "la", "le", "les", "des", "du", "van", "von", "der", "den", "y",
  // Arabic article, written apart or hyphenated
  "al", "el", "ul", "ad", "ud", "ar", "ur", "as", "an", "at", "ash", "az",
]);

export function isCjk(s: string): boolean {
  return /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/.test(s);
}

/** Which script a name is written in, when not Latin. */
export function scriptOf(s: string): string | undefined {
  if (/[\u0400-\u04ff]/.test(s)) return "Cyrillic";
  if (/[\u0600-\u06ff]/.test(s)) return "Arabic";
  if (/[\u0370-\u03ff]/.test(s)) return "Greek";
  if (isCjk(s)) return "CJK";
  return undefined;
}

/** Lower-case Latin letters, digits and CJK ideographs, words separated by single spaces. */
export function normalise(text: string): string {
  let s = text.normalize("NFKC").toLowerCase();
  // strip Arabic diacritics and tatweel before mapping letters
  s = s.replace(/[\u064b-\u065f\u0670\u0640]/g, "");
  let out = "";
  for (const ch of s) out += CYRILLIC[ch] ?? ARABIC[ch] ?? GREEK[ch] ?? LATIN_EXTRA[ch] ?? ch;
  out = out.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  // apostrophes join (O'Brien, Mu'ammar), everything else not a letter or digit separates
  out = out.replace(/['’`ʼ‘]/g, "");
  // a dotted legal form is one word (S.A.L. as SAL), so it reads like the same form written without dots
  out = out.replace(/\b(?:[a-z]\.){2,}/g, (m) => (NOISE_WORDS.has(m.replace(/\./g, "")) ? ` ${m.replace(/\./g, "")} ` : m));
  out = out.replace(/[^a-z0-9\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]+/g, " ");
  // a run of ideographs is one word per character: Chinese names are not written with spaces
  out = out.replace(/([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff])/g, " $1 ");
  return out.replace(/\s+/g, " ").trim();
}

/** Long legal-form and joining words; titles have their own near-miss rule (titleOf), as names resemble them (Seyyedi). */
const LONG_NOISE = [...NOISE_WORDS].filter((w) => w.length >= 5 && !TITLES[w]);

/** A query word one slip away from a long legal-form or joining word (copmany, corporatoin, lmited) is noise too. */
function nearNoise(t: string): boolean {
  return t.length >= 5 && LONG_NOISE.some((w) => Math.abs(w.length - t.length) <= 1 && w[0] === t[0] && (jaroWinkler(w, t) >= 0.93 || oneEditApart(w, t)));
}

/**
 * The words that identify a name: normalised, noise words dropped (all kept when nothing else is left).
 * `query` also drops misspelt noise words, which listed names do not have.
 */
export function nameTokens(text: string, query = false): string[] {
  const all = normalise(text).split(" ").filter(Boolean);
  const kept = all.filter((t) => !NOISE_WORDS.has(t) && !(query && nearNoise(t)));
  return kept.length ? kept : all;
}

/**
 * A coarse sound key: first letter (any vowel as "a"), then the consonants, after folding common transliteration
 * digraphs and doubled letters. mohammed, muhammad, mohamad, mhmd -> "mhmd"; yusuf, youssef -> "asf".
 */
export function soundKey(token: string): string {
  if (isCjk(token) || /^\d+$/.test(token)) return token;
  let t = token
    .replace(/ph/g, "f").replace(/ck/g, "k").replace(/q/g, "k").replace(/c(?=[eiy])/g, "s").replace(/c/g, "k")
    .replace(/kh/g, "h").replace(/gh/g, "g").replace(/th/g, "t").replace(/dh/g, "d").replace(/dzh|dj|dz/g, "j")
    .replace(/sch|sh|ch|zh/g, "s").replace(/ts|tz|z|x/g, "s").replace(/[wv]/g, "f").replace(/ou/g, "u");
  let collapsed = "";
  for (const ch of t) if (ch !== collapsed[collapsed.length - 1]) collapsed += ch;
  const first = /[aeiouy]/.test(collapsed[0]) ? "a" : collapsed[0];
  return first + collapsed.slice(1).replace(/[aeiouy]/g, "");
}

/** Jaro-Winkler similarity, 0..1. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (!la || !lb) return 0;
  const range = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const ma = new Uint8Array(la);
  const mb = new Uint8Array(lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - range);
    const hi = Math.min(lb - 1, i + range);
    for (let j = lo; j <= hi; j++) {
      if (!mb[j] && a.charCodeAt(i) === b.charCodeAt(j)) {
        ma[i] = mb[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (!matches) return 0;
  let k = 0;
  let transpositions = 0;
  for (let i = 0; i < la; i++) {
    if (!ma[i]) continue;
    while (!mb[k]) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const jaro = (matches / la + matches / lb + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < la && prefix < lb && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/** Every string one deletion away (the symmetric-delete trick: two words within one edit share one of these). */
export function deletions(token: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < token.length; i++) out.push(token.slice(0, i) + token.slice(i + 1));
  return out;
}
