// doi: the endpoints that need more than one registry. A DOI belongs to one registration agency: Crossref
// answers for its own and says 404 for the rest, so Crossref is asked first and DataCite second.
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import { htmlText } from "../../engine/endpoints/transform-helpers.ts";
import type { PluginContext, PluginRequest } from "../../engine/endpoints/plugin.ts";

const DAY_MS = 86_400_000;

/** The DOI as registries key it (no resolver prefix, no spaces), encoded for a path. */
export function doiPath(raw: unknown): string {
  return encodeURIComponent(String(raw).trim().replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, ""));
}

/** The body, or undefined when the upstream answered 404. */
async function unless404(p: Promise<unknown>): Promise<unknown> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) return undefined;
    throw e;
  }
}

function notFound(doi: unknown): Problem {
  return new Problem({ status: 404, code: "not_found", param: "doi", detail: `Neither Crossref nor DataCite has the DOI ${String(doi).trim()}.` });
}

/** work: Crossref's record, else DataCite's, as { agency, record } for the endpoint's transform. */
export async function work(ctx: PluginContext): Promise<unknown> {
  const doi = doiPath(ctx.params.doi);
  const crossref = await unless404(ctx.fetch({ source: "crossref", path: `/works/${doi}`, cacheMs: DAY_MS, expect: { test: "$exists(message.DOI)" } }));
  if (crossref !== undefined) return { agency: "crossref", record: crossref };
  const datacite = await unless404(ctx.fetch({ source: "datacite", path: `/dois/${doi}`, cacheMs: DAY_MS, expect: { test: "$exists(data.attributes.doi)" } }));
  if (datacite !== undefined) return { agency: "datacite", record: datacite };
  throw notFound(ctx.params.doi);
}

const MIME: Record<string, string> = {
  bibtex: "application/x-bibtex",
  ris: "application/x-research-info-systems",
  "csl-json": "application/vnd.citationstyles.csl+json",
};

/** What a citation service's answer in each format looks like; anything else (an error page, JSON) is not a citation. */
const CITATION: Record<string, PluginRequest["expect"]> = {
  // One line of text: not JSON, not several lines (CSV), not an XML or HTML document. A title may open with <i>.
  text: { match: /^(?!\s*(?:[[{"]|<[?!]|<html|null\s*$))[^\n]*\S[^\n]*\n?$/i },
  bibtex: { match: /^\s*@[a-z]+\s*\{[\s\S]*\}\s*$/i },
  ris: { match: /^\s*TY {2}- [\s\S]*\nER {2}-/ },
  "csl-json": { test: "$exists(type) and $exists(DOI)" },
};

/**
 * cite: the formatted citation by content negotiation, from Crossref's transform service for its DOIs and from
 * DataCite's (data.crosscite.org) for the others. DataCite's "text" citations carry HTML (&amp;, <i>): made plain.
 */
export async function cite(ctx: PluginContext): Promise<unknown> {
  const { format, style, locale } = ctx.params as { format: string; style: string; locale: string };
  const doi = doiPath(ctx.params.doi);
  const accept = format === "text" ? `text/x-bibliography; style=${style}; locale=${locale}` : MIME[format];
  const ask = (source: string, path: string) =>
    unless404(ctx.fetch({ source, path, headers: { accept }, format: format === "csl-json" ? "json" : "text", cacheMs: DAY_MS, expect: CITATION[format] }));
  let agency = "crossref";
  let body = await ask("crossref", `/works/${doi}/transform`);
  if (body === undefined) {
    agency = "datacite";
    body = await ask("crosscite", `/${doi}`);
  }
  if (body === undefined) throw notFound(ctx.params.doi);
  const citation = format === "csl-json" ? body : format === "text" ? htmlText(String(body).trim()) : String(body).trim();
  if (!citation) throw new Problem({ status: 502, code: "upstream_bad_response", detail: "The citation service answered an empty citation. The call was not charged." });
  return {
    doi: decodeURIComponent(doi),
    agency,
    format,
    style: format === "text" ? style : null,
    locale: format === "text" ? locale : null,
    mime_type: format === "text" ? "text/plain" : MIME[format],
    citation,
  };
}
