// The ip-geolocation group, answered from the local DB-IP Lite dataset (dbip-lite.dataset.ts beside this file), with
// the time zone derived from the coordinates (geo-tz, as time-zones for-point does).
import { Problem, badParam } from "../../engine/basics/problem.ts";
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import type { DatasetHandle } from "../../engine/datasets/types.ts";
import type { AsnRow, CityRow, DbipIndex } from "./dbip-lite.dataset.ts";
import { zonesAtPoint } from "../shared/tz.ts";
import { canonical, ipBytes, reservedRange } from "./ip.ts";
import { ipOwner } from "../domains/index.ts";

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const CONTINENTS: Record<string, string> = { AF: "Africa", AN: "Antarctica", AS: "Asia", EU: "Europe", NA: "North America", OC: "Oceania", SA: "South America" };
const round4 = (n: number | null) => (n === null ? null : Math.round(n * 1e4) / 1e4);
const ipText = (b: Uint8Array) => canonical(Buffer.from(b)).ip;

type Lookup = { error: string } | ({ error?: undefined; found: boolean } & Record<string, unknown>);

function lookupOne(h: DatasetHandle<DbipIndex>, raw: string): Lookup {
  const input = raw.trim();
  const bytes = ipBytes(input);
  if (!bytes) return { error: `"${input}" is not an IPv4 or IPv6 address.` };
  const { ip, version } = canonical(bytes);
  const reserved = reservedRange(ip, version);
  const base = { ip, version, reserved: reserved !== null, reserved_range: reserved };
  if (reserved) {
    return { ...base, found: false, country: null, region: null, city: null, location: null, accuracy: null, time_zone: null, network: null, asn: null,
      note: `${ip} is a ${reserved.replace(/-/g, " ")} address: it is not routed on the public internet and has no location.` };
  }
  const c = h.index.city.get(bytes) as CityRow | undefined;
  const cityHit = c && Buffer.compare(Buffer.from(c.end), bytes) >= 0 ? c : undefined;
  const a = h.index.asn.get(bytes) as AsnRow | undefined;
  const asnHit = a && Buffer.compare(Buffer.from(a.end), bytes) >= 0 ? a : undefined;
  const lat = round4(cityHit?.lat ?? null);
  const lng = round4(cityHit?.lng ?? null);
  const zone = lat !== null && lng !== null ? zonesAtPoint(lat, lng)[0] ?? null : null;
  return {
    ...base,
    found: !!cityHit,
    country: cityHit?.country ? { code: cityHit.country, name: countryName(cityHit.country) } : null,
    continent: cityHit?.continent ? { code: cityHit.continent, name: CONTINENTS[cityHit.continent] ?? null } : null,
    region: cityHit?.region ?? null,
    city: cityHit?.city ?? null,
    location: lat !== null && lng !== null ? { lat, lng } : null,
    accuracy: cityHit ? "city" : null,
    time_zone: zone,
    network: cityHit ? { start: ipText(cityHit.start), end: ipText(cityHit.end) } : null,
    asn: asnHit ? { number: asnHit.asn, name: asnHit.org } : null,
    note: cityHit
      ? "The location is the centre of the city DB-IP places the network in, not the device's address; anycast, cloud, VPN and mobile networks are often placed far from their users."
      : "DB-IP has no location for this address (unallocated, or not seen in its data).",
  };
}

function countryName(code: string): string | null {
  try {
    const n = regionNames.of(code);
    return n && n !== code ? n : null;
  } catch {
    return null;
  }
}

const dataset = (ctx: PluginContext) => ctx.dataset<DbipIndex>("dbip-lite");

function withMonth(h: DatasetHandle<DbipIndex>, answer: object) {
  return { ...answer, dataset_month: h.version.data_dates?.city ?? null };
}

export function lookup(ctx: PluginContext) {
  const h = dataset(ctx);
  const r = lookupOne(h, ctx.params.ip as string);
  if (r.error !== undefined) throw badParam("ip", r.error);
  return withMonth(h, r);
}

export function bulk(ctx: PluginContext) {
  const h = dataset(ctx);
  const items = ctx.params.ips as string[];
  const results = items.map((raw) => {
    const r = lookupOne(h, raw);
    return r.error !== undefined ? { ip: raw.trim(), error: r.error } : r;
  });
  return withMonth(h, {
    count: results.length,
    found: results.filter((r) => r.error === undefined && r.found).length,
    errors: results.filter((r) => r.error !== undefined).length,
    results,
  });
}

export function myIp(ctx: PluginContext) {
  const h = dataset(ctx);
  const raw = ctx.clientId;
  const r = lookupOne(h, raw);
  if (r.error !== undefined) return withMonth(h, { ip: raw, found: false, note: "The caller's address could not be read." });
  return withMonth(h, { ...r, seen_as: "the address this service received the call from (after trusted proxies); over MCP, the MCP client's host, not the end user's" });
}

export function datasetInfo(ctx: PluginContext) {
  const h = dataset(ctx);
  const v = h.version;
  return {
    dataset: v.name,
    version: v.version,
    loaded_at: v.loaded_at,
    city_month: v.data_dates?.city ?? null,
    asn_month: v.data_dates?.asn ?? null,
    counts: { city_ranges: v.counts.city_ranges ?? null, asn_ranges: v.counts.asn_ranges ?? null },
    files: v.sources.map((s) => ({ file: s.file, url: s.url, date: s.date ?? null })),
    licence: "CC BY 4.0: IP Geolocation by DB-IP (https://db-ip.com); pages that show results must link to DB-IP.",
    refresh: "DB-IP publishes the Lite files monthly; this server checks weekly.",
  };
}

/** The ip parameter's 16 bytes; 400 naming ip when it is not an address. */
function ipParam(raw: string): Buffer {
  const input = String(raw).trim();
  const bytes = ipBytes(input);
  if (!bytes) throw badParam("ip", `"${input.slice(0, 60)}" is not an IPv4 or IPv6 address.`);
  return bytes;
}
// Checked before payment, so a bad address is a 400 and never a 402.
lookup.validate = (params: Record<string, unknown>) => void ipParam(params.ip as string);

/** The address as looked up (IPv4-mapped unwrapped); 400 when it is none, 404 for reserved space no registry holds. */
function ownerAddress(raw: string): { ip: string; version: 4 | 6 } {
  const a = canonical(ipParam(raw));
  const reserved = reservedRange(a.ip, a.version);
  if (reserved) {
    throw new Problem({ status: 404, code: "not_found", param: "ip", detail: `${a.ip} is a ${reserved.replace(/-/g, " ")} address: it is not routed on the public internet and no registry holds it.` });
  }
  return a;
}

/** The network's registration (RDAP, through the domains group's bootstrap and RDAP code), in this group's words. */
export async function owner(ctx: PluginContext) {
  const { ip, version } = ownerAddress(ctx.params.ip as string);
  const o = await ipOwner({ ...ctx, params: { ...ctx.params, ip } });
  const n = o.network;
  return {
    ip,
    version,
    found: true,
    network: { start: n.start_address, end: n.end_address, cidrs: n.cidrs, handle: n.handle, name: n.name, type: n.type, parent_handle: n.parent_handle },
    organisation: o.organisation,
    country: o.country ? { code: o.country, name: countryName(o.country) } : null,
    abuse: o.abuse,
    cdn: o.cdn,
    registered_at: n.registered_at,
    updated_at: n.updated_at,
    registry: o.registry,
    registry_rdap: o.registry_rdap,
    note: "The registry's record of who holds the address block (as its holder declared it), not where the address is used: a block can be sub-let to a customer the record does not name. Send abuse reports to abuse.email.",
  };
}
owner.validate = (params: Record<string, unknown>) => void ownerAddress(params.ip as string);

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["dbip-lite"], lookup, bulk, myIp, datasetInfo);
