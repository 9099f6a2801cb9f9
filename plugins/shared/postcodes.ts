// A UK postcode's location: from the local Code-Point Open dataset (gb-postcodes) when it is loaded and holds
// the postcode, else from postcodes.io (Northern Ireland, postcodes newer than the local copy, or no local copy).
// Any plugin can use it: resolvePostcode(ctx, "postcode").
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import type { PostcodeIndex } from "./gb-postcodes.dataset.ts";

export interface PostcodeLocation {
  postcode: string;
  latitude: number;
  longitude: number;
  country: string | null;
  /** The local authority district's GSS code. */
  district_code: string | null;
  located_by: "gb-postcodes" | "postcodes-io";
}

interface PostcodesIoResult {
  postcode: string;
  latitude: number | null;
  longitude: number | null;
  country?: string;
  codes?: { admin_district?: string };
}

/** The local dataset's index, or undefined when it is not loaded on this server. */
export function localPostcodes(ctx: PluginContext) {
  try {
    return ctx.datasets.use<PostcodeIndex>("gb-postcodes");
  } catch (e) {
    if (e instanceof Problem && e.code === "dataset_not_loaded") return undefined;
    throw e;
  }
}

/** The location of the postcode in params[param] (already validated as a UK postcode); 404 naming param when unknown. */
export async function resolvePostcode(ctx: PluginContext, param: string): Promise<PostcodeLocation> {
  const postcode = ctx.params[param] as string;
  const local = localPostcodes(ctx);
  const hit = local?.index.lookup(postcode);
  if (local && hit) {
    ctx.dataset("gb-postcodes"); // records the local copy as a source, once per call
    return { postcode: hit.postcode, latitude: hit.latitude, longitude: hit.longitude, country: hit.country, district_code: hit.district_code, located_by: "gb-postcodes" };
  }
  let body: { result: PostcodesIoResult };
  try {
    body = (await ctx.fetch({
      source: "postcodes-io",
      path: `/postcodes/${encodeURIComponent(postcode)}`,
      cacheMs: 86_400_000,
      expect: { test: '$type(result.postcode) = "string"' },
    })) as { result: PostcodesIoResult };
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) {
      throw new Problem({ status: 404, code: "not_found", param, detail: `${param}: the postcode ${postcode} is not in the postcode directory (it may be mistyped or no longer in use).` });
    }
    throw e;
  }
  const r = body.result;
  if (typeof r.latitude !== "number" || typeof r.longitude !== "number") {
    throw new Problem({ status: 404, code: "not_found", param, detail: `${param}: the postcode ${r.postcode} has no grid location in the postcode directory.` });
  }
  return { postcode: r.postcode, latitude: r.latitude, longitude: r.longitude, country: r.country ?? null, district_code: r.codes?.admin_district ?? null, located_by: "postcodes-io" };
}
