// us-vehicle-safety/ratings: NCAP lists a model year's variants (body style, drive) with their vehicle ids, and
// rates each variant in a call of its own; the variants' ratings are asked for concurrently (at most 8) through
// the shared client. The endpoint's transform shapes each raw rating as us-vehicle-safety/rating does.
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

type Row = Record<string, any>;
const MAX_VARIANTS = 8;
const DAY = 86_400_000;

export async function ratings(ctx: PluginContext): Promise<Row> {
  const { make, model, year } = ctx.params as { make: string; model: string; year: number };
  const path = `/SafetyRatings/modelyear/${year}/make/${encodeURIComponent(make.trim())}/model/${encodeURIComponent(model.trim())}`;
  let list: Row;
  try {
    // A model year NCAP did not test is Count 0 and no Results.
    list = (await ctx.fetch({ source: "nhtsa", path, cacheMs: DAY, expect: { test: "$type(Count) = 'number' and $type(Results) = 'array'" } })) as Row;
  } catch (e) {
    // NHTSA's APIs answer some empty results with HTTP 400.
    if (e instanceof UpstreamError && e.status === 400) list = { Results: [] };
    else throw e;
  }
  const variants = list.Results.filter((v: Row) => Number.isInteger(v.VehicleId)).slice(0, MAX_VARIANTS);
  const rated = await Promise.all(variants.map(async (v: Row) => {
    // A listed vehicle id has its ratings (a variant not rated has them "Not Rated").
    const body = (await ctx.fetch({ source: "nhtsa", path: `/SafetyRatings/VehicleId/${v.VehicleId}`, cacheMs: DAY, expect: { test: "$type(Results[0]) = 'object'" } })) as Row;
    return body.Results[0];
  }));
  return { total: list.Results.length, variants: rated };
}
