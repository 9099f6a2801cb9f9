// uk-police: crimes near a postcode. The postcode is located by the shared resolver (the local Code-Point Open copy
// first, then postcodes.io), then the same data.police.uk calls as crimes-near are made (the latest month published
// only when no month is given); the group's transform shapes the answer from { updated, crimes, origin }.
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { resolvePostcode } from "../shared/postcodes.ts";

const DAY_MS = 86_400_000;

export async function crimesForPostcode(ctx: PluginContext): Promise<unknown> {
  const place = await resolvePostcode(ctx, "postcode");
  const given = ctx.params.month as string | undefined;
  const updated = given ? null : ((await ctx.fetch({ source: "police-uk", path: "/crime-last-updated", cacheMs: 3_600_000, expect: { test: "$type(date) = 'string'" } })) as { date: string });
  const month = given ?? updated!.date.slice(0, 7);
  const crimes = await ctx.fetch({
    source: "police-uk",
    path: `/crimes-street/${encodeURIComponent(ctx.params.category as string)}`,
    query: { lat: String(place.latitude), lng: String(place.longitude), date: month },
    cacheMs: DAY_MS,
    // An area and month without records is an empty list.
    expect: { test: "$type($) = 'array'" },
  });
  return {
    updated,
    crimes,
    origin: { postcode: place.postcode, location: { lat: place.latitude, lng: place.longitude }, located_by: place.located_by },
  };
}
