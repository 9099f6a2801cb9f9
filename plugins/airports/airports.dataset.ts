// OurAirports (https://ourairports.com/data/): airports, runways, frequencies, countries, regions and navaids,
// loaded into SQLite with an R*Tree on airport and navaid positions (for `near`) and FTS5 on names (for `search`).
import { parse } from "csv-parse/sync";
import type { DatabaseSync } from "node:sqlite";
import { prepareQueries, type AirportQueries } from "./queries.ts";
import type { DatasetDefinition, DatasetInput, DatasetProgress } from "../../engine/datasets/types.ts";

type Row = Record<string, string>;

const SCHEMA = `
CREATE TABLE airports (id INTEGER PRIMARY KEY, ident TEXT NOT NULL, type TEXT NOT NULL, name TEXT NOT NULL, lat REAL, lng REAL,
  elevation_ft INTEGER, continent TEXT, iso_country TEXT, iso_region TEXT, municipality TEXT, scheduled INTEGER NOT NULL,
  icao_code TEXT, iata_code TEXT, gps_code TEXT, local_code TEXT, home_link TEXT, wikipedia_link TEXT, keywords TEXT);
CREATE VIRTUAL TABLE airports_geo USING rtree(id, min_lat, max_lat, min_lng, max_lng);
CREATE VIRTUAL TABLE airports_fts USING fts5(name, municipality, keywords, content='airports', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TABLE runways (id INTEGER PRIMARY KEY, airport_id INTEGER NOT NULL, length_ft INTEGER, width_ft INTEGER, surface TEXT,
  lighted INTEGER, closed INTEGER,
  le_ident TEXT, le_lat REAL, le_lng REAL, le_elevation_ft INTEGER, le_heading REAL, le_displaced_ft INTEGER,
  he_ident TEXT, he_lat REAL, he_lng REAL, he_elevation_ft INTEGER, he_heading REAL, he_displaced_ft INTEGER);
CREATE TABLE frequencies (id INTEGER PRIMARY KEY, airport_id INTEGER NOT NULL, type TEXT, description TEXT, mhz REAL);
CREATE TABLE countries (code TEXT PRIMARY KEY, name TEXT NOT NULL, continent TEXT, wikipedia_link TEXT, keywords TEXT);
CREATE TABLE regions (code TEXT PRIMARY KEY, local_code TEXT, name TEXT NOT NULL, continent TEXT, iso_country TEXT, wikipedia_link TEXT, keywords TEXT);
CREATE TABLE navaids (id INTEGER PRIMARY KEY, ident TEXT, name TEXT, type TEXT, frequency_khz REAL, lat REAL, lng REAL,
  elevation_ft INTEGER, iso_country TEXT, dme_frequency_khz REAL, dme_channel TEXT, magnetic_variation_deg REAL,
  usage_type TEXT, power TEXT, associated_airport TEXT);
CREATE VIRTUAL TABLE navaids_geo USING rtree(id, min_lat, max_lat, min_lng, max_lng);
`;

const INDEXES = `
CREATE INDEX airports_ident ON airports(ident);
CREATE INDEX airports_icao ON airports(icao_code);
CREATE INDEX airports_iata ON airports(iata_code);
CREATE INDEX airports_gps ON airports(gps_code);
CREATE INDEX airports_country ON airports(iso_country, type);
CREATE INDEX airports_region ON airports(iso_region);
CREATE INDEX runways_airport ON runways(airport_id);
CREATE INDEX frequencies_airport ON frequencies(airport_id);
CREATE INDEX regions_country ON regions(iso_country);
INSERT INTO airports_fts(airports_fts) VALUES('rebuild');
`;

/** Columns each file must have: a file without them is not the OurAirports format. */
const COLUMNS: Record<string, string[]> = {
  "airports.csv": ["id", "ident", "type", "name", "latitude_deg", "longitude_deg", "elevation_ft", "continent", "iso_country", "iso_region", "municipality", "scheduled_service", "icao_code", "iata_code", "gps_code", "local_code", "home_link", "wikipedia_link", "keywords"],
  "runways.csv": ["id", "airport_ref", "length_ft", "width_ft", "surface", "lighted", "closed", "le_ident", "le_latitude_deg", "le_longitude_deg", "le_elevation_ft", "le_heading_degT", "le_displaced_threshold_ft", "he_ident", "he_latitude_deg", "he_longitude_deg", "he_elevation_ft", "he_heading_degT", "he_displaced_threshold_ft"],
  "airport-frequencies.csv": ["id", "airport_ref", "type", "description", "frequency_mhz"],
  "countries.csv": ["code", "name", "continent", "wikipedia_link", "keywords"],
  "regions.csv": ["code", "local_code", "name", "continent", "iso_country", "wikipedia_link", "keywords"],
  "navaids.csv": ["id", "ident", "name", "type", "frequency_khz", "latitude_deg", "longitude_deg", "elevation_ft", "iso_country", "dme_frequency_khz", "dme_channel", "magnetic_variation_deg", "usageType", "power", "associated_airport"],
};

/** Above this share of runways and frequencies pointing at airports that are not there, airports.csv is cut short. */
const MAX_ORPHAN_SHARE = 0.01;

async function readCsv(input: DatasetInput, file: string, progress: DatasetProgress): Promise<Row[]> {
  progress.log(`reading ${file}`);
  const csv = await input.text(file);
  let rows: Row[];
  try {
    rows = parse(csv, { columns: true, bom: true, skip_empty_lines: true }) as Row[];
  } catch (e) {
    throw new Error(`${file} is not well-formed CSV, perhaps cut short (${(e as Error).message})`);
  }
  const missing = COLUMNS[file].filter((c) => !(c in (rows[0] ?? {})));
  if (!rows.length) throw new Error(`${file} has no rows`);
  if (missing.length) throw new Error(`${file} lacks the columns ${missing.join(", ")}; is it the OurAirports format?`);
  return rows;
}

const text = (v: string | undefined) => (v === undefined || v === "" ? null : v);
const num = (v: string | undefined) => (v === undefined || v === "" || !Number.isFinite(Number(v)) ? null : Number(v));
const int = (v: string | undefined) => {
  const n = num(v);
  return n === null ? null : Math.round(n);
};

/** Inserts every row with one prepared statement, ticking the progress bar as it goes. */
function insertAll(db: DatabaseSync, sql: string, rows: Row[], values: (r: Row) => (string | number | null)[], progress: DatasetProgress, label: string): number {
  const stmt = db.prepare(sql);
  progress.phase(label, rows.length);
  let n = 0;
  for (const r of rows) {
    stmt.run(...values(r));
    if (++n % 1000 === 0) progress.tick(1000);
  }
  progress.tick(n % 1000);
  return n;
}

const airports: DatasetDefinition<AirportQueries> = {
  name: "airports",
  title: "OurAirports airports, runways, frequencies and navaids",
  folder: "ourairports",
  source: "ourairports",
  files: [
    { name: "airports.csv", path: "/airports.csv" },
    { name: "runways.csv", path: "/runways.csv" },
    { name: "airport-frequencies.csv", path: "/airport-frequencies.csv" },
    { name: "countries.csv", path: "/countries.csv" },
    { name: "regions.csv", path: "/regions.csv" },
    { name: "navaids.csv", path: "/navaids.csv" },
  ],
  refresh: "7d",
  licence: "Public domain (OurAirports open data)",
  attribution: "Source: OurAirports (ourairports.com), public domain",

  async load(input, db, progress) {
    // One file at a time, so that only one file's rows are in memory.
    const read = (file: string) => readCsv(input, file, progress);
    db.exec(SCHEMA);
    db.exec("BEGIN");
    const counts: Record<string, number> = {};
    const airportRows = await read("airports.csv");
    counts.airports = insertAll(db, "INSERT INTO airports VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", airportRows, (r) => [
      Number(r.id), r.ident, r.type, r.name, num(r.latitude_deg), num(r.longitude_deg), int(r.elevation_ft), text(r.continent),
      text(r.iso_country), text(r.iso_region), text(r.municipality), r.scheduled_service === "yes" ? 1 : 0, text(r.icao_code),
      text(r.iata_code), text(r.gps_code), text(r.local_code), text(r.home_link), text(r.wikipedia_link), text(r.keywords),
    ], progress, "loading airports");
    db.exec("INSERT INTO airports_geo SELECT id, lat, lat, lng, lng FROM airports WHERE lat IS NOT NULL AND lng IS NOT NULL");

    const airportIds = new Set(airportRows.map((r) => Number(r.id)));
    let linked = 0;
    let orphans = 0;
    const known = (r: Row) => {
      linked++;
      if (airportIds.has(Number(r.airport_ref))) return true;
      orphans++;
      return false;
    };
    counts.runways = insertAll(db, "INSERT INTO runways VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", (await read("runways.csv")).filter(known), (r) => [
      Number(r.id), Number(r.airport_ref), int(r.length_ft), int(r.width_ft), text(r.surface), r.lighted === "1" ? 1 : 0, r.closed === "1" ? 1 : 0,
      text(r.le_ident), num(r.le_latitude_deg), num(r.le_longitude_deg), int(r.le_elevation_ft), num(r.le_heading_degT), int(r.le_displaced_threshold_ft),
      text(r.he_ident), num(r.he_latitude_deg), num(r.he_longitude_deg), int(r.he_elevation_ft), num(r.he_heading_degT), int(r.he_displaced_threshold_ft),
    ], progress, "loading runways");
    counts.frequencies = insertAll(db, "INSERT INTO frequencies VALUES (?,?,?,?,?)", (await read("airport-frequencies.csv")).filter(known), (r) => [
      Number(r.id), Number(r.airport_ref), text(r.type), text(r.description), num(r.frequency_mhz),
    ], progress, "loading frequencies");
    if (orphans > linked * MAX_ORPHAN_SHARE) {
      throw new Error(`${orphans} runways and frequencies refer to airports missing from airports.csv; it looks truncated`);
    }
    counts.countries = insertAll(db, "INSERT INTO countries VALUES (?,?,?,?,?)", await read("countries.csv"), (r) => [
      r.code, r.name, text(r.continent), text(r.wikipedia_link), text(r.keywords),
    ], progress, "loading countries");
    counts.regions = insertAll(db, "INSERT INTO regions VALUES (?,?,?,?,?,?,?)", await read("regions.csv"), (r) => [
      r.code, text(r.local_code), r.name, text(r.continent), text(r.iso_country), text(r.wikipedia_link), text(r.keywords),
    ], progress, "loading regions");
    counts.navaids = insertAll(db, "INSERT INTO navaids VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", await read("navaids.csv"), (r) => [
      Number(r.id), text(r.ident), text(r.name), text(r.type), num(r.frequency_khz), num(r.latitude_deg), num(r.longitude_deg),
      int(r.elevation_ft), text(r.iso_country), num(r.dme_frequency_khz), text(r.dme_channel), num(r.magnetic_variation_deg),
      text(r.usageType), text(r.power), text(r.associated_airport),
    ], progress, "loading navaids");
    db.exec("INSERT INTO navaids_geo SELECT id, lat, lat, lng, lng FROM navaids WHERE lat IS NOT NULL AND lng IS NOT NULL");
    progress.log("indexing");
    db.exec(INDEXES);
    db.exec("COMMIT");
    return { counts };
  },

  index: prepareQueries,
};

export default airports;
