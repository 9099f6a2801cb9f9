// Planning designations at a point in England, from planning.data.gov.uk's entity API. The same designation can be
// published twice (by the council and by a national body, or twice by the council at different quality): records of
// one dataset with the same name are merged into one, the authoritative one first, the others kept as references.
import { originFromParams } from "../shared/origin.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import type { Point } from "../shared/geo.ts";

/** The datasets asked for, with what each one means for a planning application. */
export const DESIGNATIONS: Record<string, string> = {
  "conservation-area": "Demolition, some extensions, cladding and tree work need consent; permitted development rights are narrower.",
  "listed-building": "Listed building consent is needed for any works affecting its character, inside or out.",
  "listed-building-outline": "The outline of a listed building as the council maps it.",
  "article-4-direction-area": "Some permitted development rights are withdrawn: works that are normally allowed need planning permission.",
  "tree-preservation-zone": "Trees are protected by a tree preservation order: felling or pruning needs the council's consent.",
  "green-belt": "New building is inappropriate development save in very special circumstances.",
  "scheduled-monument": "Works need scheduled monument consent from the Secretary of State (Historic England advises).",
  "world-heritage-site": "A World Heritage Site: its outstanding universal value weighs heavily in planning decisions.",
  "world-heritage-site-buffer-zone": "The setting of a World Heritage Site.",
  "park-and-garden": "A registered historic park or garden: its significance weighs in planning decisions.",
  "area-of-outstanding-natural-beauty": "A National Landscape (formerly AONB): narrower permitted development and great weight on landscape.",
  "national-park": "Narrower permitted development rights; the national park authority decides applications.",
  "site-of-special-scientific-interest": "Natural England must be consulted on works that may damage the site.",
  "ancient-woodland": "Loss or deterioration of ancient woodland is refused save in wholly exceptional cases.",
  "archaeological-priority-area": "Applications may need an archaeological assessment.",
  "flood-risk-zone": "Flood zone 2 or 3: applications need a flood risk assessment.",
};

interface Entity {
  entity?: number | string;
  name?: string;
  dataset?: string;
  reference?: string;
  "organisation-entity"?: string | number;
  quality?: string;
  "start-date"?: string;
  "end-date"?: string;
  "entry-date"?: string;
  "documentation-url"?: string;
  json?: Record<string, unknown>;
  [k: string]: unknown;
}

const blank = (v: unknown) => (v === undefined || v === null || v === "" ? null : v);

/** The point from postcode, or from latitude and longitude, never both. */
export const pointFromParams = (ctx: PluginContext) => originFromParams(ctx, { lat: "latitude", lng: "longitude" });

/** The designations at a point, merged: one per dataset and name. */
export async function designationsAt(ctx: PluginContext, p: Point) {
  const datasets = Object.keys(DESIGNATIONS).map((d) => `dataset=${d}`).join("&");
  const body = (await ctx.fetch({
    source: "planning-data",
    path: `/entity.json?${datasets}`,
    query: { latitude: String(p.lat), longitude: String(p.lng), entries: "current", exclude_field: "geometry,point", limit: "100" },
    cacheMs: 86_400_000,
    // No designation at the point is an empty list of entities.
    expect: { test: "$type(entities) = 'array'" },
  })) as { entities: Entity[]; count?: number };
  const groups = new Map<string, Entity[]>();
  for (const e of body.entities) {
    const key = `${e.dataset} ${String(e.name ?? "").trim().toLowerCase()}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const rank = (e: Entity) => (e.quality === "authoritative" ? 0 : 1);
  const designations = [...groups.values()].map((records) => {
    const [best, ...others] = [...records].sort((a, b) => rank(a) - rank(b));
    const extra = { ...(best.json ?? {}), ...best };
    const grade = blank(extra["listed-building-grade"] ?? extra["park-and-garden-grade"]);
    return {
      dataset: best.dataset ?? null,
      name: blank(best.name),
      id: String(best.entity),
      reference: blank(best.reference),
      grade,
      start_date: blank(best["start-date"] ?? extra["designation-date"]),
      organisation_entity: blank(best["organisation-entity"]) === null ? null : String(best["organisation-entity"]),
      quality: blank(best.quality),
      meaning: DESIGNATIONS[best.dataset ?? ""] ?? null,
      documentation_url: blank(best["documentation-url"]),
      url: `https://www.planning.data.gov.uk/entity/${best.entity}`,
      also_published_as: others.map((o) => ({ id: String(o.entity), reference: blank(o.reference), quality: blank(o.quality) })),
    };
  });
  designations.sort((a, b) => Object.keys(DESIGNATIONS).indexOf(a.dataset ?? "") - Object.keys(DESIGNATIONS).indexOf(b.dataset ?? ""));
  return { records: body.entities.length, designations };
}

export async function planningConstraints(ctx: PluginContext) {
  const origin = await pointFromParams(ctx);
  const { records, designations } = await designationsAt(ctx, origin);
  return {
    location: { lat: origin.lat, lng: origin.lng },
    postcode: origin.postcode ?? null,
    count: designations.length,
    records,
    designations,
    datasets_checked: Object.keys(DESIGNATIONS),
    note: designations.length === 0
      ? "No designation in the datasets checked covers this point. planning.data.gov.uk covers England, and each dataset is only as complete as the councils' submissions: confirm with the local planning authority."
      : "Designations covering this point, one per dataset and name (the same designation published twice is merged; the other records are under also_published_as). Coverage depends on each council's submissions: confirm with the local planning authority.",
  };
}
