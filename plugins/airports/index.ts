// The airports group, answered from the local OurAirports dataset (plugins/airports/airports.dataset.ts).
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import { boxesAround, type Point } from "../shared/geo.ts";
import { originFromParams as origin } from "../shared/origin.ts";
import { compactAirport, datasetType, frequenciesByType, frequency, fromOrigin, fullAirport, navaid, runway, shortType } from "./shape.ts";
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import type { DatasetHandle } from "../../engine/datasets/types.ts";
import type { AirportQueries, AirportRow, FrequencyRow, NavaidRow, RunwayRow } from "./queries.ts";

/** Opens the dataset (503 when it was never loaded) and records it as the answer's source. */
function dataset(ctx: PluginContext): DatasetHandle<AirportQueries> {
  return ctx.dataset<AirportQueries>("airports");
}

function findAirport(q: AirportQueries, code: string): AirportRow {
  const row = q.byCode.get({ code }) as AirportRow | undefined;
  if (!row) {
    throw new Problem({ status: 404, code: "not_found", param: "code",
      detail: `No airport has the code ${code} (looked up as ICAO code, OurAirports ident, IATA code and GPS code).` });
  }
  return row;
}

const runwaysOf = (q: AirportQueries, a: AirportRow) => q.runways.all(a.id) as unknown as RunwayRow[];
const frequenciesOf = (q: AirportQueries, a: AirportRow) => q.frequencies.all(a.id) as unknown as FrequencyRow[];

export function airport(ctx: PluginContext) {
  const q = dataset(ctx).index;
  const a = findAirport(q, ctx.params.code as string);
  return { matched_by: a.matched, ...fullAirport(a, runwaysOf(q, a), frequenciesOf(q, a)) };
}

export function runways(ctx: PluginContext) {
  const q = dataset(ctx).index;
  const a = findAirport(q, ctx.params.code as string);
  const list = runwaysOf(q, a).map(runway);
  return { airport: compactAirport(a), count: list.length, runways: list };
}

export function frequencies(ctx: PluginContext) {
  const q = dataset(ctx).index;
  const a = findAirport(q, ctx.params.code as string);
  const rows = frequenciesOf(q, a);
  return { airport: compactAirport(a), count: rows.length, by_type: frequenciesByType(rows), frequencies: rows.map(frequency) };
}

export function country(ctx: PluginContext) {
  const q = dataset(ctx).index;
  const code = ctx.params.country as string;
  const c = q.country.get(code) as { code: string; name: string; continent: string | null; wikipedia_link: string | null } | undefined;
  if (!c) throw new Problem({ status: 404, code: "not_found", param: "country", detail: `OurAirports has no country ${code}; use an ISO 3166-1 alpha-2 code such as GB.` });
  const counts: Record<string, number> = {};
  let open = 0;
  for (const r of q.countsByType.all(code) as { type: string; n: number }[]) {
    counts[shortType(r.type)] = r.n;
    if (r.type !== "closed") open += r.n;
  }
  const regions = q.regions.all(code) as { code: string; local_code: string | null; name: string; airports: number }[];
  return {
    country: { code: c.code, name: c.name, continent: c.continent, wikipedia: c.wikipedia_link },
    airports: open,
    counts_by_type: counts,
    large_airports: (q.largeAirports.all(code) as unknown as AirportRow[]).map(compactAirport),
    regions: regions.map((r) => ({ code: r.code, local_code: r.local_code, name: r.name, airports: r.airports })),
  };
}

export function search(ctx: PluginContext) {
  const q = dataset(ctx).index;
  const p = ctx.params;
  const words = (p.q as string).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  // Each word as a prefix: "heath lon" finds London Heathrow.
  const match = words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(" ");
  const types = (p.type as string[]).map(datasetType);
  const rows = q.search.all({ match, types: JSON.stringify(types), country: (p.country as string | undefined) ?? null, limit: p.limit as number }) as unknown as AirportRow[];
  return { query: p.q, count: rows.length, airports: rows.map(compactAirport) };
}

/** Rows within radiusKm of p, nearest first, from the R*Tree boxes around the circle. */
function within<T extends { lat: number | null; lng: number | null }>(stmt: { all(params: object): unknown[] }, p: Point, radiusKm: number, keep: (row: T) => boolean) {
  const found: { row: T; distance_km: number; bearing_deg: number }[] = [];
  for (const box of boxesAround(p, radiusKm)) {
    for (const row of stmt.all(box) as T[]) {
      if (row.lat === null || row.lng === null || !keep(row)) continue;
      const d = fromOrigin(p, { lat: row.lat, lng: row.lng });
      if (d.distance_km <= radiusKm) found.push({ row, ...d });
    }
  }
  return found.sort((a, b) => a.distance_km - b.distance_km);
}

export async function near(ctx: PluginContext) {
  const from = await origin(ctx);
  const q = dataset(ctx).index;
  const p = ctx.params as { radius_km: number; type: string[]; scheduled?: boolean; limit: number };
  const types = new Set(p.type.map(datasetType));
  const found = within<AirportRow>(q.airportsInBox, from, p.radius_km, (a) => types.has(a.type) && (!p.scheduled || a.scheduled === 1));
  return {
    origin: from,
    radius_km: p.radius_km,
    types: p.type,
    scheduled_only: p.scheduled === true,
    count: Math.min(found.length, p.limit),
    airports: found.slice(0, p.limit).map((f) => ({ ...compactAirport(f.row), distance_km: f.distance_km, bearing_deg: f.bearing_deg })),
  };
}

export async function navaids(ctx: PluginContext) {
  const p = ctx.params as { code?: string; radius_km: number; type?: string[]; limit: number };
  let from: Point & { postcode?: string; airport?: ReturnType<typeof compactAirport> };
  let q: AirportQueries;
  if (p.code !== undefined) {
    q = dataset(ctx).index;
    const a = findAirport(q, p.code);
    if (a.lat === null || a.lng === null) throw new Problem({ status: 404, code: "not_found", param: "code", detail: `The airport ${p.code} has no location.` });
    from = { lat: a.lat, lng: a.lng, airport: compactAirport(a) };
  } else {
    from = await origin(ctx);
    q = dataset(ctx).index;
  }
  const types = p.type ? new Set(p.type) : undefined;
  const found = within<NavaidRow>(q.navaidsInBox, from, p.radius_km, (n) => !types || types.has(n.type ?? ""));
  return {
    origin: from,
    radius_km: p.radius_km,
    count: Math.min(found.length, p.limit),
    navaids: found.slice(0, p.limit).map((f) => ({ ...navaid(f.row), distance_km: f.distance_km, bearing_deg: f.bearing_deg })),
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["airports"], airport, runways, frequencies, country, search, near, navaids);
