// The UK list in its three publications: the FCDO UK Sanctions List (CSV and XML, the production source since
// OFSI's list was retired) and OFSI's consolidated list in its 2022 format (ConList.csv / .xlsx). The CSV and
// xlsx forms are one row per name; rows are merged per designation into one entry.
import { firstSheetRows } from "../../engine/datasets/xlsx.ts";
import { parse } from "csv-parse/sync";
import { XMLParser } from "fast-xml-parser";
import { addName, addOnce, blankEntry, dmyToIso, type Entry, type EntryType, type ParsedList } from "./types.ts";
import { scriptOf } from "./normalise.ts";

/** One name row of any UK publication, in one vocabulary. */
interface UkRow {
  id: string;
  groupId?: string;
  unRef?: string;
  nameParts: string[];
  nameType?: string;
  aliasStrength?: string;
  title?: string;
  nonLatin?: string;
  nonLatinScript?: string;
  nonLatinLanguage?: string;
  regime?: string;
  type?: string;
  otherInfo?: string;
  reasons?: string;
  sanctionsImposed?: string;
  address?: string[];
  addressCountry?: string;
  dobs?: string[];
  nationalities?: string[];
  townOfBirth?: string;
  countryOfBirth?: string;
  position?: string;
  passport?: string;
  nationalId?: string;
  imo?: string;
  flag?: string;
  shipType?: string;
  tonnage?: string;
  owner?: string;
  listedOn?: string;
}

function entryType(raw: string | undefined): EntryType {
  const t = (raw ?? "").toLowerCase();
  return t === "individual" ? "individual" : t === "ship" || t === "vessel" ? "vessel" : "entity";
}

const split = (v: string | undefined) => (v ?? "").split(/\s*\|\s*|\n/).map((x) => x.trim()).filter(Boolean);

/** OFSI's "Other Information" packs facts as "(Label):value"; this reads one label. */
function tagged(info: string | undefined, label: string): string | undefined {
  if (!info) return undefined;
  const m = new RegExp(`\\(${label.replace(/[()]/g, "\\$&")}\\):\\s*([^(]*?)\\s*(?=\\(|$)`, "i").exec(info);
  return m?.[1].replace(/\.$/, "").trim() || undefined;
}

function mergeRows(rows: UkRow[]): Entry[] {
  const byId = new Map<string, Entry>();
  for (const r of rows) {
    const ukRef = /\(UK Sanctions List Ref\):\s*([A-Z]+\d+)/.exec(r.otherInfo ?? "")?.[1];
    const id = ukRef ?? r.id;
    const name = r.nameParts.filter(Boolean).join(" ").replace(/\s+/g, " ").trim();
    let e = byId.get(id);
    if (!e) {
      if (!name) continue;
      e = blankEntry("uk", id, entryType(r.type), name);
      e.names = [];
      byId.set(id, e);
    }
    const nameType = (r.nameType ?? "").toLowerCase();
    const weak = /low|weak/i.test(r.aliasStrength ?? "");
    if (nameType === "primary name" && e.names[0]?.kind !== "primary") {
      e.name = name;
      e.names = e.names.filter((n) => n.name.toLowerCase() !== name.toLowerCase());
      e.names.unshift({ name, kind: "primary" });
    } else {
      addName(e, name, weak ? "weak" : "alias", undefined, r.nameType || undefined);
    }
    if (r.nonLatin) addName(e, r.nonLatin, "alias", r.nonLatinScript || scriptOf(r.nonLatin), r.nonLatinLanguage || undefined);
    if (r.groupId || r.unRef) e.other_ids = { ...e.other_ids, ...(r.groupId ? { ofsi_group_id: r.groupId } : {}), ...(r.unRef ? { un_reference: r.unRef } : {}) };
    addOnce(e.programmes, r.regime);
    for (const d of r.dobs ?? []) addOnce(e.dates_of_birth, dmyToIso(d));
    for (const n of r.nationalities ?? []) {
      addOnce(e.nationalities, n);
      addOnce(e.countries, n);
    }
    if (r.townOfBirth || r.countryOfBirth) addOnce(e.places_of_birth, [r.townOfBirth, r.countryOfBirth].filter(Boolean).join(", "));
    const address = [...(r.address ?? []), r.addressCountry].filter(Boolean).join(", ");
    addOnce(e.addresses, address);
    addOnce(e.countries, r.addressCountry);
    if (r.passport) addOnce(e.identifiers, `Passport ${r.passport}`);
    if (r.nationalId) addOnce(e.identifiers, `National ID ${r.nationalId}`);
    if (r.position || r.title) e.other_ids = { ...e.other_ids, ...(r.position ? { position: r.position } : {}), ...(r.title ? { title: r.title } : {}) };
    if (r.listedOn && !e.listed_on) e.listed_on = dmyToIso(r.listedOn);
    const remarks = [r.otherInfo, r.reasons && `Statement of reasons: ${r.reasons}`, r.sanctionsImposed && `Sanctions imposed: ${r.sanctionsImposed}`].filter(Boolean).join(" ");
    if (remarks && !e.remarks) e.remarks = remarks;
    const imo = r.imo ?? tagged(r.otherInfo, "IMO number");
    const flag = r.flag ?? tagged(r.otherInfo, "Flag of ship");
    if (e.type === "vessel" || imo) {
      const v = { imo, flag, vessel_type: r.shipType ?? tagged(r.otherInfo, "Type of ship"), tonnage: r.tonnage ?? tagged(r.otherInfo, "Tonnage of ship"),
        owner: r.owner ?? tagged(r.otherInfo, "Current owners") };
      e.vessel = { ...e.vessel, ...Object.fromEntries(Object.entries(v).filter(([, x]) => x)) };
      addOnce(e.countries, flag);
    }
  }
  for (const e of byId.values()) if (e.names[0]?.kind !== "primary") e.names[0].kind = "primary";
  return [...byId.values()];
}

/** Finds a column by its header, whatever the publication's exact spelling and order. */
function columns(header: string[]): (...patterns: RegExp[]) => (row: string[]) => string | undefined {
  const keys = header.map((h) => h.toLowerCase().replace(/[^a-z0-9]/g, ""));
  return (...patterns) => {
    const i = keys.findIndex((k) => patterns.some((p) => p.test(k)));
    return (row) => (i < 0 ? undefined : row[i]?.trim() || undefined);
  };
}

function rowsFromTable(table: string[][]): UkRow[] {
  const h = table.findIndex((r) => r.some((c) => /^name ?6$/i.test(String(c).trim())));
  if (h < 0) throw new Error("no header row with a \"Name 6\" column");
  const col = columns(table[h].map(String));
  const c = {
    id: col(/^uniqueid$/, /^groupid$/), groupId: col(/^(ofsi)?groupid$/), unRef: col(/^unreferencenumber$/),
    names: [1, 2, 3, 4, 5, 6].map((n) => col(new RegExp(`^name${n}$`))),
    nameType: col(/^nametype$/, /^aliastype$/), strength: col(/^aliasstrength$/, /^aliasquality$/), title: col(/^title$/),
    nonLatin: col(/^namenonlatinscript$/), nonLatinScript: col(/^nonlatinscripttype$/), nonLatinLanguage: col(/^nonlatinscriptlanguage$/),
    regime: col(/^regime(name)?$/), type: col(/^designationtype$/, /^grouptype$/, /^individualentityship$/),
    otherInfo: col(/^otherinformation$/), reasons: col(/^ukstatementofreasons$/), imposed: col(/^sanctionsimposed$/),
    address: [1, 2, 3, 4, 5, 6].map((n) => col(new RegExp(`^address(line)?${n}$`))), postcode: col(/postalcode$/, /^postzipcode$/),
    country: col(/^addresscountry$/, /^country$/), dob: col(/^dob$/, /^dateofbirth$/), nationality: col(/^nationalit/),
    town: col(/^townofbirth$/), countryOfBirth: col(/^countryofbirth$/), position: col(/^position$/), passport: col(/^passportnumber$/),
    nationalId: col(/^nationalid(entifier|entification)number$/), imo: col(/^imonumber$/), flag: col(/^currentbelievedflagofship$/),
    shipType: col(/^typeofship$/), tonnage: col(/^tonnageofship$/), owner: col(/^currentowneroperators?$/),
    listedOn: col(/^datedesignated$/, /^listedon$/),
  };
  const out: UkRow[] = [];
  for (const row of table.slice(h + 1).map((r) => r.map((x) => String(x ?? "")))) {
    const id = c.id(row);
    if (!id) continue;
    const [n1, n2, n3, n4, n5, n6] = c.names.map((f) => f(row));
    out.push({
      id, groupId: c.groupId(row), unRef: c.unRef(row), nameParts: [n1, n2, n3, n4, n5, n6].filter((x): x is string => !!x),
      nameType: c.nameType(row), aliasStrength: c.strength(row), title: c.title(row), nonLatin: c.nonLatin(row),
      nonLatinScript: c.nonLatinScript(row), nonLatinLanguage: c.nonLatinLanguage(row), regime: c.regime(row), type: c.type(row),
      otherInfo: c.otherInfo(row), reasons: c.reasons(row), sanctionsImposed: c.imposed(row),
      address: [...c.address.map((f) => f(row)), c.postcode(row)].filter((x): x is string => !!x), addressCountry: c.country(row),
      dobs: split(c.dob(row)), nationalities: split(c.nationality(row)), townOfBirth: c.town(row), countryOfBirth: c.countryOfBirth(row),
      position: c.position(row), passport: c.passport(row), nationalId: c.nationalId(row), imo: c.imo(row), flag: c.flag(row),
      shipType: c.shipType(row), tonnage: c.tonnage(row), owner: c.owner(row), listedOn: c.listedOn(row),
    });
  }
  return out;
}

/** The date a table's preamble gives ("Last Updated | 10/04/2025", "Report Date: 08-Oct-2025"). */
function preambleDate(table: string[][]): string | undefined {
  for (const row of table.slice(0, 3)) {
    const cells = row.map(String).join(" ");
    const dmy = /(\d{1,2}\/\d{1,2}\/\d{4})/.exec(cells);
    if (dmy) return dmyToIso(dmy[1]);
    const named = /(\d{1,2})[- ]([A-Za-z]{3})[a-z]*[- ](\d{4})/.exec(cells);
    if (named) {
      const d = new Date(`${named[1]} ${named[2]} ${named[3]} UTC`);
      if (!Number.isNaN(d.getTime())) return d.toISOString().slice(0, 10);
    }
  }
  return undefined;
}

/** OFSI ConList.xlsx (2022 format). */
export function parseOfsiXlsx(bytes: Buffer): ParsedList {
  const table = firstSheetRows(bytes);
  return { entries: mergeRows(rowsFromTable(table)), date: preambleDate(table) };
}

/** A CSV publication: the FCDO UK Sanctions List CSV or OFSI's ConList.csv (both start with a dated preamble row). */
export function parseUkCsv(text: string): ParsedList {
  const table = parse(text.replace(/^\uFEFF/, ""), { relax_quotes: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  return { entries: mergeRows(rowsFromTable(table)), date: preambleDate(table) };
}

type Node = Record<string, any>;
const XML_ARRAYS = new Set(["Designation", "Name", "NonLatinName", "Address", "DOB", "Nationality", "Location", "Position", "IMONumber",
  "CurrentBelievedFlagOfShip", "TypeOfShip", "CurrentOwnerOperator", "TonnageOfShip", "PassportNumber", "NationalIdentifierNumber"]);
const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined || v === "" ? [] : Array.isArray(v) ? v : [v]);
const text = (v: unknown): string | undefined => (v === undefined || v === null || typeof v === "object" ? undefined : String(v).trim() || undefined);
const all = (v: unknown): string[] => arr(v as Node).map(text).filter((x): x is string => !!x);

/** The FCDO UK Sanctions List XML: <Designations><Designation> with <Names>, <NonLatinNames>, addresses and details. */
export function parseFcdoXml(xml: string): ParsedList {
  const parser = new XMLParser({ ignoreAttributes: true, isArray: (n) => XML_ARRAYS.has(n), parseTagValue: false });
  const root = (parser.parse(xml) as Node).Designations;
  if (!root) throw new Error("not the UK Sanctions List XML (no <Designations>)");
  const rows: UkRow[] = [];
  for (const d of arr<Node>(root.Designation)) {
    const id = text(d.UniqueID);
    if (!id) continue;
    const person = arr<Node>(d.IndividualDetails?.Individual)[0] ?? {};
    const ship = arr<Node>(d.ShipDetails?.Ship)[0] ?? {};
    const base: UkRow = {
      id, groupId: text(d.OFSIGroupID), unRef: text(d.UNReferenceNumber), nameParts: [], regime: text(d.RegimeName), type: text(d.IndividualEntityShip),
      otherInfo: text(d.OtherInformation), reasons: text(d.UKStatementofReasons), sanctionsImposed: text(d.SanctionsImposed), listedOn: text(d.DateDesignated),
      dobs: all(person.DOBs?.DOB), nationalities: all(person.Nationalities?.Nationality), position: all(person.Positions?.Position).join("; ") || undefined,
      imo: all(ship.IMONumbers?.IMONumber)[0], flag: all(ship.CurrentBelievedFlagOfShips?.CurrentBelievedFlagOfShip)[0],
      shipType: all(ship.TypeOfShipDetails?.TypeOfShip)[0], tonnage: all(ship.TonnageOfShipDetails?.TonnageOfShip)[0],
      owner: all(ship.CurrentOwnerOperators?.CurrentOwnerOperator).join("; ") || undefined,
    };
    const location = arr<Node>(person.BirthDetails?.Location)[0];
    if (location) Object.assign(base, { townOfBirth: text(location.TownOfBirth), countryOfBirth: text(location.CountryOfBirth) });
    const names = arr<Node>(d.Names?.Name);
    names.sort((a, b) => Number(text(b.NameType) === "Primary Name") - Number(text(a.NameType) === "Primary Name"));
    for (const n of names) {
      rows.push({ ...base, nameParts: [n.Name1, n.Name2, n.Name3, n.Name4, n.Name5, n.Name6].map(text).filter((x): x is string => !!x),
        nameType: text(n.NameType), aliasStrength: text(n.AliasStrength) });
    }
    for (const n of arr<Node>(d.NonLatinNames?.NonLatinName)) {
      rows.push({ ...base, nameParts: [], nonLatin: text(n.NameNonLatinScript), nonLatinScript: text(n.NonLatinScriptType), nonLatinLanguage: text(n.NonLatinScriptLanguage) });
    }
    for (const a of arr<Node>(d.Addresses?.Address)) {
      rows.push({ ...base, nameParts: [], address: [a.AddressLine1, a.AddressLine2, a.AddressLine3, a.AddressLine4, a.AddressLine5, a.AddressLine6, a.AddressPostalCode]
        .map(text).filter((x): x is string => !!x), addressCountry: text(a.AddressCountry) });
    }
  }
  const generated = text(root.DateGenerated);
  return { entries: mergeRows(rows), date: generated ? dmyToIso(generated) : undefined };
}
