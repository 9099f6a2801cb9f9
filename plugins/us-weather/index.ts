// us-weather/observation: the latest observation at a station, or at the nearest station to a point that has a
// recent one. api.weather.gov answers a point with its grid's station list (nearest first); a station's "latest"
// can be missing (404), empty (every value null) or hours old when the station is offline, so up to three
// stations are tried and the first fresh, non-empty observation wins (else the freshest one found, with its age).
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

type Row = Record<string, any>;
interface Measure { unitCode?: string; value?: number | null }

const MAX_STATIONS = 3;
const FRESH_MS = 2 * 3_600_000;
const HOUR = 3_600_000;
const NWS = "https://api.weather.gov";

const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

/** A WMO-unit measurement in the unit asked for (degC, km_h-1, hPa, km, mm), or null. */
function inUnit(m: Measure | undefined, to: "degC" | "km_h-1" | "hPa" | "km" | "mm" | "percent" | "degree"): number | null {
  if (!m || typeof m.value !== "number") return null;
  const from = String(m.unitCode ?? "").replace(/^wmoUnit:/, "");
  const v = m.value;
  switch (to) {
    case "degC": return round(from === "degF" ? ((v - 32) * 5) / 9 : v);
    case "km_h-1": return round(from === "m_s-1" ? v * 3.6 : v);
    case "hPa": return round(from === "Pa" ? v / 100 : v);
    case "km": return round(from === "m" ? v / 1000 : v, 2);
    case "mm": return round(from === "m" ? v * 1000 : v);
    default: return round(v);
  }
}

function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(a)));
}

const pathOf = (url: string) => (url.startsWith(NWS) ? url.slice(NWS.length) : url);

/** The station's latest observation, or null when it has none (404) or only empty values. */
async function latest(ctx: PluginContext, station: string): Promise<Row | null> {
  try {
    const path = `/stations/${encodeURIComponent(station)}/observations/latest`;
    const body = (await ctx.fetch({ source: "nws", path, cacheMs: 10 * 60_000, expect: { test: "$type(properties.timestamp) = 'string'" } })) as Row;
    const p = body.properties;
    return p.temperature?.value === null && p.textDescription === "" ? null : body;
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) return null;
    throw e;
  }
}

function shape(obs: Row, station: Row, now: number): Row {
  const p = obs.properties;
  const observed = Date.parse(p.timestamp);
  const coords = obs.geometry?.coordinates;
  const tempC = inUnit(p.temperature, "degC");
  return {
    station,
    observed_at: p.timestamp,
    age_minutes: Number.isFinite(observed) ? Math.max(0, Math.round((now - observed) / 60_000)) : null,
    location: Array.isArray(coords) ? { lat: coords[1], lng: coords[0] } : station.location ?? null,
    description: p.textDescription || null,
    temperature_c: tempC,
    temperature_f: tempC === null ? null : round((tempC * 9) / 5 + 32),
    dewpoint_c: inUnit(p.dewpoint, "degC"),
    humidity_percent: inUnit(p.relativeHumidity, "percent"),
    wind_direction_deg: inUnit(p.windDirection, "degree"),
    wind_speed_kmh: inUnit(p.windSpeed, "km_h-1"),
    wind_gust_kmh: inUnit(p.windGust, "km_h-1"),
    pressure_hpa: inUnit(p.barometricPressure, "hPa"),
    sea_level_pressure_hpa: inUnit(p.seaLevelPressure, "hPa"),
    visibility_km: inUnit(p.visibility, "km"),
    heat_index_c: inUnit(p.heatIndex, "degC"),
    wind_chill_c: inUnit(p.windChill, "degC"),
    precipitation_last_hour_mm: inUnit(p.precipitationLastHour, "mm"),
    cloud_layers: (p.cloudLayers ?? []).map((c: Row) => ({ amount: c.amount ?? null, base_m: c.base?.value ?? null })),
    metar: p.rawMessage || null,
  };
}

export async function observation(ctx: PluginContext): Promise<Row> {
  const now = Date.now();
  const { station, lat, lon } = ctx.params as { station?: string; lat?: number; lon?: number };
  if (station) {
    const obs = await latest(ctx, station);
    if (!obs) throw new Problem({ status: 404, code: "not_found", param: "station", detail: `The National Weather Service has no recent observation from station ${station} (or no such station).` });
    return { ...shape(obs, { id: station, name: null, location: null, distance_km: null }, now), stations_tried: [station] };
  }
  const point = `${Math.round(lat! * 1e4) / 1e4},${Math.round(lon! * 1e4) / 1e4}`;
  let points: Row;
  try {
    points = (await ctx.fetch({ source: "nws", path: `/points/${point}`, cacheMs: 7 * 24 * HOUR, expect: { test: "$type(properties.observationStations) = 'string'" } })) as Row;
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) throw new Problem({ status: 404, code: "not_found", param: "lat", detail: "The National Weather Service has no data for this point (outside the United States or at sea)." });
    throw e;
  }
  const listUrl = points.properties.observationStations as string;
  const list = (await ctx.fetch({ source: "nws", path: pathOf(listUrl), cacheMs: 24 * HOUR, expect: { test: "$type(features) = 'array'" } })) as Row;
  const stations = list.features.slice(0, MAX_STATIONS).map((f: Row) => {
    const c = f.geometry?.coordinates;
    return {
      id: f.properties?.stationIdentifier as string,
      name: f.properties?.name ?? null,
      location: Array.isArray(c) ? { lat: c[1], lng: c[0] } : null,
      distance_km: Array.isArray(c) ? round(distanceKm(lat!, lon!, c[1], c[0])) : null,
    };
  }).filter((s: Row) => s.id);
  const tried: string[] = [];
  let best: { obs: Row; station: Row; at: number } | undefined;
  for (const s of stations) {
    tried.push(s.id);
    const obs = await latest(ctx, s.id);
    if (!obs) continue;
    const at = Date.parse(obs.properties.timestamp);
    if (!best || at > best.at) best = { obs, station: s, at };
    if (now - at <= FRESH_MS) break;
  }
  if (!best) throw new Problem({ status: 404, code: "not_found", param: "lat", detail: `None of the ${tried.length} nearest NWS stations (${tried.join(", ")}) has a recent observation.` });
  return { ...shape(best.obs, best.station, now), stations_tried: tried };
}
