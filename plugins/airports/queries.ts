// The airports dataset's prepared statements, built once per loaded version (the dataset's `index`).
import type { DatabaseSync, StatementSync } from "node:sqlite";

export interface AirportRow {
  id: number; ident: string; type: string; name: string; lat: number | null; lng: number | null; elevation_ft: number | null;
  continent: string | null; iso_country: string | null; iso_region: string | null; municipality: string | null; scheduled: number;
  icao_code: string | null; iata_code: string | null; gps_code: string | null; local_code: string | null;
  home_link: string | null; wikipedia_link: string | null; keywords: string | null;
  country_name: string | null; region_name: string | null; matched?: string;
}

export interface RunwayRow {
  length_ft: number | null; width_ft: number | null; surface: string | null; lighted: number; closed: number;
  le_ident: string | null; le_lat: number | null; le_lng: number | null; le_elevation_ft: number | null; le_heading: number | null; le_displaced_ft: number | null;
  he_ident: string | null; he_lat: number | null; he_lng: number | null; he_elevation_ft: number | null; he_heading: number | null; he_displaced_ft: number | null;
}

export interface FrequencyRow { type: string | null; description: string | null; mhz: number | null }

export interface NavaidRow {
  id: number; ident: string | null; name: string | null; type: string | null; frequency_khz: number | null; lat: number; lng: number;
  elevation_ft: number | null; iso_country: string | null; dme_frequency_khz: number | null; dme_channel: string | null;
  magnetic_variation_deg: number | null; usage_type: string | null; power: string | null; associated_airport: string | null;
}

const AIRPORT = `SELECT a.*, c.name AS country_name, r.name AS region_name FROM airports a
  LEFT JOIN countries c ON c.code = a.iso_country LEFT JOIN regions r ON r.code = a.iso_region`;
const IN_BOX = "g.min_lat >= $minLat AND g.max_lat <= $maxLat AND g.min_lng >= $minLng AND g.max_lng <= $maxLng";
const TYPE_RANK = `CASE a.type WHEN 'large_airport' THEN 0 WHEN 'medium_airport' THEN 1 WHEN 'small_airport' THEN 2
  WHEN 'closed' THEN 9 ELSE 3 END`;

export interface AirportQueries {
  byCode: StatementSync;
  runways: StatementSync;
  frequencies: StatementSync;
  airportsInBox: StatementSync;
  navaidsInBox: StatementSync;
  country: StatementSync;
  countsByType: StatementSync;
  largeAirports: StatementSync;
  regions: StatementSync;
  search: StatementSync;
}

export function prepareQueries(db: DatabaseSync): AirportQueries {
  return {
    // ICAO first, then the OurAirports ident, IATA and GPS code; an open airport before a closed one with the same code.
    byCode: db.prepare(`SELECT * FROM (${AIRPORT.replace("SELECT a.*", `SELECT a.*, CASE WHEN a.icao_code = $code THEN 'icao'
        WHEN a.ident = $code THEN 'ident' WHEN a.iata_code = $code THEN 'iata' ELSE 'gps' END AS matched`)}
      WHERE a.icao_code = $code OR a.ident = $code OR a.iata_code = $code OR a.gps_code = $code)
      ORDER BY CASE matched WHEN 'icao' THEN 0 WHEN 'ident' THEN 1 WHEN 'iata' THEN 2 ELSE 3 END, type = 'closed', scheduled DESC LIMIT 1`),
    runways: db.prepare("SELECT * FROM runways WHERE airport_id = ? ORDER BY closed, length_ft DESC, id"),
    frequencies: db.prepare("SELECT type, description, mhz FROM frequencies WHERE airport_id = ? ORDER BY type, mhz"),
    airportsInBox: db.prepare(`${AIRPORT} JOIN airports_geo g ON g.id = a.id WHERE ${IN_BOX}`),
    navaidsInBox: db.prepare(`SELECT n.* FROM navaids n JOIN navaids_geo g ON g.id = n.id WHERE ${IN_BOX}`),
    country: db.prepare("SELECT * FROM countries WHERE code = ?"),
    countsByType: db.prepare("SELECT type, count(*) AS n FROM airports WHERE iso_country = ? GROUP BY type"),
    largeAirports: db.prepare(`${AIRPORT} WHERE a.iso_country = ? AND a.type = 'large_airport' ORDER BY a.name`),
    regions: db.prepare(`SELECT r.code, r.local_code, r.name,
        (SELECT count(*) FROM airports a WHERE a.iso_region = r.code AND a.type != 'closed') AS airports
      FROM regions r WHERE r.iso_country = ? ORDER BY r.name`),
    search: db.prepare(`${AIRPORT} JOIN airports_fts f ON f.rowid = a.id
      WHERE airports_fts MATCH $match AND a.type IN (SELECT value FROM json_each($types))
        AND ($country IS NULL OR a.iso_country = $country)
      ORDER BY ${TYPE_RANK}, f.rank LIMIT $limit`),
  };
}
