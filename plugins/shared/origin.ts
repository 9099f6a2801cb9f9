// The point a near-query starts from: `lat` and `lng`, or a UK `postcode` (located by resolvePostcode), never both.
import { badParam } from "../../engine/problem.ts";
import { resolvePostcode } from "./postcodes.ts";
import type { PluginContext } from "../../engine/plugin.ts";
import type { Point } from "./geo.ts";

export async function originFromParams(ctx: PluginContext): Promise<Point & { postcode?: string }> {
  const { lat, lng, postcode } = ctx.params as { lat?: number; lng?: number; postcode?: string };
  if (postcode !== undefined) {
    if (lat !== undefined || lng !== undefined) throw badParam("postcode", "Give either postcode or lat and lng, not both.");
    const place = await resolvePostcode(ctx, "postcode");
    return { lat: place.latitude, lng: place.longitude, postcode: place.postcode };
  }
  if (lat === undefined || lng === undefined) {
    throw badParam(lat === undefined ? "lat" : "lng", "Give lat and lng (decimal degrees), or a UK postcode.", "missing_parameter");
  }
  return { lat, lng };
}
