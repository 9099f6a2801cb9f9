// Rows of the airports dataset -> response objects. Types use the short names the `type` filter takes.
import { bearingDeg, distanceKm, type Point } from "../shared/geo.ts";
import type { AirportRow, FrequencyRow, NavaidRow, RunwayRow } from "./queries.ts";

const SHORT_TYPES: Record<string, string> = { large_airport: "large", medium_airport: "medium", small_airport: "small" };
export const TYPE_FILTER: Record<string, string> = { large: "large_airport", medium: "medium_airport", small: "small_airport" };

export const shortType = (t: string) => SHORT_TYPES[t] ?? t;
export const datasetType = (t: string) => TYPE_FILTER[t] ?? t;

const FT_TO_M = 0.3048;
const metres = (ft: number | null) => (ft === null ? null : Math.round(ft * FT_TO_M));
const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

/** Distance (km, 0.1) and initial bearing from an origin, for `near` and `navaids`. */
export function fromOrigin(origin: Point, p: Point): { distance_km: number; bearing_deg: number } {
  return { distance_km: round(distanceKm(origin, p), 1), bearing_deg: bearingDeg(origin, p) };
}

export function compactAirport(a: AirportRow) {
  return {
    ident: a.ident,
    icao: a.icao_code,
    iata: a.iata_code,
    name: a.name,
    type: shortType(a.type),
    scheduled_service: a.scheduled === 1,
    town: a.municipality,
    country: a.iso_country,
    region: a.iso_region,
    location: a.lat === null || a.lng === null ? null : { lat: a.lat, lng: a.lng },
    elevation_ft: a.elevation_ft,
  };
}

export function fullAirport(a: AirportRow, runways: RunwayRow[], frequencies: FrequencyRow[]) {
  return {
    ...compactAirport(a),
    gps_code: a.gps_code,
    local_code: a.local_code,
    continent: a.continent,
    country: { code: a.iso_country, name: a.country_name },
    region: { code: a.iso_region, name: a.region_name },
    elevation_m: metres(a.elevation_ft),
    keywords: a.keywords ? a.keywords.split(",").map((k) => k.trim()).filter(Boolean) : [],
    links: { home: a.home_link, wikipedia: a.wikipedia_link, ourairports: `https://ourairports.com/airports/${encodeURIComponent(a.ident)}/` },
    runways: runways.map(runway),
    frequencies: frequencies.map(frequency),
  };
}

function runwayEnd(ident: string | null, lat: number | null, lng: number | null, elevation: number | null, heading: number | null, displaced: number | null) {
  return {
    ident,
    heading_deg_true: heading,
    elevation_ft: elevation,
    displaced_threshold_ft: displaced,
    location: lat === null || lng === null ? null : { lat, lng },
  };
}

export function runway(r: RunwayRow) {
  const ends = [
    runwayEnd(r.le_ident, r.le_lat, r.le_lng, r.le_elevation_ft, r.le_heading, r.le_displaced_ft),
    runwayEnd(r.he_ident, r.he_lat, r.he_lng, r.he_elevation_ft, r.he_heading, r.he_displaced_ft),
  ].filter((e) => e.ident !== null);
  return {
    ident: ends.map((e) => e.ident).join("/") || null,
    length_ft: r.length_ft,
    length_m: metres(r.length_ft),
    width_ft: r.width_ft,
    width_m: metres(r.width_ft),
    surface: r.surface,
    lighted: r.lighted === 1,
    closed: r.closed === 1,
    ends,
  };
}

export const frequency = (f: FrequencyRow) => ({ type: f.type, description: f.description, mhz: f.mhz });

/** { TWR: [118.5, 118.7], ATIS: [113.75] }: each kind's frequencies in MHz. */
export function frequenciesByType(rows: FrequencyRow[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const f of rows) if (f.mhz !== null) (out[f.type ?? "OTHER"] ??= []).push(f.mhz);
  return out;
}

export function navaid(n: NavaidRow) {
  return {
    ident: n.ident,
    name: n.name,
    type: n.type,
    frequency_khz: n.frequency_khz,
    frequency_mhz: n.frequency_khz === null ? null : n.frequency_khz / 1000,
    dme_channel: n.dme_channel,
    location: { lat: n.lat, lng: n.lng },
    elevation_ft: n.elevation_ft,
    country: n.iso_country,
    magnetic_variation_deg: n.magnetic_variation_deg,
    usage: n.usage_type,
    power: n.power,
    associated_airport: n.associated_airport,
  };
}
