// The domains group: registration data from the registries' RDAP servers (chosen by the IANA bootstrap files),
// DNS from live DNS-over-HTTPS queries. Multi-part answers fetch their parts concurrently.
import net from "node:net";
import { Problem, badParam } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import {
  DNS_TYPES, contact, domainOf, domainServer, doh, eventDate, instant, ipServer, rdapGet, records, registrar, vcard, withRole,
  type DnsRecord, type DomainName, type Rdap,
} from "./rdap.ts";

const DAY = 86_400_000;
const CAVEAT = "No registration record at the registry, so the name is very likely available. Registries also withhold reserved, premium and blocked names, which a registrar will refuse or price differently: confirm with a registrar before relying on it.";

const days = (from: string | null, to: Date) => (from ? Math.floor((to.getTime() - Date.parse(from)) / DAY) : null);

interface Availability { domain: string; unicode: string; available: boolean | null; status: string; meaning: string; registry_rdap: string | null; expires_at?: string | null }

async function availabilityOf(ctx: PluginContext, d: Pick<DomainName, "domain" | "unicode" | "tld">): Promise<Availability> {
  const server = await domainServer(ctx, d.domain);
  if (!server) {
    return { domain: d.domain, unicode: d.unicode, available: null, status: "unknown", registry_rdap: null,
      meaning: `The registry of .${d.tld} offers no RDAP service (it is not in IANA's bootstrap file), so availability cannot be checked here: ask a registrar.` };
  }
  const obj = await rdapGet(ctx, server, "domain", d.domain);
  if (!obj) return { domain: d.domain, unicode: d.unicode, available: true, status: "likely-available", registry_rdap: server, meaning: CAVEAT };
  return { domain: d.domain, unicode: d.unicode, available: false, status: "registered", registry_rdap: server,
    expires_at: instant(eventDate(obj, "expiration")), meaning: "The registry holds a registration for this name: it is taken." };
}

export async function availability(ctx: PluginContext) {
  return availabilityOf(ctx, domainOf(ctx.params.domain as string));
}

/** The domain's RDAP object from its registry; 404 naming `domain` when it is not registered. */
async function registration(ctx: PluginContext, d: DomainName): Promise<{ obj: Rdap; server: string }> {
  const server = await domainServer(ctx, d.domain);
  if (!server) {
    throw new Problem({ status: 404, code: "not_found", param: "domain", detail: `The registry of .${d.tld} offers no RDAP service (not in IANA's bootstrap file), so its registration data cannot be read here.` });
  }
  const obj = await rdapGet(ctx, server, "domain", d.domain);
  if (!obj) throw new Problem({ status: 404, code: "not_found", param: "domain", detail: `${d.domain} is not registered: its registry (${new URL(server).host}) has no record of it.` });
  return { obj, server };
}

function factsOf(d: DomainName, obj: Rdap, server: string) {
  const now = new Date();
  const created = instant(eventDate(obj, "registration"));
  const expires = instant(eventDate(obj, "expiration"));
  const age = days(created, now);
  return {
    domain: d.domain,
    unicode: d.unicode,
    handle: obj.handle ?? null,
    registrar: registrar(obj),
    registered_at: created,
    expires_at: expires,
    updated_at: instant(eventDate(obj, "last changed")),
    age_days: age,
    age_years: age === null ? null : Math.floor((age / 365.25) * 10) / 10,
    days_to_expiry: expires ? Math.floor((Date.parse(expires) - now.getTime()) / DAY) : null,
    status_codes: (obj.status as string[] | undefined)?.map((s) => s.toLowerCase()) ?? [],
    nameservers: ((obj.nameservers as Rdap[] | undefined) ?? []).map((n) => String(n.ldhName ?? "").toLowerCase()).filter(Boolean),
    dnssec: typeof obj.secureDNS?.delegationSigned === "boolean" ? obj.secureDNS.delegationSigned : null,
    registry_rdap: server,
    registrar_rdap: (obj.links as { rel?: string; href?: string }[] | undefined)?.find((l) => l.rel === "related" && l.href)?.href ?? null,
  };
}

export async function facts(ctx: PluginContext) {
  const d = domainOf(ctx.params.domain as string);
  const { obj, server } = await registration(ctx, d);
  return factsOf(d, obj, server);
}

export async function dns(ctx: PluginContext) {
  const d = domainOf(ctx.params.domain as string, "domain", false);
  const type = ctx.params.type as string;
  const types = type === "ALL" ? Object.keys(DNS_TYPES) : [type];
  const answers = await Promise.all(types.map((t) => doh(ctx, d.host, t)));
  if (answers.every((a) => a.Status === 3)) {
    throw new Problem({ status: 404, code: "not_found", param: "domain", detail: `${d.host} does not exist in the DNS (NXDOMAIN).` });
  }
  const list = answers.flatMap((a, i) => records(a, types[i]));
  return {
    domain: d.host,
    unicode: d.unicode === d.domain ? d.host : d.unicode,
    type,
    count: list.length,
    records: list,
    dnssec_validated: answers.every((a) => a.AD === true),
    ...(list.length ? {} : { note: `${d.host} exists but has no ${type === "ALL" ? "A, AAAA, MX, NS, TXT, CNAME or CAA" : type} records.` }),
  };
}

/** ARIN writes "074.125.000.000", RIPE's older answers "62.239.237.0/32": an address as usually written. */
const cleanIp = (v: unknown) => {
  if (typeof v !== "string") return null;
  const ip = v.replace(/\/\d+$/, "");
  return ip.includes(".") ? ip.split(".").map((p) => String(Number(p))).join(".") : ip.toLowerCase();
};

const CDNS: [RegExp, string][] = [[/cloudflare/i, "Cloudflare"], [/akamai/i, "Akamai"], [/fastly/i, "Fastly"], [/cloudfront/i, "Amazon CloudFront"],
  [/edgecast|edgio|limelight/i, "Edgio"], [/incapsula|imperva/i, "Imperva"], [/sucuri/i, "Sucuri"], [/stackpath|highwinds/i, "StackPath"],
  [/cdn77|datacamp/i, "CDN77"], [/bunny/i, "Bunny CDN"]];

async function ipOwnerOf(ctx: PluginContext, ip: string, param: string) {
  const server = await ipServer(ctx, ip);
  if (!server) throw new Problem({ status: 404, code: "not_found", param, detail: `${ip} is in private, reserved or unallocated address space: no registry holds it.` });
  const obj = await rdapGet(ctx, server, "ip", ip);
  if (!obj) throw new Problem({ status: 404, code: "not_found", param, detail: `The registry (${new URL(server).host}) has no network record for ${ip}.` });
  const org = withRole(obj, "registrant")[0] ?? withRole(obj, "administrative")[0];
  const abuse = withRole(obj, "abuse")[0];
  const cidrs = (obj.cidr0_cidrs as { v4prefix?: string; v6prefix?: string; length: number }[] | undefined)?.map((c) => `${c.v4prefix ?? c.v6prefix}/${c.length}`) ?? [];
  const orgName = vcard(org, "fn") ?? org?.handle ?? null;
  const cdn = CDNS.find(([re]) => re.test(`${orgName ?? ""} ${obj.name ?? ""}`));
  return {
    ip,
    network: {
      handle: obj.handle ?? null,
      name: obj.name ?? null,
      type: obj.type ?? null,
      start_address: cleanIp(obj.startAddress),
      end_address: cleanIp(obj.endAddress),
      cidrs,
      ip_version: obj.ipVersion ?? null,
      parent_handle: obj.parentHandle ?? null,
      registered_at: instant(eventDate(obj, "registration")),
      updated_at: instant(eventDate(obj, "last changed")),
    },
    organisation: org ? { name: orgName, handle: org.handle ?? null, address: vcard(org, "adr") } : null,
    country: obj.country ?? null,
    abuse: abuse ? contact(abuse) : null,
    cdn: cdn ? cdn[1] : null,
    registry: new URL(server).host,
    registry_rdap: server,
  };
}

export async function ipOwner(ctx: PluginContext) {
  const ip = String(ctx.params.ip).trim().replace(/^\[|\]$/g, "");
  if (!net.isIP(ip)) throw badParam("ip", `ip must be an IPv4 or IPv6 address (got "${ip.slice(0, 60)}").`);
  return ipOwnerOf(ctx, ip, "ip");
}

/** The US Copyright Office directory has no API: where to look, and what a designation must be. */
function dmcaPointer(d: DomainName) {
  const name = d.domain.split(".")[0];
  return {
    directory: "U.S. Copyright Office DMCA Designated Agent Directory",
    search_url: `https://dmca.copyright.gov/osp/publish/search.html?search=${encodeURIComponent(name)}`,
    search_for: name,
    agent: null,
    checked: false,
    note: "The directory offers no API or bulk download, so the agent is not read here: open search_url (search by the service provider's legal name or an alternate name). A designation lapses after three years unless renewed (37 CFR 201.38), and the provider must also publish the agent's contact details on its own site, usually on a copyright or DMCA page.",
  };
}

export function dmcaAgent(ctx: PluginContext) {
  const d = domainOf(ctx.params.domain as string);
  return { domain: d.domain, unicode: d.unicode, ...dmcaPointer(d) };
}

/** Runs the parts of an answer concurrently; a part that fails is reported, not fatal. */
async function parts<T extends Record<string, () => Promise<unknown>>>(jobs: T) {
  const names = Object.keys(jobs);
  const settled = await Promise.allSettled(names.map((n) => jobs[n]()));
  const out: Record<string, unknown> = {};
  const failed: { part: string; reason: string }[] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") out[names[i]] = s.value;
    else {
      out[names[i]] = null;
      failed.push({ part: names[i], reason: s.reason instanceof Error ? s.reason.message : String(s.reason) });
    }
  });
  return { out, failed };
}

export async function abuseContacts(ctx: PluginContext) {
  const d = domainOf(ctx.params.domain as string);
  const { out, failed } = await parts({
    registrar: async () => {
      const { obj } = await registration(ctx, d);
      return registrar(obj);
    },
    hosting: async () => {
      const a = records(await doh(ctx, d.host, "A"), "A");
      const aaaa = a.length ? [] : records(await doh(ctx, d.host, "AAAA"), "AAAA");
      const ip = (a[0] ?? aaaa[0])?.value;
      if (!ip) return null;
      const owner = await ipOwnerOf(ctx, ip, "domain");
      return { ip, network: owner.network.name, organisation: owner.organisation?.name ?? null, country: owner.country, abuse: owner.abuse,
        cdn: owner.cdn !== null, cdn_name: owner.cdn, registry: owner.registry };
    },
  });
  if (failed.length === 2) {
    throw new Problem({ status: 502, code: "upstream_error", detail: `Neither the registration nor the hosting of ${d.domain} could be read (${failed.map((f) => f.reason).join("; ")}). The call was not charged.` });
  }
  const hosting = out.hosting as { cdn: boolean; cdn_name: string | null } | null;
  return {
    domain: d.domain,
    unicode: d.unicode,
    platform_agent: dmcaPointer(d),
    hosting,
    registrar: out.registrar,
    advice: hosting?.cdn
      ? `The site is behind ${hosting.cdn_name}, a CDN: its abuse desk forwards reports to the real host but does not remove content itself. Report to the platform's agent first, then the CDN, then the registrar.`
      : "Report to the platform's own agent first, then the hosting network's abuse contact, then the registrar's.",
    failed_parts: failed,
  };
}

// ---- email authentication ----

const PROVIDERS: [RegExp, string][] = [[/(google|googlemail)\.com$/, "Google Workspace"], [/(outlook|protection\.outlook)\.com$/, "Microsoft 365"],
  [/pphosted\.com$/, "Proofpoint"], [/mimecast\.com$/, "Mimecast"], [/zoho\.(com|eu|in)$/, "Zoho Mail"], [/messagingengine\.com$/, "Fastmail"],
  [/protonmail\.ch$/, "Proton Mail"], [/secureserver\.net$/, "GoDaddy"], [/mx\.cloudflare\.net$/, "Cloudflare Email Routing"],
  [/amazonaws\.com$/, "Amazon SES"], [/icloud\.com$/, "iCloud Mail"], [/yandex\.(net|ru)$/, "Yandex"], [/ovh\.net$/, "OVHcloud"],
  [/ionos\.|1and1\./, "IONOS"], [/mailgun\.org$/, "Mailgun"], [/barracudanetworks\.com$/, "Barracuda"]];

const SPF_LOOKUP_TERMS = /^[+~?-]?(include:|a$|a:|a\/|mx$|mx:|mx\/|ptr|exists:)|^redirect=/i;

function spfOf(txt: string[]) {
  const recs = txt.filter((t) => /^v=spf1(\s|$)/i.test(t));
  if (!recs.length) return { record: null, records: 0, all: null, dns_lookups: 0 };
  const terms = recs[0].split(/\s+/).slice(1);
  const all = terms.find((t) => /^[+~?-]?all$/i.test(t));
  return { record: recs[0], records: recs.length, all: all ? (all.length === 3 ? "+all" : all.toLowerCase()) : null, dns_lookups: terms.filter((t) => SPF_LOOKUP_TERMS.test(t)).length };
}

function tags(record: string) {
  return Object.fromEntries(record.split(";").map((p) => p.trim()).filter(Boolean).map((p) => {
    const i = p.indexOf("=");
    return [p.slice(0, i).trim().toLowerCase(), p.slice(i + 1).trim()];
  }));
}

export async function emailAuth(ctx: PluginContext) {
  const d = domainOf(ctx.params.domain as string, "domain", false);
  const name = d.host;
  const [mxA, txtA, dmarcA, stsA, bimiA] = await Promise.all([
    doh(ctx, name, "MX"), doh(ctx, name, "TXT"), doh(ctx, `_dmarc.${name}`, "TXT"), doh(ctx, `_mta-sts.${name}`, "TXT"), doh(ctx, `default._bimi.${name}`, "TXT"),
  ]);
  if (mxA.Status === 3 && txtA.Status === 3) throw new Problem({ status: 404, code: "not_found", param: "domain", detail: `${name} does not exist in the DNS (NXDOMAIN).` });
  const mx = records(mxA, "MX").sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
  const nullMx = mx.length === 1 && (mx[0].value === "" || mx[0].value === ".");
  const spf = spfOf(records(txtA, "TXT").map((r) => r.value));
  const dmarcRecs = records(dmarcA, "TXT").map((r) => r.value).filter((t) => /^v=DMARC1/i.test(t));
  const dmarcTags = dmarcRecs[0] ? tags(dmarcRecs[0]) : null;
  const sts = records(stsA, "TXT").map((r) => r.value).find((t) => /^v=STSv1/i.test(t)) ?? null;
  const bimi = records(bimiA, "TXT").map((r) => r.value).find((t) => /^v=BIMI1/i.test(t)) ?? null;
  const provider = mx.map((m) => PROVIDERS.find(([re]) => re.test(m.value.toLowerCase()))?.[1]).find(Boolean) ?? null;

  const issues: { severity: string; issue: string }[] = [];
  let score = 100;
  const flag = (severity: "high" | "medium" | "low", issue: string, cost: number) => {
    issues.push({ severity, issue });
    score -= cost;
  };
  if (!mx.length) flag("low", "No MX record: the domain receives mail only through its A record, if at all.", 0);
  if (nullMx) issues.push({ severity: "info", issue: "A null MX record: the domain says it accepts no mail." });
  if (!spf.record) flag("high", "No SPF record: anyone can send mail claiming to be from this domain without an SPF failure.", 30);
  else {
    if (spf.records > 1) flag("high", `${spf.records} SPF records: receivers treat this as a permanent error (only one v=spf1 record is allowed).`, 25);
    if (spf.all === "+all") flag("high", "SPF ends in +all: it authorises every server in the world to send for the domain.", 30);
    else if (spf.all === "?all") flag("medium", "SPF ends in ?all (neutral): it asserts nothing about other senders.", 15);
    else if (spf.all === null) flag("medium", "SPF has no all term: mail from unlisted servers is neutral.", 10);
    if (spf.dns_lookups > 10) flag("high", `SPF uses ${spf.dns_lookups} DNS-querying terms at its top level; more than 10 is a permanent error.`, 20);
  }
  if (!dmarcTags) flag("high", "No DMARC record at _dmarc: receivers get no policy for mail failing SPF and DKIM, and the owner no reports.", 35);
  else {
    const p = (dmarcTags.p ?? "").toLowerCase();
    if (p === "none") flag("medium", "DMARC policy p=none: failing mail is still delivered (monitoring only).", 20);
    if (!["none", "quarantine", "reject"].includes(p)) flag("high", "DMARC record has no valid p= policy.", 25);
    if (dmarcTags.pct && Number(dmarcTags.pct) < 100) flag("low", `DMARC pct=${dmarcTags.pct}: the policy applies to only part of the failing mail.`, 5);
    if (!dmarcTags.rua) flag("low", "DMARC has no rua= address: the owner receives no aggregate reports.", 5);
  }
  if (mx.length && !nullMx && !sts) flag("low", "No MTA-STS policy: mail to the domain can be downgraded to unencrypted delivery.", 5);
  score = Math.max(0, score);
  const grade = score >= 90 ? "A" : score >= 75 ? "B" : score >= 60 ? "C" : score >= 40 ? "D" : "F";
  const high = issues.filter((i) => i.severity === "high").length;
  const verdict = grade === "A" ? `${name} is well protected against e-mail spoofing: SPF and an enforced DMARC policy are in place.`
    : high ? `${name} can be spoofed easily: ${issues.filter((i) => i.severity === "high").map((i) => i.issue.split(":")[0]).join("; ")}.`
    : `${name} has the basics (SPF and DMARC) but not at full strength: ${issues.map((i) => i.issue.split(":")[0]).join("; ")}.`;
  return {
    domain: name,
    grade,
    score,
    verdict,
    mx: mx.map((m) => ({ priority: m.priority ?? null, host: m.value })),
    mail_provider: provider,
    spf: { present: spf.record !== null, record: spf.record, records: spf.records, all: spf.all, dns_lookups: spf.dns_lookups },
    dmarc: {
      present: dmarcTags !== null,
      record: dmarcRecs[0] ?? null,
      policy: dmarcTags?.p?.toLowerCase() ?? null,
      subdomain_policy: dmarcTags?.sp?.toLowerCase() ?? null,
      percent: dmarcTags ? Number(dmarcTags.pct ?? 100) : null,
      reports_to: dmarcTags?.rua ? dmarcTags.rua.split(",").map((s: string) => s.trim().replace(/^mailto:/i, "")) : [],
    },
    mta_sts: { present: sts !== null, record: sts },
    bimi: { present: bimi !== null, record: bimi },
    issues,
  };
}

// ---- ideas ----

const CONCURRENCY = 4;

export async function ideas(ctx: PluginContext) {
  const p = ctx.params as { keyword: string; tlds: string[]; prefixes?: string[]; suffixes?: string[]; trademarks?: string[] };
  const keyword = domainOf(`${p.keyword.toLowerCase().replace(/\s+/g, "")}.com`, "keyword", false).host.slice(0, -4);
  const label = (s: string, param: string) => {
    const v = s.toLowerCase().replace(/[^\p{L}\p{N}-]/gu, "");
    if (!v) throw badParam(param, `${param} items must be letters, digits or hyphens (got "${s}").`);
    return v;
  };
  const prefixes = (p.prefixes ?? ["get", "try"]).map((s) => label(s, "prefixes"));
  const suffixes = (p.suffixes ?? ["hq", "app"]).map((s) => label(s, "suffixes"));
  const tlds = p.tlds.map((t) => t.toLowerCase().replace(/^\./, ""));
  const names = [...new Set([keyword, ...prefixes.map((x) => x + keyword), ...suffixes.map((x) => keyword + x)])];
  const candidates = names.flatMap((n) => tlds.map((t) => `${n}.${t}`));
  if (candidates.length > 40) throw badParam("tlds", `That makes ${candidates.length} names to check; at most 40 (fewer tlds, prefixes or suffixes).`);
  const marks = (p.trademarks ?? []).map((t) => ({ mark: t, key: t.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "") })).filter((m) => m.key);

  const results: (Availability & { name: string; tld: string; trademarks: string[] })[] = new Array(candidates.length);
  let next = 0;
  const worker = async () => {
    while (next < candidates.length) {
      const i = next++;
      const d = domainOf(candidates[i], "keyword", false);
      const flat = d.host.replace(/[^a-z0-9]/g, "");
      const a = await availabilityOf(ctx, { domain: d.host, unicode: d.unicode, tld: d.host.split(".").slice(1).join(".") });
      results[i] = { ...a, name: d.host.split(".")[0], tld: d.host.split(".").slice(1).join("."), trademarks: marks.filter((m) => flat.includes(m.key)).map((m) => m.mark) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, candidates.length) }, worker));
  const list = results.map((r) => ({ domain: r.domain, unicode: r.unicode, available: r.available, status: r.status, trademark_conflict: r.trademarks.length > 0, trademarks: r.trademarks }));
  const free = list.filter((r) => r.available === true);
  return {
    query: { keyword: p.keyword, tlds, prefixes, suffixes, trademarks: marks.map((m) => m.mark) },
    count: list.length,
    available_count: free.length,
    ideas: list,
    note: `${CAVEAT} A trademark flag means the name contains one of the marks given; it is not a trademark search.`,
  };
}
