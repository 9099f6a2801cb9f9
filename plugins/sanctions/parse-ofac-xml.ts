// OFAC's enhanced XML (SDN_ENHANCED / CONS_ENHANCED, usually zipped): <sanctionsData> with <entities><entity>, each
// with names in several translations (scripts), addresses, and typed features (birthdate, nationality, vessel
// details, digital currency addresses).
import { XMLParser } from "fast-xml-parser";
import { isZip, zipEntries } from "../../engine/datasets/zip.ts";
import { addName, addOnce, blankEntry, ofacDate, type Entry, type EntryType, type ParsedList } from "./types.ts";

type Node = Record<string, any>;

const ARRAYS = new Set(["entity", "sanctionsList", "sanctionsProgram", "name", "translation", "namePart", "address", "addressPart", "feature", "identityDocument"]);

const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const text = (v: unknown): string => (v === undefined || v === null ? "" : typeof v === "object" ? String((v as Node)["#text"] ?? "") : String(v)).trim();

/** The XML inside an OFAC zip (or the bytes themselves when they are already XML). */
export function unzipXml(bytes: Buffer): string {
  if (!isZip(bytes)) return bytes.toString("utf8");
  const file = zipEntries(bytes).find((f) => /\.xml$/i.test(f.name));
  if (!file) throw new Error("the zip holds no .xml file");
  return file.read().toString("utf8");
}

function entryType(raw: string): EntryType {
  const t = raw.toLowerCase();
  return t === "individual" || t === "vessel" || t === "aircraft" ? t : "entity";
}

/** "HANIYA, Ismail" -> "Ismail HANIYA" for people; entity names as written. */
function fullName(tr: Node, type: EntryType): string {
  const first = text(tr.formattedFirstName);
  const last = text(tr.formattedLastName);
  if (type === "individual" && first && last) return `${first} ${last}`;
  return text(tr.formattedFullName) || [first, last].filter(Boolean).join(" ");
}

function applyFeature(e: Entry, f: Node): void {
  const type = text(f.type);
  const value = text(f.value);
  if (!value) return;
  let m: RegExpExecArray | null;
  if (type === "Birthdate") addOnce(e.dates_of_birth, ofacDate(value));
  else if (type === "Place of Birth") addOnce(e.places_of_birth, value);
  else if (type === "Nationality Country" || type === "Citizenship Country") {
    addOnce(e.nationalities, value);
    addOnce(e.countries, value);
  } else if ((m = /^Digital Currency Address - (\S+)/.exec(type))) {
    if (!e.wallets.some((w) => w.address === value && w.currency === m![1])) e.wallets.push({ currency: m[1], address: value });
  } else if (type.startsWith("Vessel")) {
    const v = (e.vessel ??= {});
    if (type === "Vessel Call Sign") v.call_sign = value;
    else if (type === "Vessel Type") v.vessel_type = value;
    else if (type === "Vessel Flag") {
      v.flag = value;
      addOnce(e.countries, value);
    } else if (type === "Vessel Tonnage") v.tonnage = value;
    else if (type === "Vessel Gross Registered Tonnage") v.gross_registered_tonnage = value;
    else if (type === "Vessel Owner") v.owner = value;
    else if (type === "Vessel Registration Identification") v.imo = value.replace(/^IMO\s*/, "");
  } else if (/Nationality of Registration|Registration Country/.test(type)) addOnce(e.countries, value);
}

export function parseOfacXml(xml: string, sublist: string): ParsedList {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", removeNSPrefix: true, isArray: (name) => ARRAYS.has(name), parseTagValue: false });
  const doc = parser.parse(xml) as Node;
  const root = doc.sanctionsData;
  if (!root) throw new Error("not an OFAC enhanced XML file (no <sanctionsData>)");
  const date = text(root.publicationInfo?.dataAsOf).slice(0, 10) || undefined;
  const entries: Entry[] = [];
  for (const ent of arr<Node>(root.entities?.entity)) {
    const type = entryType(text(ent.generalInfo?.entityType));
    const names = arr<Node>(ent.names?.name);
    const primary = names.find((n) => text(n.isPrimary) === "true") ?? names[0];
    const primaryTr = arr<Node>(primary?.translations?.translation).find((t) => text(t.isPrimary) === "true");
    const name = primaryTr ? fullName(primaryTr, type) : "";
    if (!name) continue;
    const e = blankEntry("us-ofac", String(ent["@id"]), type, name);
    const lists = arr<Node>(ent.sanctionsLists?.sanctionsList).map(text);
    e.sublist = lists.includes("SDN List") ? "SDN" : sublist;
    for (const p of arr<Node>(ent.sanctionsPrograms?.sanctionsProgram)) addOnce(e.programmes, text(p));
    for (const n of names) {
      const weak = text(n.isLowQuality) === "true";
      const kind = n === primary ? "primary" : weak ? "weak" : "alias";
      const aliasType = text(n.aliasType) || undefined;
      for (const tr of arr<Node>(n.translations?.translation)) {
        const script = text(tr.script);
        addName(e, fullName(tr, type), kind === "primary" && text(tr.isPrimary) !== "true" ? "alias" : kind, script && script !== "Latin" ? script : undefined, aliasType);
      }
    }
    for (const a of arr<Node>(ent.addresses?.address)) {
      const country = text(a.country);
      const parts = arr<Node>(a.translations?.translation).filter((t) => text(t.isPrimary) === "true")
        .flatMap((t) => arr<Node>(t.addressParts?.addressPart).map((p) => text(p.value)));
      addOnce(e.addresses, [...parts, country].filter(Boolean).join(", "));
      addOnce(e.countries, country);
    }
    for (const f of arr<Node>(ent.features?.feature)) applyFeature(e, f);
    for (const d of arr<Node>(ent.identityDocuments?.identityDocument)) {
      addOnce(e.identifiers, [text(d.type), text(d.documentNumber), text(d.issuingCountry)].filter(Boolean).join(" "));
    }
    entries.push(e);
  }
  return { entries, date };
}
