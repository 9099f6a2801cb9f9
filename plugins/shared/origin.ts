// The point a near-query starts from: latitude and longitude, or a UK `postcode` (located by resolvePostcode), never
// both. The endpoint's param_sets refuse a wrong mix before payment; this is the same rule for a direct caller.
import { badParam } from "../../engine/basics/problem.ts";
import { resolvePostcode } from "./postcodes.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import type { Point } from "./geo.ts";

/** `names` are the endpoint's own parameter names for the point (lat/lng by default; latitude/longitude elsewhere). */
export async function originFromParams(ctx: PluginContext, names = { lat: "lat", lng: "lng" }): Promise<Point & { postcode?: string }> {
  const lat = ctx.params[names.lat] as number | undefined;
  const lng = ctx.params[names.lng] as number | undefined;
  if (ctx.params.postcode !== undefined) {
    if (lat !== undefined || lng !== undefined) throw badParam("postcode", `Give either postcode or ${names.lat} and ${names.lng}, not both.`);
    const place = await resolvePostcode(ctx, "postcode");
    return { lat: place.latitude, lng: place.longitude, postcode: place.postcode };
  }
  if (lat === undefined || lng === undefined) {
    throw badParam(lat === undefined ? names.lat : names.lng, `Give ${names.lat} and ${names.lng} (decimal degrees), or a UK postcode.`, "missing_parameter");
  }
  return { lat, lng };
}
