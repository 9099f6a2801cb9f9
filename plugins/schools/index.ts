// The schools group, answered from the local GIAS extract (plugins/schools/schools.dataset.ts).
import { Problem, badParam } from "../../engine/basics/problem.ts";
import { boxesAround, distanceKm } from "../shared/geo.ts";
import { resolvePostcode } from "../shared/postcodes.ts";
import { normalisePostcode } from "../shared/gb-postcodes.dataset.ts";
import { compactSchool, type SchoolIndex, type SchoolRecord } from "./schools.dataset.ts";
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";

const schools = (ctx: PluginContext) => ctx.dataset<SchoolIndex>("schools").index;
const parse = (record: string) => JSON.parse(record) as SchoolRecord;

export function school(ctx: PluginContext) {
  const urn = ctx.params.urn as number;
  const row = schools(ctx).byUrn.get(urn) as { record: string } | undefined;
  if (!row) {
    throw new Problem({ status: 404, code: "not_found", param: "urn",
      detail: `No establishment in Get Information About Schools has the URN ${urn} (it covers England; closed schools are kept).` });
  }
  return parse(row.record);
}

export async function near(ctx: PluginContext) {
  const place = await resolvePostcode(ctx, "postcode");
  const q = schools(ctx);
  const { radius_km: radius, limit, phase } = ctx.params as { radius_km: number; limit: number; phase?: string };
  const origin = { lat: place.latitude, lng: place.longitude };
  const found: { s: SchoolRecord; d: number }[] = [];
  for (const box of boxesAround(origin, radius)) {
    for (const row of q.inBox.all({ ...box }) as { record: string; lat: number; lng: number; phase: string | null }[]) {
      if (phase && row.phase !== phase) continue;
      const d = distanceKm(origin, { lat: row.lat, lng: row.lng });
      if (d <= radius) found.push({ s: parse(row.record), d });
    }
  }
  found.sort((a, b) => a.d - b.d || a.s.urn - b.s.urn);
  const list = found.slice(0, limit).map(({ s, d }) => ({ ...compactSchool(s), distance_km: Math.round(d * 100) / 100 }));
  return {
    query: { postcode: place.postcode, radius_km: radius, phase: phase ?? null, status: "open" },
    origin: { postcode: place.postcode, location: { lat: origin.lat, lng: origin.lng } },
    total: found.length,
    count: list.length,
    schools: list,
    ...(list.length ? {} : { note: `No open school in England within ${radius} km of ${place.postcode}${phase ? ` with phase ${phase}` : ""}.` }),
  };
}

/** "SW1A 1AA" (a full postcode) or "SW1A" (a district), any case or spacing; undefined when neither. */
function postcodeFilter(v: string): { full: string } | { district: string } | undefined {
  const compact = v.replace(/\s+/g, "").toUpperCase();
  if (/^[A-Z]{1,2}\d[A-Z\d]?\d[A-Z]{2}$/.test(compact)) return { full: normalisePostcode(compact) };
  if (/^[A-Z]{1,2}\d[A-Z\d]?$/.test(compact)) return { district: compact };
  return undefined;
}

export function search(ctx: PluginContext) {
  const p = ctx.params as { name?: string; postcode?: string; la?: string; phase?: string; status: string; limit: number };
  if (p.name === undefined && p.postcode === undefined && p.la === undefined && p.phase === undefined) {
    throw badParam("name", "Give at least one of name, postcode, la or phase.", "missing_parameter");
  }
  const where: string[] = [];
  const args: Record<string, string | number> = {};
  let join = "";
  if (p.name !== undefined) {
    const words = p.name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (!words.length) throw badParam("name", "name must contain letters or digits of the school's name.");
    join = "JOIN schools_fts f ON f.rowid = s.urn";
    where.push("schools_fts MATCH $match");
    args.match = words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(" ");
  }
  if (p.postcode !== undefined) {
    const pc = postcodeFilter(p.postcode);
    if (!pc) throw badParam("postcode", `postcode must be a full UK postcode (EC3A 5DE) or a postcode district (EC3A) (got "${p.postcode}").`);
    if ("full" in pc) {
      where.push("s.postcode = $postcode");
      args.postcode = pc.full;
    } else {
      where.push("s.district = $district");
      args.district = pc.district;
    }
  }
  if (p.la !== undefined) {
    const la = p.la.trim();
    if (/^\d{3}$/.test(la)) where.push("s.la_code = $la");
    else if (/^[ENSW]\d{8}$/i.test(la)) where.push("s.la_gss = upper($la)");
    else where.push("s.la_name = $la COLLATE NOCASE");
    args.la = la;
  }
  if (p.phase !== undefined) {
    where.push("s.phase = $phase");
    args.phase = p.phase;
  }
  if (p.status === "open") where.push("s.open = 1");
  const db = schools(ctx).db;
  const sqlWhere = `FROM schools s ${join} WHERE ${where.join(" AND ")}`;
  const total = (db.prepare(`SELECT count(*) AS n ${sqlWhere}`).get(args) as { n: number }).n;
  const order = p.name !== undefined ? "f.rank, s.name" : "s.name, s.urn";
  const rows = db.prepare(`SELECT s.record ${sqlWhere} ORDER BY ${order} LIMIT $limit`).all({ ...args, limit: p.limit }) as { record: string }[];
  const list = rows.map((r) => compactSchool(parse(r.record)));
  return {
    query: { name: p.name ?? null, postcode: p.postcode ?? null, la: p.la ?? null, phase: p.phase ?? null, status: p.status },
    total,
    count: list.length,
    schools: list,
    ...(list.length ? {} : { note: "No establishment in Get Information About Schools matches these filters." }),
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["schools"], school, near, search);
