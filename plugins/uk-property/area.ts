// The area report: a postcode's administration (postcodes.io), then, concurrently, its price summary (Price Paid
// Data), planning designations (planning.data.gov.uk), the latest month of street crime within a mile (police.uk)
// and flood warnings within 5 km (Environment Agency). A part that fails is reported in the answer with its error;
// only the postcode lookup, which every other part needs, is fatal.
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { clock } from "../shared/clock.ts";
import { salesIn, summarise } from "./prices.ts";
import { designationsAt } from "./planning.ts";

const SUMMARY_YEARS = 5;
const FLOOD_RADIUS_KM = 5;
const SEVERITIES: Record<number, string> = { 1: "severe-flood-warning", 2: "flood-warning", 3: "flood-alert", 4: "warning-no-longer-in-force" };

interface PostcodesIo {
  postcode: string;
  latitude: number | null;
  longitude: number | null;
  country?: string;
  region?: string | null;
  admin_district?: string | null;
  admin_county?: string | null;
  admin_ward?: string | null;
  parish?: string | null;
  parliamentary_constituency?: string | null;
  parliamentary_constituency_2024?: string | null;
  codes?: Record<string, string | undefined>;
}

const area = (code: string | undefined, name: string | null | undefined, type: string) =>
  code && !code.endsWith("99999999") ? { code, name: name ?? null, type } : null;

async function lookUp(ctx: PluginContext, postcode: string): Promise<PostcodesIo> {
  let body: { result: PostcodesIo };
  try {
    body = (await ctx.fetch({ source: "postcodes-io", path: `/postcodes/${encodeURIComponent(postcode)}`, cacheMs: 86_400_000, expect: { test: "$type(result.postcode) = 'string'" } })) as { result: PostcodesIo };
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) throw new Problem({ status: 404, code: "not_found", param: "postcode", detail: `postcode: ${postcode} is not a live postcode in the postcode directory.` });
    throw e;
  }
  const r = body.result;
  if (typeof r.latitude !== "number" || typeof r.longitude !== "number") throw new Problem({ status: 404, code: "not_found", param: "postcode", detail: `postcode: ${r.postcode} has no grid location in the postcode directory.` });
  return r;
}

function administration(r: PostcodesIo) {
  const c = r.codes ?? {};
  return {
    council: area(c.admin_district, r.admin_district, "local-authority"),
    county: area(c.admin_county, r.admin_county, "county"),
    ward: area(c.admin_ward, r.admin_ward, "ward"),
    parish: area(c.parish, r.parish, "parish"),
    constituency: area(c.parliamentary_constituency_2024 ?? c.parliamentary_constituency, r.parliamentary_constituency_2024 ?? r.parliamentary_constituency, "constituency"),
    region: r.region ?? null,
    country: r.country ?? null,
  };
}

interface Crime { category?: string; month?: string; location?: { street?: { name?: string } } }

async function crime(ctx: PluginContext, lat: number, lng: number) {
  // A month without crimes near the point is an empty list.
  const crimes = (await ctx.fetch({ source: "police-uk", path: "/crimes-street/all-crime", query: { lat: String(lat), lng: String(lng) }, cacheMs: 6 * 3_600_000, expect: { test: "$type($) = 'array'" } })) as Crime[];
  const counts = new Map<string, number>();
  for (const c of crimes) counts.set(c.category ?? "unknown", (counts.get(c.category ?? "unknown") ?? 0) + 1);
  const streets = new Map<string, number>();
  for (const c of crimes) if (c.location?.street?.name) streets.set(c.location.street.name, (streets.get(c.location.street.name) ?? 0) + 1);
  return {
    month: crimes[0]?.month ?? null,
    radius_miles: 1,
    total: crimes.length,
    by_category: [...counts].map(([category, count]) => ({ category, count })).sort((a, b) => b.count - a.count || (a.category < b.category ? -1 : 1)),
    top_locations: [...streets].map(([street, count]) => ({ street, count })).sort((a, b) => b.count - a.count).slice(0, 5),
    note: "Street-level crimes police.uk published for its latest month, within one mile; locations are anonymised to a nearby point ('On or near …'). Crime counts reflect footfall as much as risk.",
  };
}

interface FloodItem { floodAreaID?: string; description?: string; eaAreaName?: string; severity?: string; severityLevel?: number; message?: string; timeRaised?: string; isTidal?: boolean }

async function floods(ctx: PluginContext, lat: number, lng: number) {
  const query = { lat: String(lat), long: String(lng), dist: String(FLOOD_RADIUS_KM) };
  const body = (await ctx.fetch({ source: "ea-flood-monitoring", path: "/id/floods", query, cacheMs: 900_000, expect: { test: "$type(items) = 'array'" } })) as { items: FloodItem[] };
  const warnings = body.items.map((w) => ({
    id: w.floodAreaID ?? null,
    area: w.description ?? null,
    severity: SEVERITIES[w.severityLevel ?? 0] ?? null,
    severity_level: w.severityLevel ?? null,
    severity_text: w.severity ?? null,
    message: w.message?.trim() || null,
    raised_at: w.timeRaised ? `${w.timeRaised.replace(/Z$/, "")}Z` : null,
    tidal: w.isTidal ?? null,
    url: w.floodAreaID ? `https://check-for-flooding.service.gov.uk/target-area/${w.floodAreaID}` : null,
  })).sort((a, b) => (a.severity_level ?? 9) - (b.severity_level ?? 9));
  return {
    radius_km: FLOOD_RADIUS_KM,
    count: warnings.length,
    in_force: warnings.filter((w) => (w.severity_level ?? 4) < 4).length,
    warnings,
    note: warnings.length === 0
      ? "No flood warning or alert is in force within 5 km (England only; Wales and Scotland publish their own)."
      : "Severity 1 severe flood warning (danger to life), 2 flood warning (flooding expected), 3 flood alert (flooding possible), 4 no longer in force.",
  };
}

type Part = "price_summary" | "planning" | "crime" | "floods";

export async function areaReport(ctx: PluginContext) {
  const postcode = ctx.params.postcode as string;
  const r = await lookUp(ctx, postcode);
  const lat = r.latitude!;
  const lng = r.longitude!;
  const england = r.country === "England";
  const englandOrWales = england || r.country === "Wales";
  const notCovered = (what: string) => Promise.resolve({ status: "not_covered", note: `${what} covers ${what.startsWith("Price") ? "England and Wales" : "England"} only; ${r.postcode} is in ${r.country}.` });
  const jobs: Record<Part, Promise<unknown>> = {
    price_summary: englandOrWales ? salesIn(ctx, r.postcode).then((s) => summarise(s, SUMMARY_YEARS, clock.today())) : notCovered("Price Paid Data"),
    planning: england ? designationsAt(ctx, { lat, lng }).then(({ designations }) => ({ count: designations.length, designations })) : notCovered("planning.data.gov.uk"),
    crime: crime(ctx, lat, lng),
    floods: england ? floods(ctx, lat, lng) : notCovered("The Environment Agency's flood service"),
  };
  const names = Object.keys(jobs) as Part[];
  const settled = await Promise.allSettled(names.map((n) => jobs[n]));
  const parts: Record<string, unknown> = {};
  const failed: { part: Part; error: string }[] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") {
      const v = s.value as Record<string, unknown>;
      parts[names[i]] = "status" in v ? v : { status: "ok", ...v };
    } else {
      const reason = s.reason as Error;
      const error = reason instanceof UpstreamError ? `${reason.source} ${reason.message}` : reason?.message ?? String(reason);
      failed.push({ part: names[i], error });
      parts[names[i]] = { status: "failed", error };
    }
  });
  return {
    postcode: r.postcode,
    location: { lat, lng },
    administration: administration(r),
    ...parts,
    failed_parts: failed,
    note: failed.length
      ? `${failed.length} of 4 parts could not be fetched (${failed.map((f) => f.part).join(", ")}): each says why; the rest of the report stands.`
      : "Each part says its source and coverage; parts outside their source's coverage say not_covered.",
  };
}
