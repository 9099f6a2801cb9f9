// The UN Security Council consolidated list (consolidated.xml, schema sc-sanctions.xsd): <CONSOLIDATED_LIST
// dateGenerated> with <INDIVIDUALS><INDIVIDUAL> and <ENTITIES><ENTITY>. Alias QUALITY is Good, a.k.a. or f.k.a.
// (strong) or Low (weak).
import { XMLParser } from "fast-xml-parser";
import { addName, addOnce, blankEntry, type Entry, type ParsedList } from "./types.ts";
import { scriptOf } from "./normalise.ts";

type Node = Record<string, any>;

const ARRAYS = new Set(["INDIVIDUAL", "ENTITY", "INDIVIDUAL_ALIAS", "ENTITY_ALIAS", "INDIVIDUAL_ADDRESS", "ENTITY_ADDRESS", "INDIVIDUAL_DATE_OF_BIRTH",
  "INDIVIDUAL_PLACE_OF_BIRTH", "INDIVIDUAL_DOCUMENT", "VALUE", "NATIONALITY", "TITLE", "DESIGNATION"]);

const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined || v === "" ? [] : Array.isArray(v) ? v : [v]);
const text = (v: unknown): string => (v === undefined || v === null || typeof v === "object" ? "" : String(v)).trim();
const values = (v: unknown): string[] => arr<Node>(v as Node).flatMap((x) => arr(x?.VALUE).map(text)).filter(Boolean);

function dateOfBirth(d: Node): string {
  if (text(d.DATE)) return text(d.DATE);
  if (text(d.FROM_YEAR)) return `${text(d.FROM_YEAR)} to ${text(d.TO_YEAR)}`;
  const y = text(d.YEAR);
  if (!y) return "";
  return text(d.TYPE_OF_DATE) === "APPROXIMATELY" ? `circa ${y}` : y;
}

function record(r: Node, individual: boolean): Entry | undefined {
  const name = [r.FIRST_NAME, r.SECOND_NAME, r.THIRD_NAME, r.FOURTH_NAME].map(text).filter(Boolean).join(" ");
  const ref = text(r.REFERENCE_NUMBER) || text(r.DATAID);
  if (!name || !ref) return undefined;
  const e = blankEntry("un", ref, individual ? "individual" : "entity", name);
  e.other_ids = { dataid: text(r.DATAID) };
  addOnce(e.programmes, text(r.UN_LIST_TYPE));
  e.listed_on = text(r.LISTED_ON) || undefined;
  e.remarks = text(r.COMMENTS1) || undefined;
  for (const a of arr<Node>(individual ? r.INDIVIDUAL_ALIAS : r.ENTITY_ALIAS)) {
    const quality = text(a.QUALITY);
    addName(e, text(a.ALIAS_NAME), quality === "Low" ? "weak" : "alias", undefined, quality || undefined);
  }
  const original = text(r.NAME_ORIGINAL_SCRIPT);
  if (original) addName(e, original, "alias", scriptOf(original) ?? "original script");
  for (const n of values(r.NATIONALITY)) {
    addOnce(e.nationalities, n);
    addOnce(e.countries, n);
  }
  for (const a of arr<Node>(individual ? r.INDIVIDUAL_ADDRESS : r.ENTITY_ADDRESS)) {
    const country = text(a.COUNTRY);
    addOnce(e.addresses, [a.STREET, a.CITY, a.STATE_PROVINCE, a.ZIP_CODE, a.COUNTRY, a.NOTE].map(text).filter(Boolean).join(", "));
    addOnce(e.countries, country);
  }
  for (const d of arr<Node>(r.INDIVIDUAL_DATE_OF_BIRTH)) addOnce(e.dates_of_birth, dateOfBirth(d));
  for (const p of arr<Node>(r.INDIVIDUAL_PLACE_OF_BIRTH)) addOnce(e.places_of_birth, [p.CITY, p.STATE_PROVINCE, p.COUNTRY].map(text).filter(Boolean).join(", "));
  for (const d of arr<Node>(r.INDIVIDUAL_DOCUMENT)) {
    addOnce(e.identifiers, [d.TYPE_OF_DOCUMENT, d.NUMBER, d.ISSUING_COUNTRY ?? d.COUNTRY_OF_ISSUE, d.NOTE].map(text).filter(Boolean).join(" "));
  }
  const titles = values(r.TITLE);
  const designations = values(r.DESIGNATION);
  if (titles.length || designations.length) e.other_ids = { ...e.other_ids, ...(titles.length ? { title: titles.join("; ") } : {}), ...(designations.length ? { designation: designations.join("; ") } : {}) };
  return e;
}

export function parseUn(xml: string): ParsedList {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", isArray: (name) => ARRAYS.has(name), parseTagValue: false });
  const root = (parser.parse(xml) as Node).CONSOLIDATED_LIST;
  if (!root) throw new Error("not the UN consolidated list (no <CONSOLIDATED_LIST>)");
  const entries: Entry[] = [];
  for (const r of arr<Node>(root.INDIVIDUALS?.INDIVIDUAL)) {
    const e = record(r, true);
    if (e) entries.push(e);
  }
  for (const r of arr<Node>(root.ENTITIES?.ENTITY)) {
    const e = record(r, false);
    if (e) entries.push(e);
  }
  const generated = String(root["@dateGenerated"] ?? "");
  return { entries, date: generated.slice(0, 10) || undefined };
}
