// bathing-water/near: the Environment Agency's linked-data API has no radius query, so `near` reads the whole register
// (about 450 sites, one or two pages, cached) and measures from a point, or from a postcode located by the shared
// resolver (the local postcode dataset first). It hands the group's transform the API's own items.
import { distanceKm, type Point } from "../shared/geo.ts";
import { originFromParams } from "../shared/origin.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

const PAGE_SIZE = 500;
const MAX_PAGES = 4;

interface SiteItem { samplingPoint?: { lat?: unknown; long?: unknown } | unknown[]; [k: string]: unknown }
interface ListPage { result: { items: SiteItem[]; next?: unknown } }

async function register(ctx: PluginContext): Promise<SiteItem[]> {
  const items: SiteItem[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = (await ctx.fetch({
      source: "environment-agency",
      path: "/doc/bathing-water.json",
      query: { _pageSize: String(PAGE_SIZE), _page: String(page) },
      cacheMs: 6 * 3_600_000,
      // A page of the register (ELDA's linked-data-api JSON) always has its list of items, if only an empty one.
      expect: { test: '$type(result.items) = "array"' },
    })) as ListPage;
    const { result } = body;
    items.push(...result.items);
    if (!result.next || result.items.length < PAGE_SIZE) break;
  }
  return items;
}

function pointOf(item: SiteItem): Point | undefined {
  const sp = Array.isArray(item.samplingPoint) ? item.samplingPoint[0] : item.samplingPoint;
  const lat = Number((sp as { lat?: unknown })?.lat);
  const lng = Number((sp as { long?: unknown })?.long);
  return Number.isFinite(lat) && Number.isFinite(lng) && sp ? { lat, lng } : undefined;
}

export async function near(ctx: PluginContext) {
  const origin = await originFromParams(ctx);
  const { radius_km: radius, limit } = ctx.params as { radius_km: number; limit: number };
  const found: { item: SiteItem; d: number }[] = [];
  for (const item of await register(ctx)) {
    const p = pointOf(item);
    if (!p) continue;
    const d = distanceKm(origin, p);
    if (d <= radius) found.push({ item, d });
  }
  found.sort((a, b) => a.d - b.d);
  return {
    origin,
    total: found.length,
    items: found.slice(0, limit).map(({ item, d }) => ({ ...item, distance_km: Math.round(d * 10) / 10 })),
  };
}
