// seo-tools: what a site tells crawlers, read through the shared safe fetcher (plugins/shared/safe-fetch.ts).
// robots.txt rules and checks (robots-parser, RFC 9309), sitemaps (sitemaps.org protocol, gzip too), a page's
// head tags as search engines read them, and a URL's redirect chain hop by hop.
import { gunzipSync } from "node:zlib";
import { XMLParser } from "fast-xml-parser";
import { Problem } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { fetchPage, fetchProblem } from "../shared/fetch-page.ts";
import { lazy } from "../shared/lazy.ts";
import { cachedRobots, checkUrl, fetchRobots, robotsParser, safeFetch, SafeFetchError, userAgent, type SafeResponse } from "../shared/safe-fetch.ts";

const linkedom = lazy<typeof import("linkedom")>("linkedom");

const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;
const MAX_CHILD_SITEMAPS = 10;

function originOf(raw: unknown): string {
  try {
    return checkUrl(String(raw)).origin;
  } catch (e) {
    if (e instanceof SafeFetchError) throw fetchProblem(e);
    throw e;
  }
}

interface Group { user_agents: string[]; rules: { type: "allow" | "disallow"; path: string; line: number }[]; crawl_delay: number | null }

/** robots.txt as groups of records (RFC 9309 §2.1: consecutive user-agent lines start one group). */
export function robotsGroups(text: string): { groups: Group[]; sitemaps: string[]; host: string | null; unknown_lines: number } {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let host: string | null = null;
  let unknown = 0;
  let current: Group | undefined;
  let lastWasAgent = false;
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (!line) return;
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) {
      unknown++;
      return;
    }
    const key = m[1].toLowerCase();
    const value = m[2].trim();
    if (key === "user-agent") {
      if (!lastWasAgent || !current) {
        current = { user_agents: [], rules: [], crawl_delay: null };
        groups.push(current);
      }
      current.user_agents.push(value);
      lastWasAgent = true;
      return;
    }
    lastWasAgent = false;
    if (key === "sitemap") sitemaps.push(value);
    else if (key === "host") host = value;
    else if ((key === "allow" || key === "disallow") && current) current.rules.push({ type: key, path: value, line: i + 1 });
    else if (key === "crawl-delay" && current) current.crawl_delay = Number.isFinite(Number(value)) ? Number(value) : null;
    else unknown++;
  });
  return { groups, sitemaps, host, unknown_lines: unknown };
}

export async function robots(ctx: PluginContext): Promise<unknown> {
  const { user_agent, paths } = ctx.params as { user_agent: string; paths?: string };
  const origin = originOf(ctx.params.url);
  let file;
  try {
    file = await fetchRobots(origin);
  } catch (e) {
    if (e instanceof SafeFetchError) throw fetchProblem(e);
    throw e;
  }
  ctx.record({ source: "web", publisher: new URL(origin).hostname, url: file.url, fetched_at: new Date().toISOString(), cached: false });
  const interpretation = file.status === null || file.status >= 500 ? "disallow_all" : file.text === null ? "allow_all" : "rules";
  const parsed = file.text === null ? { groups: [], sitemaps: [], host: null, unknown_lines: 0 } : robotsGroups(file.text);
  const rules = file.text === null ? null : robotsParser(file.url, file.text);
  const ua = user_agent;
  const checks = (paths ? paths.split(",").map((p) => p.trim()).filter(Boolean) : []).map((p) => {
    const url = new URL(p, origin).href;
    if (interpretation !== "rules") return { path: p, url, allowed: interpretation === "allow_all", matching_line: null };
    const allowed = rules!.isAllowed(url, ua) !== false;
    const line = rules!.getMatchingLineNumber(url, ua);
    return { path: p, url, allowed, matching_line: line > 0 ? line : null };
  });
  return {
    robots_url: file.url,
    status: file.status,
    interpretation,
    interpretation_text: interpretation === "rules" ? "The file's rules apply."
      : interpretation === "allow_all" ? `No robots.txt (HTTP ${file.status}): under RFC 9309 everything may be crawled.`
      : `robots.txt ${file.status === null ? "could not be reached" : `answered HTTP ${file.status}`}: under RFC 9309 nothing may be crawled until it is back.`,
    user_agent: ua,
    crawl_delay: rules?.getCrawlDelay(ua) ?? null,
    groups: parsed.groups,
    sitemaps: parsed.sitemaps,
    host: parsed.host,
    unknown_lines: parsed.unknown_lines,
    checks,
    size_bytes: file.text === null ? null : Buffer.byteLength(file.text),
  };
}

const xml = new XMLParser({ ignoreAttributes: true, parseTagValue: false, trimValues: true, isArray: (name) => name === "url" || name === "sitemap" });

interface SitemapFile { url: string; status: number | null; type: "urlset" | "sitemapindex" | null; url_count: number; child_sitemaps: number; error: string | null }

async function readSitemap(url: string): Promise<{ file: SitemapFile; urls: { loc: string; lastmod: string | null; changefreq: string | null; priority: number | null }[]; children: string[] }> {
  const file: SitemapFile = { url, status: null, type: null, url_count: 0, child_sitemaps: 0, error: null };
  let res: SafeResponse;
  try {
    res = await safeFetch(url, { maxBytes: SITEMAP_MAX_BYTES, accept: "application/xml,text/xml;q=0.9,*/*;q=0.1", timeoutMs: 15_000 });
  } catch (e) {
    if (!(e instanceof SafeFetchError)) throw e;
    file.error = e.message;
    return { file, urls: [], children: [] };
  }
  file.status = res.status;
  if (res.status >= 400) {
    file.error = `answered HTTP ${res.status}`;
    return { file, urls: [], children: [] };
  }
  let body = res.body;
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      body = gunzipSync(body, { maxOutputLength: SITEMAP_MAX_BYTES });
    } catch {
      file.error = "is gzip that could not be unpacked within 10 MB";
      return { file, urls: [], children: [] };
    }
  }
  let doc: Record<string, { url?: Record<string, string>[]; sitemap?: Record<string, string>[] }>;
  try {
    doc = xml.parse(body.toString("utf8"));
  } catch {
    file.error = "is not XML";
    return { file, urls: [], children: [] };
  }
  if (doc.urlset) {
    file.type = "urlset";
    const urls = (doc.urlset.url ?? []).filter((u) => u.loc).map((u) => ({ loc: u.loc, lastmod: u.lastmod ?? null, changefreq: u.changefreq ?? null, priority: u.priority ? Number(u.priority) : null }));
    file.url_count = urls.length;
    return { file, urls, children: [] };
  }
  if (doc.sitemapindex) {
    file.type = "sitemapindex";
    const children = (doc.sitemapindex.sitemap ?? []).map((s) => s.loc).filter(Boolean);
    file.child_sitemaps = children.length;
    return { file, urls: [], children };
  }
  file.error = "is XML but neither a urlset nor a sitemapindex";
  return { file, urls: [], children: [] };
}

export async function sitemaps(ctx: PluginContext): Promise<unknown> {
  const { limit, follow_index } = ctx.params as { limit: number; follow_index: boolean };
  const origin = originOf(ctx.params.url);
  let declared: string[] = [];
  try {
    const file = await cachedRobots(origin);
    if (file.text) declared = robotsGroups(file.text).sitemaps;
  } catch (e) {
    if (e instanceof SafeFetchError) throw fetchProblem(e);
    throw e;
  }
  const candidates = declared.length ? declared : [`${origin}/sitemap.xml`, `${origin}/sitemap_index.xml`];
  const files: SitemapFile[] = [];
  const urls: { loc: string; lastmod: string | null; changefreq: string | null; priority: number | null; sitemap: string }[] = [];
  const queue = [...new Set(candidates)].slice(0, MAX_CHILD_SITEMAPS);
  const seen = new Set<string>();
  let skipped = 0;
  while (queue.length) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    if (seen.size >= MAX_CHILD_SITEMAPS) {
      skipped++;
      continue;
    }
    seen.add(url);
    const got = await readSitemap(url);
    files.push(got.file);
    for (const u of got.urls) if (urls.length < limit) urls.push({ ...u, sitemap: url });
    // Without a robots.txt declaration, the first conventional location that is a sitemap is enough.
    if (!declared.length && got.file.type) queue.length = 0;
    if (follow_index) queue.push(...got.children);
  }
  for (const f of files) ctx.record({ source: "web", publisher: new URL(f.url).hostname, url: f.url, fetched_at: new Date().toISOString(), cached: false });
  const found = files.filter((f) => f.type);
  return {
    origin,
    declared_in_robots: declared,
    sitemaps_read: files.length,
    sitemaps_not_read: skipped,
    files,
    total_urls_seen: found.reduce((n, f) => n + f.url_count, 0),
    count: urls.length,
    urls,
    note: !found.length ? "No sitemap was found (none declared in robots.txt, none at /sitemap.xml or /sitemap_index.xml)."
      : skipped ? `Only the first ${MAX_CHILD_SITEMAPS} sitemap files are read in one call.` : null,
  };
}

type El = { getAttribute(n: string): string | null; attributes: ArrayLike<{ name: string; value: string }>; textContent: string | null };
type Doc = { querySelector(s: string): El | null; querySelectorAll(s: string): ArrayLike<El>; documentElement: El; title: string; body: El | null };

export async function pageMeta(ctx: PluginContext): Promise<unknown> {
  const page = await fetchPage(ctx, String(ctx.params.url), { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1", maxBytes: 2 * 1024 * 1024, allowErrors: true });
  const { document } = linkedom().parseHTML(page.text()) as unknown as { document: Doc };
  const all = (sel: string) => Array.from(document.querySelectorAll(sel));
  const metaContent = (sel: string) => document.querySelector(sel)?.getAttribute("content")?.trim() || null;
  const abs = (href: string | null) => {
    try {
      return href ? new URL(href.trim(), page.final_url).href : null;
    } catch {
      return null;
    }
  };
  const title = document.querySelector("title")?.textContent?.replace(/\s+/g, " ").trim() || null;
  // A description whose quotes were not escaped splits into stray empty attributes ("common", "sense", …).
  const descEl = document.querySelector('meta[name="description" i]');
  const descBroken = !!descEl && Array.from(descEl.attributes).some((a) => !["name", "content"].includes(a.name.toLowerCase()) && a.value === "");
  const ogDesc = metaContent('meta[property="og:description"]');
  const metaDesc = descEl?.getAttribute("content")?.trim() || null;
  const description = !descBroken && metaDesc ? { text: metaDesc, source: "meta" } : ogDesc ? { text: ogDesc, source: "og:description" } : metaDesc ? { text: metaDesc, source: "meta" } : null;
  const canonicals = [...new Set(all('link[rel="canonical" i]').map((l) => abs(l.getAttribute("href"))).filter(Boolean))] as string[];
  const prefixed = (attr: string, prefix: string) => Object.fromEntries(all(`meta[${attr}^="${prefix}"]`).map((m) => [m.getAttribute(attr)!, m.getAttribute("content")?.trim() ?? ""]));
  const jsonLdTypes = all('script[type="application/ld+json"]').flatMap((s) => {
    try {
      const v = JSON.parse(s.textContent ?? "") as unknown;
      const items = (Array.isArray(v) ? v : [v]).flatMap((o) => (o && typeof o === "object" && Array.isArray((o as Record<string, unknown>)["@graph"]) ? (o as Record<string, unknown[]>)["@graph"] : [o]));
      return items.flatMap((o) => (o && typeof o === "object" ? [(o as Record<string, unknown>)["@type"]].flat() : [])).filter((t) => typeof t === "string") as string[];
    } catch {
      return ["(invalid JSON-LD)"];
    }
  });
  const header = page.headers["x-robots-tag"];
  const text = (document.body?.textContent ?? "").replace(/\s+/g, " ").trim();
  const charsetHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(page.content_type ?? "")?.[1] ?? null;
  return {
    url: page.url,
    final_url: page.final_url,
    status: page.status,
    redirects: page.hops.length - 1,
    content_type: page.content_type,
    title,
    title_length: title ? title.length : 0,
    description: description?.text ?? null,
    description_length: description ? description.text.length : 0,
    description_source: description?.source ?? null,
    description_note: descBroken ? "The meta description is malformed (unescaped quotes cut it short); og:description is shown instead." : null,
    canonical: canonicals[0] ?? null,
    canonicals,
    canonical_conflict: canonicals.length > 1,
    canonical_is_self: canonicals.length ? canonicals[0] === page.final_url : null,
    robots_meta: metaContent('meta[name="robots" i]'),
    x_robots_tag: (Array.isArray(header) ? header.join(", ") : header) || null,
    lang: document.documentElement.getAttribute("lang")?.trim() || null,
    charset: charsetHeader ?? document.querySelector("meta[charset]")?.getAttribute("charset") ?? null,
    hreflang: all('link[rel="alternate" i][hreflang]').map((l) => ({ lang: l.getAttribute("hreflang"), url: abs(l.getAttribute("href")) })),
    open_graph: prefixed("property", "og:"),
    twitter: prefixed("name", "twitter:"),
    json_ld_types: jsonLdTypes,
    h1_count: all("h1").length,
    h1: all("h1").map((h) => h.textContent?.replace(/\s+/g, " ").trim()).filter(Boolean).slice(0, 5),
    word_count: text ? text.split(" ").length : 0,
  };
}

export async function redirects(ctx: PluginContext): Promise<unknown> {
  const maxHops = Number(ctx.params.max_hops);
  let current = String(ctx.params.url);
  const hops: { url: string; status: number; location: string | null; ms: number; method: string; hsts: string | null }[] = [];
  const visited = new Set<string>();
  let loop = false;
  let stopped: string | null = null;
  for (;;) {
    if (visited.has(current)) {
      loop = true;
      break;
    }
    visited.add(current);
    let res: SafeResponse;
    let method = "HEAD";
    try {
      res = await safeFetch(current, { method: "HEAD", followRedirects: false, timeoutMs: 10_000 });
      // Servers that refuse HEAD are asked again with GET.
      if (res.status === 405 || res.status === 501) {
        method = "GET";
        res = await safeFetch(current, { followRedirects: false, timeoutMs: 10_000, maxBytes: 512 * 1024 });
      }
    } catch (e) {
      if (!(e instanceof SafeFetchError)) throw e;
      if (!hops.length) throw fetchProblem(e);
      stopped = `${e.url} ${e.message}`;
      break;
    }
    const h = res.hops[0];
    const hsts = res.headers["strict-transport-security"];
    hops.push({ url: h.url, status: h.status, location: h.location, ms: h.ms, method, hsts: typeof hsts === "string" ? hsts : null });
    if (!h.location) break;
    if (hops.length > maxHops) {
      stopped = `more than ${maxHops} redirects`;
      break;
    }
    current = new URL(h.location, h.url).href;
  }
  ctx.record({ source: "web", publisher: new URL(hops[0].url).hostname, url: hops[0].url, fetched_at: new Date().toISOString(), cached: false });
  const last = hops[hops.length - 1];
  return {
    url: hops[0].url,
    final_url: last.location && (loop || stopped) ? null : last.url,
    final_status: last.location && (loop || stopped) ? null : last.status,
    redirect_count: hops.filter((x) => x.location).length,
    loop,
    stopped,
    https_upgrade: hops[0].url.startsWith("http:") && last.url.startsWith("https:"),
    hsts: [...hops].reverse().find((x) => x.hsts)?.hsts ?? null,
    hops,
    user_agent: userAgent(),
  };
}
