// One listed person, company, vessel or aircraft, the same shape whichever list and format it came from.

export const LISTS = ["us-ofac", "uk", "eu", "un"] as const;
export type ListCode = (typeof LISTS)[number];

export const LIST_TITLES: Record<ListCode, string> = {
  "us-ofac": "US OFAC: SDN list and the consolidated non-SDN lists",
  uk: "UK Sanctions List (FCDO; OFSI consolidated list before it)",
  eu: "EU consolidated financial sanctions list",
  un: "UN Security Council consolidated list",
};

export type EntryType = "individual" | "entity" | "vessel" | "aircraft";

export interface EntryName {
  name: string;
  /** primary: the listed name; alias: a strong (good-quality) a.k.a.; weak: a low-quality a.k.a.; the list's own term in `note`. */
  kind: "primary" | "alias" | "weak";
  /** For names not in Latin script: the script or language the list gives (Cyrillic, Arabic, Chinese...). */
  script?: string;
  note?: string;
}

export interface Wallet {
  /** The list's currency code: XBT, ETH, USDT, TRX, XMR... */
  currency: string;
  address: string;
}

export interface Vessel {
  call_sign?: string;
  vessel_type?: string;
  flag?: string;
  tonnage?: string;
  gross_registered_tonnage?: string;
  owner?: string;
  imo?: string;
}

export interface Entry {
  list: ListCode;
  /** The list's own id: OFAC ent_num, UK Sanctions List ref (or OFSI group id), EU logical id, UN reference number. */
  list_id: string;
  /** Which publication within the list, e.g. "SDN" or "Non-SDN (consolidated)". */
  sublist?: string;
  type: EntryType;
  name: string;
  names: EntryName[];
  programmes: string[];
  countries: string[];
  dates_of_birth: string[];
  places_of_birth: string[];
  nationalities: string[];
  addresses: string[];
  identifiers: string[];
  vessel?: Vessel;
  wallets: Wallet[];
  listed_on?: string;
  remarks?: string;
  other_ids?: Record<string, string>;
}

/** One list's parse: its entries and the date the publication carries, if any. */
export interface ParsedList {
  entries: Entry[];
  date?: string;
  /** Rows that could not be attached (e.g. alt.csv rows whose ent_num is not in an older sdn.csv). */
  unmatched?: number;
}

export function blankEntry(list: ListCode, list_id: string, type: EntryType, name: string): Entry {
  return {
    list, list_id, type, name, names: [{ name, kind: "primary" }], programmes: [], countries: [], dates_of_birth: [], places_of_birth: [],
    nationalities: [], addresses: [], identifiers: [], wallets: [],
  };
}

/** Appends a value to a list field once, ignoring blanks. */
export function addOnce(arr: string[], value: string | undefined | null): void {
  const v = value?.replace(/\s+/g, " ").trim();
  if (v && !arr.includes(v)) arr.push(v);
}

export function addName(e: Entry, name: string | undefined, kind: EntryName["kind"], script?: string, note?: string): void {
  const n = name?.replace(/\s+/g, " ").trim();
  if (!n) return;
  const same = e.names.find((x) => x.name.toLowerCase() === n.toLowerCase());
  if (same) {
    if (kind === "alias" && same.kind === "weak") same.kind = "alias";
    return;
  }
  e.names.push({ name: n, kind, ...(script ? { script } : {}), ...(note ? { note } : {}) });
}

/** "dd/mm/yyyy" (with dd or mm possibly "00" or "dd"/"mm") -> "yyyy-mm-dd", "yyyy-mm" or "yyyy"; anything else is kept. */
export function dmyToIso(s: string): string {
  const m = /^(\d{1,2}|dd|00)\/(\d{1,2}|mm|00)\/(\d{4})$/i.exec(s.trim());
  if (!m) return s.trim();
  const [, d, mo, y] = m;
  if (!/^\d+$/.test(mo) || mo === "00") return y;
  if (!/^\d+$/.test(d) || d === "00") return `${y}-${mo.padStart(2, "0")}`;
  return `${y}-${mo.padStart(2, "0")}-${d.padStart(2, "0")}`;
}

const MONTHS: Record<string, string> = { jan: "01", feb: "02", mar: "03", apr: "04", may: "05", jun: "06", jul: "07", aug: "08", sep: "09", oct: "10", nov: "11", dec: "12" };

/** OFAC's "25 Mar 1977", "Mar 1977", "1977", "circa 1960", "1960 to 1962" -> ISO where exact, else kept. */
export function ofacDate(s: string): string {
  const t = s.trim();
  let m = /^(\d{1,2}) ([A-Za-z]{3}) (\d{4})$/.exec(t);
  if (m && MONTHS[m[2].toLowerCase()]) return `${m[3]}-${MONTHS[m[2].toLowerCase()]}-${m[1].padStart(2, "0")}`;
  m = /^([A-Za-z]{3}) (\d{4})$/.exec(t);
  if (m && MONTHS[m[1].toLowerCase()]) return `${m[2]}-${MONTHS[m[1].toLowerCase()]}`;
  return t;
}

/** Every 4-digit year a date of birth mentions (ranges give each end). */
export function yearsOf(dates: string[]): number[] {
  const out: number[] = [];
  for (const d of dates) for (const m of d.matchAll(/\b(1[89]\d\d|20\d\d)\b/g)) out.push(Number(m[1]));
  return out;
}
