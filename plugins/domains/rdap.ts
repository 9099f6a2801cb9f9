// Domain names, RDAP and DNS-over-HTTPS for the domains group: reducing input to a domain, the IANA bootstrap
// (which registry's RDAP server answers for a TLD or an IP range), RDAP lookups and DoH queries.
import net from "node:net";
import { domainToUnicode } from "node:url";
import { Problem, badParam } from "../../engine/basics/problem.ts";
import { domainHost } from "../../engine/endpoints/formats.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

const DAY_MS = 86_400_000;

/** Second-level suffixes under which names are registered (a short list, not the whole Public Suffix List). */
const SECOND_LEVEL = new Set(["co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "sch.uk", "ac.uk", "gov.uk", "nhs.uk",
  "com.au", "net.au", "org.au", "co.nz", "org.nz", "co.jp", "com.br", "com.cn", "co.in", "co.za", "com.mx", "com.tr", "co.kr",
  "com.sg", "com.hk", "co.il", "com.ar", "com.es", "co.id", "com.my"]);

export interface DomainName {
  /** The registrable domain in ASCII (punycode for an IDN), lower case. */
  domain: string;
  /** The same in Unicode. */
  unicode: string;
  /** What the input named, when it was a host under the domain (www.example.com). */
  host: string;
  tld: string;
}

/** A domain name, or a URL or e-mail address holding one, reduced to its registrable domain; 400 naming param when it is none. */
export function domainOf(raw: string, param = "domain", registrable = true): DomainName {
  const ascii = domainHost(raw);
  if (ascii === undefined) throw badParam(param, `${param} must be a domain name such as example.com, or a URL holding one (got "${raw.slice(0, 80)}").`);
  const labels = ascii.split(".");
  const keep = registrable && labels.length > 2 ? (SECOND_LEVEL.has(labels.slice(-2).join(".")) ? 3 : 2) : labels.length;
  const domain = labels.slice(-keep).join(".");
  return { domain, unicode: domainToUnicode(domain), host: ascii, tld: labels[labels.length - 1] };
}

type Bootstrap = { services: [string[], string[]][] };

async function bootstrap(ctx: PluginContext, file: "dns" | "ipv4" | "ipv6"): Promise<[string[], string[]][]> {
  const body = (await ctx.fetch({ source: "iana", path: `/rdap/${file}.json`, cacheMs: DAY_MS, expect: { test: '$type(services) = "array"' } })) as Bootstrap;
  return body.services;
}

/** The https server of a bootstrap entry (its URLs end in a slash by the RFC; some omit it). */
const pickServer = (urls: string[]) => {
  const u = urls.find((x) => x.startsWith("https://")) ?? urls[0];
  return u ? (u.endsWith("/") ? u : `${u}/`) : undefined;
};

/** The RDAP server for a domain's TLD (the longest matching entry), or undefined when the TLD has none. */
export async function domainServer(ctx: PluginContext, domain: string): Promise<string | undefined> {
  const services = await bootstrap(ctx, "dns");
  const labels = domain.split(".");
  for (let i = 0; i < labels.length; i++) {
    const suffix = labels.slice(i).join(".");
    const hit = services.find(([tlds]) => tlds.some((t) => t.toLowerCase() === suffix));
    if (hit) return pickServer(hit[1]);
  }
  return undefined;
}

/** The RDAP server of the RIR holding an IP address, or undefined for private and reserved space. */
export async function ipServer(ctx: PluginContext, ip: string): Promise<string | undefined> {
  const version = net.isIP(ip);
  const services = await bootstrap(ctx, version === 6 ? "ipv6" : "ipv4");
  const family = version === 6 ? "ipv6" : "ipv4";
  for (const [ranges, urls] of services) {
    const list = new net.BlockList();
    for (const r of ranges) {
      const [prefix, bits] = r.split("/");
      if (net.isIP(prefix)) list.addSubnet(prefix, Number(bits), family);
    }
    if (list.check(ip, family)) return pickServer(urls);
  }
  return undefined;
}

/** A server URL split into the base the upstream client calls and the path prefix under it. */
function split(server: string): { baseUrl: string; prefix: string } {
  const u = new URL(server);
  return { baseUrl: u.origin, prefix: u.pathname.replace(/\/$/, "") };
}

export type Rdap = Record<string, any>;

/** GET <server><kind>/<name>; undefined when the registry answers 404 (no such record). */
export async function rdapGet(ctx: PluginContext, server: string, kind: "domain" | "ip", name: string): Promise<Rdap | undefined> {
  const { baseUrl, prefix } = split(server);
  try {
    return (await ctx.fetch({
      source: "rdap", baseUrl, path: `${prefix}/${kind}/${name}`, cacheMs: 3_600_000,
      // An RDAP object (RFC 9083): its objectClassName, or at least the handle, name or address a server always sends.
      expect: { test: "$exists(objectClassName) or $exists(handle) or $exists(ldhName) or $exists(startAddress)" },
    })) as Rdap;
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) return undefined;
    throw e;
  }
}

// ---- reading RDAP objects ----

/** A jCard property's value ("fn", "email", "tel", "adr" label). */
export function vcard(entity: Rdap | undefined, prop: string): string | null {
  const items = entity?.vcardArray?.[1];
  if (!Array.isArray(items)) return null;
  const item = items.find((i: unknown[]) => i[0] === prop);
  if (!item) return null;
  if (prop === "adr") return (item[1]?.label as string | undefined)?.replace(/\n/g, ", ") ?? null;
  const v = Array.isArray(item[3]) ? item[3].filter(Boolean).join(", ") : item[3];
  return typeof v === "string" && v.trim() ? v.replace(/^(tel|mailto):/, "").trim() : null;
}

/** Every entity, nested ones included, having a role. */
export function withRole(obj: Rdap | undefined, role: string): Rdap[] {
  const out: Rdap[] = [];
  const walk = (list: Rdap[] | undefined) => {
    for (const e of list ?? []) {
      if (Array.isArray(e.roles) && e.roles.includes(role)) out.push(e);
      walk(e.entities);
    }
  };
  walk(obj?.entities);
  return out;
}

export const eventDate = (obj: Rdap | undefined, action: string): string | null =>
  (obj?.events as { eventAction: string; eventDate: string }[] | undefined)?.find((e) => e.eventAction === action)?.eventDate ?? null;

/** An instant as ISO UTC without milliseconds. */
export const instant = (v: string | null) => {
  if (!v) return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString().replace(/\.000Z$/, "Z") : null;
};

export function contact(e: Rdap | undefined) {
  return e ? { name: vcard(e, "fn"), email: vcard(e, "email"), phone: vcard(e, "tel") } : null;
}

/** The registrar of a domain object, with its IANA id and abuse contact. */
export function registrar(obj: Rdap) {
  const r = withRole(obj, "registrar")[0];
  if (!r) return null;
  const abuse = withRole(r, "abuse")[0];
  const id = (r.publicIds as { type: string; identifier: string }[] | undefined)?.find((p) => /iana/i.test(p.type))?.identifier ?? null;
  return { name: vcard(r, "fn") ?? r.handle ?? null, iana_id: id, abuse: abuse ? contact(abuse) : null };
}

// ---- DNS over HTTPS ----

export const DNS_TYPES: Record<string, number> = { A: 1, NS: 2, CNAME: 5, MX: 15, TXT: 16, AAAA: 28, CAA: 257 };
const TYPE_NAMES = Object.fromEntries(Object.entries(DNS_TYPES).map(([k, v]) => [v, k]));

export interface DohAnswer { Status: number; AD?: boolean; Answer?: { name: string; type: number; TTL: number; data: string }[] }

/** One DoH JSON query; NXDOMAIN (3) and an empty answer come back as they are, a server failure is a 502. */
export async function doh(ctx: PluginContext, name: string, type: string): Promise<DohAnswer> {
  const body = (await ctx.fetch({ source: "google-dns", path: "/resolve", query: { name, type }, cacheMs: 60_000, expect: { test: '$type(Status) = "number"' } })) as DohAnswer;
  if (body.Status !== 0 && body.Status !== 3) {
    throw new Problem({ status: 502, code: "upstream_error", detail: `The DNS resolver could not answer for ${name} ${type} (DNS status ${body.Status}, e.g. SERVFAIL: the domain's name servers failed). The call was not charged.`, extra: { upstream: "google-dns" } });
  }
  return body;
}

/** A TXT record's data: its quoted strings joined without spaces (RFC 7208 3.3). */
export const txtValue = (data: string) => {
  const parts = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1"));
  return parts.length ? parts.join("") : data;
};

export interface DnsRecord { type: string; name: string; ttl: number; value: string; priority?: number; flags?: number; tag?: string }

/** The answer's records of the asked type (a CNAME chain's other records are left out unless asked). */
export function records(answer: DohAnswer, type: string): DnsRecord[] {
  const list = recordsAsGiven(answer, type);
  return type === "MX" ? list.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0)) : list;
}

function recordsAsGiven(answer: DohAnswer, type: string): DnsRecord[] {
  return (answer.Answer ?? []).filter((a) => TYPE_NAMES[a.type] === type).map((a) => {
    const base = { type, name: a.name.replace(/\.$/, ""), ttl: a.TTL };
    if (type === "TXT") return { ...base, value: txtValue(a.data) };
    if (type === "MX") {
      const m = /^(\d+)\s+(\S+)$/.exec(a.data);
      return m ? { ...base, priority: Number(m[1]), value: m[2].replace(/\.$/, "") } : { ...base, value: a.data };
    }
    if (type === "CAA") {
      const m = /^(\d+)\s+(\S+)\s+"?(.*?)"?$/.exec(a.data);
      return m ? { ...base, flags: Number(m[1]), tag: m[2], value: m[3] } : { ...base, value: a.data };
    }
    return { ...base, value: a.data.replace(/\.$/, "") };
  });
}
