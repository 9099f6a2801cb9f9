// Get Information About Schools (GIAS, Department for Education, OGL v3): the daily "all establishment data"
// extract, edubasealldataYYYYMMDD.csv, one row per establishment in England (open and closed, about 50,000),
// 139+ columns matched by header name (newer extracts add columns). The file is Windows-1252, not UTF-8.
// Easting/Northing are British National Grid metres, converted to WGS84 here. Headteacher and proprietor names
// (HeadTitle, HeadFirstName, HeadLastName, HeadPreferredJobTitle, PropsName) are deliberately not stored.
import { parse } from "csv-parse/sync";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { DatasetDefinition } from "../../engine/datasets/types.ts";
import { gridToWgs84 } from "../shared/osgb.ts";

const FILE = "edubasealldata.csv";

/** The columns we read: a file without them is not the GIAS format. */
const COLUMNS = ["URN", "LA (code)", "LA (name)", "EstablishmentName", "TypeOfEstablishment (name)", "EstablishmentTypeGroup (name)",
  "EstablishmentStatus (code)", "EstablishmentStatus (name)", "OpenDate", "CloseDate", "ReasonEstablishmentClosed (name)",
  "PhaseOfEducation (name)", "StatutoryLowAge", "StatutoryHighAge", "Boarders (name)", "NurseryProvision (name)",
  "OfficialSixthForm (name)", "Gender (name)", "ReligiousCharacter (name)", "Diocese (name)", "AdmissionsPolicy (name)",
  "SchoolCapacity", "CensusDate", "NumberOfPupils", "NumberOfBoys", "NumberOfGirls", "PercentageFSM", "TrustSchoolFlag (name)",
  "Trusts (code)", "Trusts (name)", "SchoolSponsors (name)", "Federations (name)", "UKPRN", "OfstedLastInsp", "OfstedRating (name)",
  "LastChangedDate", "Street", "Locality", "Address3", "Town", "County (name)", "Postcode", "SchoolWebsite", "TelephoneNum",
  "TypeOfResourcedProvision (name)", "ResourcedProvisionOnRoll", "ResourcedProvisionCapacity", "SenUnitOnRoll", "SenUnitCapacity",
  "GOR (code)", "GOR (name)", "DistrictAdministrative (code)", "DistrictAdministrative (name)", "AdministrativeWard (code)",
  "AdministrativeWard (name)", "ParliamentaryConstituency (code)", "ParliamentaryConstituency (name)", "UrbanRural (name)",
  "GSSLACode (name)", "Easting", "Northing", "MSOA (code)", "LSOA (code)", "UPRN"];

/** GIAS PhaseOfEducation (name) -> the phase words of the specification. "Not applicable" has none. */
export const PHASES: Record<string, string> = {
  "Nursery": "nursery", "Primary": "primary", "Middle deemed primary": "middle-primary", "Secondary": "secondary",
  "Middle deemed secondary": "middle-secondary", "16 plus": "16-plus", "All-through": "all-through",
};
/** EstablishmentStatus (code): 1 Open, 2 Closed, 3 Open but proposed to close... as GIAS numbers them; our words by name. */
const STATUS: Record<string, string> = { "Open": "open", "Closed": "closed", "Open, but proposed to close": "open-proposed-to-close", "Proposed to open": "proposed-to-open" };

type Row = Record<string, string>;

/** GIAS writes "Not applicable", "Does not apply" and empty strings for missing values. */
const text = (v: string | undefined) => (v === undefined || v === "" || v === "Not applicable" || v === "Does not apply" ? null : v.trim());
const num = (v: string | undefined) => (v === undefined || v.trim() === "" || !Number.isFinite(Number(v)) ? null : Number(v));
/** DD-MM-YYYY -> YYYY-MM-DD. */
const day = (v: string | undefined) => {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(v ?? "");
  return m ? `${m[3]}-${m[2]}-${m[1]}` : null;
};
const area = (code: string | undefined, name: string | undefined, type: string) =>
  text(code) || text(name) ? { code: text(code), name: text(name), type } : null;

/** The file's bytes as text: Windows-1252 as GIAS publishes it, or UTF-8 should a future extract switch. */
export function decodeGias(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/** One school as every endpoint shows it (the full record); lists show `compactSchool` of it. */
function schoolRecord(r: Row) {
  const urn = Number(r.URN);
  const e = num(r.Easting);
  const n = num(r.Northing);
  const location = e !== null && n !== null && e > 0 && n > 0 ? gridToWgs84(e, n) : null;
  const addressLines = [r.Street, r.Locality, r.Address3].map(text).filter((x): x is string => x !== null);
  const town = text(r.Town);
  const postcode = text(r.Postcode)?.toUpperCase() ?? null;
  const sen = Array.from({ length: 13 }, (_, i) => text(r[`SEN${i + 1} (name)`])).filter((x): x is string => x !== null);
  const status = STATUS[r["EstablishmentStatus (name)"]] ?? r["EstablishmentStatus (name)"].toLowerCase().replace(/[^a-z]+/g, "-");
  const trustName = text(r["Trusts (name)"]);
  return {
    urn,
    name: r.EstablishmentName.trim(),
    type: text(r["TypeOfEstablishment (name)"]),
    type_group: text(r["EstablishmentTypeGroup (name)"]),
    status,
    status_text: r["EstablishmentStatus (name)"],
    phase: PHASES[r["PhaseOfEducation (name)"]] ?? null,
    phase_text: text(r["PhaseOfEducation (name)"]),
    ages: { low: num(r.StatutoryLowAge), high: num(r.StatutoryHighAge) },
    gender: text(r["Gender (name)"]),
    religious_character: text(r["ReligiousCharacter (name)"]),
    diocese: text(r["Diocese (name)"]),
    admissions_policy: text(r["AdmissionsPolicy (name)"]),
    boarders: text(r["Boarders (name)"]),
    nursery_provision: text(r["NurseryProvision (name)"]),
    sixth_form: text(r["OfficialSixthForm (name)"]),
    capacity: num(r.SchoolCapacity),
    pupils: num(r.NumberOfPupils),
    boys: num(r.NumberOfBoys),
    girls: num(r.NumberOfGirls),
    census_date: day(r.CensusDate),
    fsm_percent: num(r.PercentageFSM),
    trust: trustName ? { code: text(r["Trusts (code)"]), name: trustName, relationship: text(r["TrustSchoolFlag (name)"]) } : null,
    sponsor: text(r["SchoolSponsors (name)"]),
    federation: text(r["Federations (name)"]),
    sen_provision: {
      needs: sen,
      resourced_provision: text(r["TypeOfResourcedProvision (name)"]),
      resourced_provision_pupils: num(r.ResourcedProvisionOnRoll),
      resourced_provision_capacity: num(r.ResourcedProvisionCapacity),
      sen_unit_pupils: num(r.SenUnitOnRoll),
      sen_unit_capacity: num(r.SenUnitCapacity),
    },
    ofsted_rating: text(r["OfstedRating (name)"]),
    ofsted_last_inspection_date: day(r.OfstedLastInsp),
    opened_date: day(r.OpenDate),
    closed_date: day(r.CloseDate),
    close_reason: text(r["ReasonEstablishmentClosed (name)"]),
    address: [...addressLines, town, postcode].filter(Boolean).join(", ") || null,
    address_lines: addressLines,
    town,
    county: text(r["County (name)"]),
    postcode,
    website: text(r.SchoolWebsite),
    telephone: text(r.TelephoneNum),
    local_authority: { code: text(r["GSSLACode (name)"]), la_code: text(r["LA (code)"]), name: text(r["LA (name)"]), type: "local-authority" },
    district: area(r["DistrictAdministrative (code)"], r["DistrictAdministrative (name)"], "local-authority-district"),
    ward: area(r["AdministrativeWard (code)"], r["AdministrativeWard (name)"], "ward"),
    constituency: area(r["ParliamentaryConstituency (code)"], r["ParliamentaryConstituency (name)"], "constituency"),
    region: area(r["GOR (code)"], r["GOR (name)"], "region"),
    lsoa: text(r["LSOA (code)"]),
    msoa: text(r["MSOA (code)"]),
    urban_rural: text(r["UrbanRural (name)"]),
    location: location ? { lat: round6(location.latitude), lng: round6(location.longitude) } : null,
    easting: e,
    northing: n,
    ukprn: text(r.UKPRN),
    uprn: text(r.UPRN),
    last_changed_date: day(r.LastChangedDate),
    url: `https://get-information-schools.service.gov.uk/Establishments/Establishment/Details/${urn}`,
  };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export type SchoolRecord = ReturnType<typeof schoolRecord>;

/** What a list shows of a school. */
export function compactSchool(s: SchoolRecord) {
  return {
    urn: s.urn, name: s.name, type: s.type, phase: s.phase, phase_text: s.phase_text, status: s.status, ages: s.ages,
    gender: s.gender, pupils: s.pupils, capacity: s.capacity, ofsted_rating: s.ofsted_rating, address: s.address, postcode: s.postcode,
    local_authority: s.local_authority.name, location: s.location, url: s.url,
  };
}

const SCHEMA = `
CREATE TABLE schools (urn INTEGER PRIMARY KEY, name TEXT NOT NULL, open INTEGER NOT NULL, phase TEXT, postcode TEXT, district TEXT,
  la_code TEXT, la_gss TEXT, la_name TEXT, lat REAL, lng REAL, record TEXT NOT NULL);
CREATE VIRTUAL TABLE schools_geo USING rtree(id, min_lat, max_lat, min_lng, max_lng);
CREATE VIRTUAL TABLE schools_fts USING fts5(name, content='schools', content_rowid='urn', tokenize='unicode61 remove_diacritics 2');
`;
const INDEXES = `
CREATE INDEX schools_postcode ON schools(postcode);
CREATE INDEX schools_district ON schools(district);
CREATE INDEX schools_la_code ON schools(la_code);
CREATE INDEX schools_la_gss ON schools(la_gss);
CREATE INDEX schools_la_name ON schools(la_name COLLATE NOCASE);
INSERT INTO schools_fts(schools_fts) VALUES('rebuild');
`;

export interface SchoolIndex {
  byUrn: StatementSync;
  inBox: StatementSync;
  db: DatabaseSync;
}

/** Today's extract as GIAS names it, edubasealldataYYYYMMDD.csv (the London day). */
function todaysFile(): string {
  const d = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/London", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
  return `/edubase/downloads/public/edubasealldata${d.replace(/-/g, "")}.csv`;
}

const definition: DatasetDefinition<SchoolIndex> = {
  name: "schools",
  folder: "schools_gias",
  title: "Get Information About Schools: all establishments in England (DfE)",
  source: "gias",
  // The download's name carries the day: a getter, so each daily refresh asks for that day's extract.
  files: [{ name: FILE, get path() { return todaysFile(); } }],
  refresh: "1d",
  // edubasealldata is about 60 MB of CSV and grows.
  maxBytes: 256 * 1024 * 1024,
  licence: "Open Government Licence v3.0",
  attribution: "Contains public sector information licensed under the Open Government Licence v3.0 (Department for Education, Get Information About Schools)",

  async load(input, db, progress) {
    progress.log(`reading ${FILE}`);
    const csv = decodeGias(await input.bytes(FILE));
    let rows: Row[];
    try {
      rows = parse(csv, { columns: true, bom: true, skip_empty_lines: true, relax_column_count: false }) as Row[];
    } catch (e) {
      throw new Error(`${FILE} is not well-formed CSV, perhaps cut short (${(e as Error).message})`);
    }
    if (!rows.length) throw new Error(`${FILE} has no rows`);
    const missing = COLUMNS.filter((c) => !(c in rows[0]));
    if (missing.length) throw new Error(`${FILE} lacks the columns ${missing.join(", ")}; is it the GIAS establishment extract?`);
    db.exec(SCHEMA);
    db.exec("BEGIN");
    const insert = db.prepare("INSERT INTO schools VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    const geo = db.prepare("INSERT INTO schools_geo VALUES (?,?,?,?,?)");
    progress.phase("loading schools", rows.length);
    let n = 0;
    let open = 0;
    for (const r of rows) {
      if (!/^\d+$/.test(r.URN)) throw new Error(`${FILE}: row ${n + 2} has no numeric URN (${JSON.stringify(r.URN)})`);
      const s = schoolRecord(r);
      const isOpen = s.status === "open" || s.status === "open-proposed-to-close";
      if (isOpen) open++;
      insert.run(s.urn, s.name, isOpen ? 1 : 0, s.phase, s.postcode, s.postcode?.split(" ")[0] ?? null, s.local_authority.la_code,
        s.local_authority.code, s.local_authority.name, s.location?.lat ?? null, s.location?.lng ?? null, JSON.stringify(s));
      if (s.location) geo.run(s.urn, s.location.lat, s.location.lat, s.location.lng, s.location.lng);
      if (++n % 5000 === 0) progress.tick(5000);
    }
    progress.tick(n % 5000);
    if (!open) throw new Error(`${FILE} has no open establishments; it is not a plausible extract`);
    progress.log("indexing");
    db.exec(INDEXES);
    db.exec("COMMIT");
    const last = db.prepare("SELECT max(json_extract(record, '$.last_changed_date')) AS d FROM schools").get() as { d: string | null };
    return { counts: { schools: n, open }, ...(last.d ? { dataDates: { last_changed: last.d } } : {}) };
  },

  index(db) {
    return {
      db,
      byUrn: db.prepare("SELECT record FROM schools WHERE urn = ?"),
      inBox: db.prepare(`SELECT s.record, s.lat, s.lng, s.phase FROM schools s JOIN schools_geo g ON g.id = s.urn
        WHERE s.open = 1 AND g.min_lat >= $minLat AND g.max_lat <= $maxLat AND g.min_lng >= $minLng AND g.max_lng <= $maxLng`),
    };
  },
};

export default definition;
