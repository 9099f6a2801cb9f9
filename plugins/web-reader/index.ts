// web-reader: a page named by the caller, fetched through the shared safe fetcher (plugins/shared/safe-fetch.ts:
// public addresses only, robots.txt honoured, size and time capped), read with Mozilla's Readability on a
// linkedom document (no scripts run), and given back as Markdown, text or cleaned HTML; its links; or a PDF's
// text with unpdf.
import type TurndownService from "turndown";
import { lazy } from "../shared/lazy.ts";
import { Problem } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { fetchPage, type Page } from "../shared/fetch-page.ts";

const linkedom = lazy<typeof import("linkedom")>("linkedom");
const readability = lazy<typeof import("@mozilla/readability")>("@mozilla/readability");
const parseHTML = (html: string) => linkedom().parseHTML(html);

const HTML_MAX_BYTES = 2 * 1024 * 1024;
const PDF_MAX_BYTES = 10 * 1024 * 1024;
const PDF_TIMEOUT_MS = 10_000;
const HTML_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1";

// linkedom's DOM is typed loosely here: the project compiles without the DOM library.
type El = {
  getAttribute(n: string): string | null; setAttribute(n: string, v: string): void; removeAttribute(n: string): void;
  attributes: ArrayLike<{ name: string; value: string }>; textContent: string | null; tagName: string;
  querySelectorAll(s: string): ArrayLike<El>; querySelector(s: string): El | null; innerHTML: string; remove(): void;
};
type Doc = El & { documentElement: El; body: El | null; title: string };

interface Loaded {
  page: Page;
  document: Doc;
}

async function loadHtml(ctx: PluginContext): Promise<Loaded> {
  const page = await fetchPage(ctx, String(ctx.params.url), { accept: HTML_ACCEPT, maxBytes: HTML_MAX_BYTES });
  const type = (page.content_type ?? "").toLowerCase();
  if (type.includes("application/pdf") || page.body.subarray(0, 5).toString("latin1") === "%PDF-") {
    throw new Problem({ status: 400, code: "invalid_parameter", param: "url", detail: `${page.final_url} is a PDF: read it with web-reader pdf. The call was not charged.` });
  }
  if (type && !/html|xml|text\/plain/.test(type)) {
    throw new Problem({ status: 400, code: "invalid_parameter", param: "url", detail: `${page.final_url} is ${type.split(";")[0]}, not a web page. The call was not charged.` });
  }
  const { document } = parseHTML(page.text()) as unknown as { document: Doc };
  return { page, document };
}

const absolute = (href: string | null, base: string): string | null => {
  if (!href) return null;
  try {
    const u = new URL(href.trim(), base);
    return u.protocol === "http:" || u.protocol === "https:" || u.protocol === "mailto:" ? u.href : null;
  } catch {
    return null;
  }
};

const meta = (doc: Doc, ...keys: string[]): string | null => {
  for (const k of keys) {
    const v = doc.querySelector(`meta[property="${k}"], meta[name="${k}"]`)?.getAttribute("content")?.trim();
    if (v) return v;
  }
  return null;
};

/** JSON-LD objects of the page (each @graph flattened). */
function jsonLd(doc: Doc): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const s of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    try {
      const v = JSON.parse(s.textContent ?? "") as unknown;
      for (const item of Array.isArray(v) ? v : [v]) {
        if (item && typeof item === "object") {
          const graph = (item as Record<string, unknown>)["@graph"];
          out.push(...(Array.isArray(graph) ? graph : [item]) as Record<string, unknown>[]);
        }
      }
    } catch { /* a broken block is skipped */ }
  }
  return out;
}

/** What the page's head says, read before Readability (which changes the document). */
function headFacts(doc: Doc, base: string) {
  const ld = jsonLd(doc);
  const ldString = (key: string) => ld.map((o) => o[key]).find((v) => typeof v === "string") as string | undefined;
  const image = meta(doc, "og:image", "twitter:image") ?? (ld.map((o) => o.image).find((v) => typeof v === "string") as string | undefined) ?? null;
  return {
    title: meta(doc, "og:title") ?? (doc.title?.trim() || null),
    description: meta(doc, "description", "og:description", "twitter:description"),
    site_name: meta(doc, "og:site_name", "application-name"),
    published_time: meta(doc, "article:published_time") ?? ldString("datePublished") ?? doc.querySelector("time[datetime]")?.getAttribute("datetime") ?? null,
    modified_time: meta(doc, "article:modified_time") ?? ldString("dateModified") ?? null,
    author: meta(doc, "author", "article:author"),
    lang: doc.documentElement.getAttribute("lang")?.trim() || null,
    canonical: absolute(doc.querySelector('link[rel="canonical"]')?.getAttribute("href") ?? null, base),
    lead_image: absolute(image, base),
    type: meta(doc, "og:type"),
  };
}

/** Readability's article, or null when it finds none. */
function readArticle(doc: Doc) {
  const { Readability, isProbablyReaderable } = readability();
  const readerable = isProbablyReaderable(doc as never);
  const article = new Readability(doc as never, { charThreshold: 200 }).parse();
  return { readerable, article };
}

/** Article HTML with absolute links and images, and no scripting left in attributes. */
function cleanContent(html: string, base: string): string {
  const { document } = parseHTML(`<!doctype html><html><body><div id="x">${html}</div></body></html>`) as unknown as { document: Doc };
  const root = document.querySelector("#x")!;
  for (const el of Array.from(root.querySelectorAll("*"))) {
    for (const a of Array.from(el.attributes).map((x) => x.name)) if (/^on/i.test(a) || a === "style") el.removeAttribute(a);
  }
  for (const a of Array.from(root.querySelectorAll("a[href]"))) {
    const href = absolute(a.getAttribute("href"), base);
    if (href) a.setAttribute("href", href);
    else a.removeAttribute("href");
  }
  for (const img of Array.from(root.querySelectorAll("img"))) {
    const src = absolute(img.getAttribute("src") ?? img.getAttribute("data-src"), base);
    if (src && !src.startsWith("mailto:")) img.setAttribute("src", src);
    else img.remove();
    img.removeAttribute("srcset");
  }
  return root.innerHTML;
}

const collapse = (t: string) => t.split("\n").map((l) => l.replace(/[ \t\u00a0]+/g, " ").trim()).join("\n").replace(/\n{3,}/g, "\n\n").trim();

let markdown: TurndownService | undefined;
const turndown = () => (markdown ??= new (lazy<typeof TurndownService>("turndown")())({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" }));

function truncate(text: string, max: number): { content: string; truncated: boolean } {
  if (text.length <= max) return { content: text, truncated: false };
  const cut = text.slice(0, max);
  const at = Math.max(cut.lastIndexOf("\n\n"), cut.lastIndexOf(". "));
  return { content: (at > max * 0.8 ? cut.slice(0, at + 1) : cut).trimEnd(), truncated: true };
}

function robotsTag(page: Page): string | null {
  const v = page.headers["x-robots-tag"];
  return (Array.isArray(v) ? v.join(", ") : v) || null;
}

export async function read(ctx: PluginContext): Promise<unknown> {
  const { format, max_chars } = ctx.params as { format: "markdown" | "text" | "html"; max_chars: number };
  const { page, document } = await loadHtml(ctx);
  const head = headFacts(document, page.final_url);
  const { readerable, article } = readArticle(document);
  const html = cleanContent(article?.content ?? document.body?.innerHTML ?? "", page.final_url);
  const text = collapse(article?.textContent ?? document.body?.textContent ?? "");
  const body = format === "html" ? html : format === "text" ? text : collapse(turndown().turndown(html));
  const { content, truncated } = truncate(body, max_chars);
  const words = text ? text.split(/\s+/).filter(Boolean).length : 0;
  const { modified_time: _m, ...facts } = pageFacts(page, head, readerable, article);
  return {
    ...facts,
    lead_image: head.lead_image,
    format,
    content,
    content_chars: content.length,
    truncated,
    word_count: words,
    x_robots_tag: robotsTag(page),
    note: !readerable
      ? "This page does not look like an article (a listing, an app, or a page built by JavaScript, which is not run): the content may be navigation or empty."
      : null,
  };
}

/** What read and extract both say of a page: where it came from and what the article and its head say of it. */
function pageFacts(page: { url: string; final_url: string; status: number }, head: ReturnType<typeof headFacts>, readerable: boolean, article: ReturnType<typeof readArticle>["article"]) {
  return {
    url: page.url,
    final_url: page.final_url,
    status: page.status,
    readerable,
    title: article?.title?.trim() || head.title,
    byline: article?.byline?.trim() || head.author,
    site_name: article?.siteName?.trim() || head.site_name,
    published_time: article?.publishedTime || head.published_time,
    modified_time: head.modified_time,
    lang: article?.lang || head.lang,
    excerpt: article?.excerpt?.trim() || head.description,
  };
}

export async function extract(ctx: PluginContext): Promise<unknown> {
  const { page, document } = await loadHtml(ctx);
  const head = headFacts(document, page.final_url);
  const { readerable, article } = readArticle(document);
  return {
    ...pageFacts(page, head, readerable, article),
    description: head.description,
    canonical: head.canonical,
    lead_image: head.lead_image,
    og_type: head.type,
    word_count: article?.textContent ? collapse(article.textContent).split(/\s+/).filter(Boolean).length : null,
    x_robots_tag: robotsTag(page),
  };
}

const bareHost = (h: string) => h.toLowerCase().replace(/^www\./, "");

export async function links(ctx: PluginContext): Promise<unknown> {
  const { scope, limit } = ctx.params as { scope: "all" | "internal" | "external"; limit: number };
  const { page, document } = await loadHtml(ctx);
  const base = document.querySelector("base[href]")?.getAttribute("href");
  const baseUrl = absolute(base ?? null, page.final_url) ?? page.final_url;
  const host = bareHost(new URL(page.final_url).hostname);
  const anchors = Array.from(document.querySelectorAll("a[href]")).map((a) => ({
    url: absolute(a.getAttribute("href"), baseUrl),
    text: collapse(a.textContent ?? "").slice(0, 200) || a.querySelector("img[alt]")?.getAttribute("alt")?.trim() || null,
    rel: (a.getAttribute("rel") ?? "").toLowerCase().split(/\s+/).filter(Boolean),
  }));
  // Which links sit in the main content: those Readability keeps in the article.
  const { article } = readArticle(document);
  const main = new Set<string>();
  if (article?.content) {
    const { document: c } = parseHTML(`<div>${article.content}</div>`) as unknown as { document: Doc };
    for (const a of Array.from(c.querySelectorAll("a[href]"))) {
      const u = absolute(a.getAttribute("href"), baseUrl);
      if (u) main.add(u);
    }
  }
  const seen = new Map<string, { url: string; text: string | null; rel: string[]; nofollow: boolean; sponsored: boolean; ugc: boolean; internal: boolean; in_main_content: boolean; occurrences: number }>();
  for (const a of anchors) {
    if (!a.url || a.url.startsWith("mailto:")) continue;
    const u = new URL(a.url);
    u.hash = "";
    const key = u.href;
    const prev = seen.get(key);
    if (prev) {
      prev.occurrences++;
      if (!prev.text && a.text) prev.text = a.text;
      continue;
    }
    const internal = bareHost(u.hostname) === host;
    seen.set(key, {
      url: key, text: a.text, rel: a.rel,
      nofollow: a.rel.includes("nofollow"), sponsored: a.rel.includes("sponsored"), ugc: a.rel.includes("ugc"),
      internal, in_main_content: main.has(a.url) || main.has(key), occurrences: 1,
    });
  }
  const all = [...seen.values()];
  const chosen = all.filter((l) => scope === "all" || (scope === "internal") === l.internal);
  const items = chosen.slice(0, limit);
  return {
    url: page.url,
    final_url: page.final_url,
    query: { scope, limit },
    total: chosen.length,
    count: items.length,
    internal_count: all.filter((l) => l.internal).length,
    external_count: all.filter((l) => !l.internal).length,
    links: items,
    note: items.length ? null : "The page has no http(s) links in its HTML (links added by JavaScript are not seen).",
  };
}

const pdfDate = (v: unknown): string | null => {
  if (v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString();
  const m = typeof v === "string" ? /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?/.exec(v) : null;
  if (!m) return null;
  return `${m[1]}-${m[2] ?? "01"}-${m[3] ?? "01"}T${m[4] ?? "00"}:${m[5] ?? "00"}:${m[6] ?? "00"}Z`;
};

export async function pdf(ctx: PluginContext): Promise<unknown> {
  const { max_pages, max_chars } = ctx.params as { max_pages: number; max_chars: number };
  const page = await fetchPage(ctx, String(ctx.params.url), { accept: "application/pdf", maxBytes: PDF_MAX_BYTES, timeoutMs: 15_000 });
  if (!page.body.subarray(0, 1024).toString("latin1").includes("%PDF-")) {
    throw new Problem({ status: 400, code: "invalid_parameter", param: "url", detail: `${page.final_url} is not a PDF (${(page.content_type ?? "no content type").split(";")[0]}); read web pages with web-reader read. The call was not charged.` });
  }
  let timer: NodeJS.Timeout | undefined;
  const work = (async () => {
    const { extractText, getDocumentProxy, getMeta } = await import("unpdf");
    const doc = await getDocumentProxy(new Uint8Array(page.body));
    const { info } = await getMeta(doc);
    const { totalPages, text } = await extractText(doc, { mergePages: false });
    return { info, totalPages, text };
  })();
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Problem({ status: 504, code: "upstream_timeout", detail: `Reading the PDF took longer than ${PDF_TIMEOUT_MS / 1000} s. The call was not charged.` })), PDF_TIMEOUT_MS);
  });
  let parsed: Awaited<typeof work>;
  try {
    parsed = await Promise.race([work, timeout]);
  } catch (e) {
    if (e instanceof Problem) throw e;
    throw new Problem({ status: 502, code: "upstream_bad_response", detail: `${page.final_url} could not be read as a PDF (${(e as Error).message.slice(0, 120)}). The call was not charged.` });
  } finally {
    clearTimeout(timer);
  }
  const info = parsed.info as Record<string, unknown>;
  const str = (k: string) => (typeof info[k] === "string" && (info[k] as string).trim() ? (info[k] as string).trim() : null);
  let left = max_chars;
  let truncated = parsed.totalPages > max_pages;
  const pages = parsed.text.slice(0, max_pages).map((t, i) => {
    const clean = collapse(t);
    const taken = clean.slice(0, Math.max(0, left));
    if (taken.length < clean.length) truncated = true;
    left -= taken.length;
    return { page: i + 1, text: taken, chars: clean.length };
  });
  const textChars = parsed.text.reduce((n, t) => n + collapse(t).length, 0);
  return {
    url: page.url,
    final_url: page.final_url,
    page_count: parsed.totalPages,
    pages_returned: pages.length,
    title: str("Title"),
    author: str("Author"),
    subject: str("Subject"),
    keywords: str("Keywords"),
    creator: str("Creator"),
    producer: str("Producer"),
    created_at: pdfDate(info.CreationDate),
    modified_at: pdfDate(info.ModDate),
    text_chars: textChars,
    truncated,
    pages,
    note: textChars === 0 ? "The PDF has no text layer (a scanned document?); there is no OCR." : null,
  };
}
