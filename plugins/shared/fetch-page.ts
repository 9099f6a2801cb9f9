// A caller's URL fetched for an endpoint (web-reader, seo-tools): safeFetch's refusals become problems that
// name the `url` parameter, and the page is recorded as the answer's source.
import { Problem } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { decodeBody, safeFetch, SafeFetchError, type SafeFetchOptions, type SafeResponse } from "./safe-fetch.ts";

export interface Page extends SafeResponse {
  content_type: string | null;
  /** The body decoded with its declared charset (HTTP header, BOM, then <meta charset>). */
  text(): string;
}

/** What a refusal or failure of the fetcher means to the caller. */
export function fetchProblem(e: SafeFetchError, param = "url"): Problem {
  switch (e.kind) {
    case "invalid_url":
      return new Problem({ status: 400, code: "invalid_parameter", param, detail: `The URL ${e.url} ${e.message}.` });
    case "blocked_address":
      return new Problem({ status: 400, code: "invalid_parameter", param, detail: `The URL ${e.url} ${e.message}: only public addresses are fetched.` });
    case "robots_disallowed":
      return new Problem({ status: 403, code: "robots_disallowed", param, detail: `The URL ${e.url} ${e.message}. The call was not charged.` });
    case "too_large":
      return new Problem({ status: 502, code: "upstream_too_large", detail: `The page ${e.url} ${e.message}, more than this endpoint reads. The call was not charged.` });
    case "timeout":
      return new Problem({ status: 504, code: "upstream_timeout", detail: `The site ${e.url} ${e.message}. The call was not charged.` });
    case "too_many_redirects":
      return new Problem({ status: 502, code: "upstream_bad_response", detail: `The URL ${e.url} ${e.message}. The call was not charged.` });
    case "network":
      return new Problem({ status: 502, code: "upstream_error", detail: `The URL ${e.url} ${e.message}. The call was not charged.` });
  }
}

/**
 * Fetches the page at the caller's URL. An HTTP error status of the page itself is a 404 (404, 410) or a 502
 * (anything else) unless `allowErrors` is set (seo-tools report statuses rather than fail on them).
 */
export async function fetchPage(ctx: PluginContext, url: string, opts: SafeFetchOptions & { allowErrors?: boolean } = {}): Promise<Page> {
  let res: SafeResponse;
  try {
    res = await safeFetch(url, opts);
  } catch (e) {
    if (e instanceof SafeFetchError) throw fetchProblem(e);
    throw e;
  }
  ctx.recordAnswer({ source: "web", publisher: new URL(res.final_url).hostname, url: res.final_url, fetched_at: new Date().toISOString(), cached: false });
  if (!opts.allowErrors && res.status >= 400) {
    if (res.status === 404 || res.status === 410) throw new Problem({ status: 404, code: "not_found", param: "url", detail: `The page ${res.final_url} answered HTTP ${res.status}.` });
    throw new Problem({ status: 502, code: "upstream_error", detail: `The page ${res.final_url} answered HTTP ${res.status}. The call was not charged.` });
  }
  const type = res.headers["content-type"];
  const contentType = typeof type === "string" ? type : null;
  return { ...res, content_type: contentType, text: () => decodeBody(res.body, contentType ?? undefined) };
}
