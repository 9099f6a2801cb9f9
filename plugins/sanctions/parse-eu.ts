// The EU Financial Sanctions Files XML (xmlFullSanctionsList_1_1, namespace http://eu.europa.ec/fpi/fsd/export):
// <export generationDate> with <sanctionEntity logicalId euReferenceNumber>, each holding <regulation programme>,
// <subjectType code="person|enterprise">, <nameAlias wholeName strong nameLanguage>, <citizenship>, <birthdate>,
// <address>, <identification> and <remark>. Everything is in attributes.
import { XMLParser } from "fast-xml-parser";
import { addName, addOnce, blankEntry, type Entry, type EntryType, type ParsedList } from "./types.ts";
import { scriptOf } from "./normalise.ts";

type Node = Record<string, any>;
const ARRAYS = new Set(["sanctionEntity", "regulation", "nameAlias", "citizenship", "birthdate", "address", "identification", "remark"]);
const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const attr = (n: Node | undefined, k: string): string => String(n?.[`@${k}`] ?? "").trim();
const text = (v: unknown): string => (typeof v === "object" && v ? String((v as Node)["#text"] ?? "") : String(v ?? "")).trim();

function entryType(code: string): EntryType {
  return code === "person" ? "individual" : "entity";
}

function birthdate(b: Node): string {
  if (attr(b, "birthdate")) return attr(b, "birthdate");
  const y = attr(b, "year");
  if (!y) return "";
  const m = attr(b, "monthOfYear");
  return m ? `${y}-${m.padStart(2, "0")}` : attr(b, "circa") === "true" ? `circa ${y}` : y;
}

export function parseEu(xml: string): ParsedList {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", removeNSPrefix: true, isArray: (n) => ARRAYS.has(n), parseTagValue: false, parseAttributeValue: false });
  const root = (parser.parse(xml) as Node).export;
  if (!root) throw new Error("not the EU financial sanctions XML (no <export>)");
  const entries: Entry[] = [];
  for (const s of arr<Node>(root.sanctionEntity)) {
    const aliases = arr<Node>(s.nameAlias).filter((a) => attr(a, "wholeName"));
    if (!aliases.length) continue;
    const id = attr(s, "logicalId");
    // The first strong Latin alias is the name the EU's own search shows first.
    const primary = aliases.find((a) => attr(a, "strong") !== "false" && !scriptOf(attr(a, "wholeName"))) ?? aliases[0];
    const e = blankEntry("eu", id, entryType(attr(s.subjectType, "code")), attr(primary, "wholeName"));
    e.other_ids = Object.fromEntries(Object.entries({ eu_reference: attr(s, "euReferenceNumber"), un_reference: attr(s, "unitedNationId") }).filter(([, v]) => v));
    e.listed_on = attr(s, "designationDate") || undefined;
    for (const r of arr<Node>(s.regulation)) addOnce(e.programmes, attr(r, "programme"));
    for (const a of aliases) {
      const name = attr(a, "wholeName");
      const script = scriptOf(name);
      addName(e, name, attr(a, "strong") === "false" ? "weak" : "alias", script ? `${script}${attr(a, "nameLanguage") ? ` (${attr(a, "nameLanguage")})` : ""}` : undefined,
        attr(a, "function") || undefined);
    }
    for (const c of arr<Node>(s.citizenship)) {
      addOnce(e.nationalities, attr(c, "countryDescription"));
      addOnce(e.countries, attr(c, "countryDescription"));
    }
    for (const b of arr<Node>(s.birthdate)) {
      addOnce(e.dates_of_birth, birthdate(b));
      addOnce(e.places_of_birth, [attr(b, "city"), attr(b, "place"), attr(b, "countryDescription")].filter(Boolean).join(", "));
    }
    for (const a of arr<Node>(s.address)) {
      addOnce(e.addresses, ["street", "poBox", "city", "zipCode", "region", "place", "countryDescription"].map((k) => attr(a, k)).filter(Boolean).join(", "));
      addOnce(e.countries, attr(a, "countryDescription"));
    }
    for (const i of arr<Node>(s.identification)) {
      addOnce(e.identifiers, [attr(i, "identificationTypeDescription"), attr(i, "number"), attr(i, "countryDescription")].filter(Boolean).join(" "));
    }
    const remarks = arr(s.remark).map(text).filter(Boolean);
    if (remarks.length) e.remarks = remarks.join(" ");
    entries.push(e);
  }
  return { entries, date: attr(root, "generationDate").slice(0, 10) || undefined };
}
