// The one HTTP client for every upstream: named sources, one time budget per call (retries included), bounded
// retries on idempotent failures that honour Retry-After, a per-source rate limit, a size cap on every body,
// redirects only within the source's host, no request built off the source's server (requestUrl), an LRU response
// cache and single-flight. A response that served a call
// which then failed is taken back out of the cache (discard()), so a wrong answer is never served again.
import { LRUCache } from "lru-cache";
import { authFor, credentialState, envQuery, effectiveBaseUrl, missingCredentials, publicBaseUrl, redactSecrets, type Source } from "./sources.ts";
import { OAuth2Tokens } from "./oauth2.ts";
import { parseBodyOffThread, type BodyFormat, type CsvOptions } from "./parse-body.ts";
import { exchange, ExchangeError, formatBytes, USER_AGENT, type Exchange } from "./exchange.ts";
import { UpstreamError, type UpstreamFailure } from "./error.ts";
import { Problem } from "../basics/problem.ts";
import { checkUrl, SafeFetchError } from "./url-gate.ts";
import { unlikeParsed, unlikeRaw, type Expect } from "./real-answer.ts";
import type { Logger } from "../basics/log.ts";
import { SourceLimits, type RateLimit } from "../cluster/source-rate-limits.ts";
import { SharedResponses } from "../cluster/shared-responses.ts";
import type { Cluster } from "../cluster/redis.ts";

export interface UpstreamRequest {
  source: string;
  path: string;
  /** A list value sends the parameter once per item (PageSpeed Insights' repeated category=). */
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  /** GET (default) or POST with a JSON body. */
  method?: "GET" | "POST";
  body?: unknown;
  /** How a POST body is sent: JSON (default), or an HTML form (the body an object of fields). */
  bodyFormat?: "json" | "form";
  format?: BodyFormat;
  csv?: CsvOptions;
  /** How long the parsed response may be reused; 0 = not cached. */
  cacheMs?: number;
  /** Bodies that answer 2xx but mean an error (e.g. an HTML page instead of CSV): UpstreamError "rejected". */
  reject?: RegExp[];
  /**
   * What a real answer looks like (engine/upstream/real-answer.ts: a pattern of the raw body, a test of the parsed one, and the
   * defaults where it says nothing); anything else is an UpstreamError "unexpected", never cached.
   */
  expect?: Expect;
  /**
   * The server to call instead of the source's base URL, for a source whose server is chosen per request
   * (RDAP: the IANA bootstrap file names each registry's). The source still gives headers, rate limit and publisher.
   */
  baseUrl?: string;
}

/** Where an answer came from: it travels with every response. */
export interface Provenance {
  source: string;
  publisher: string;
  url: string;
  fetched_at: string;
  cached: boolean;
}

export interface Fetched extends Provenance {
  status: number;
  body: unknown;
}

const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const RETRY_DELAY_MS = 200;
const DAY_MS = 86_400_000;
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_BUDGET_MS = 15_000;

/** An HTTP date (Expires) as epoch milliseconds, or undefined. */
function httpDate(v: unknown): number | undefined {
  const t = typeof v === "string" ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

/** Retry-After in seconds (delta or HTTP date), or undefined. */
function retryAfterSeconds(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = httpDate(v);
  return at === undefined ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export interface UpstreamOptions {
  timeoutMs: number;
  retries: number;
  cacheMaxEntries: number;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** The whole time one upstream request may take, retries and waits included. */
  budgetMs?: number;
  /** The largest body taken from a source that sets no max_bytes of its own. */
  maxBytes?: number;
  /** REDIS_URL: rate limits, a cache tier and single-flight shared by every instance. */
  cluster?: Cluster;
}


export class UpstreamClient {
  private readonly cache: LRUCache<string, Fetched>;
  private readonly inFlight = new Map<string, Promise<Fetched>>();
  /** For http_cache sources: the last response with a Last-Modified, to revalidate once it has expired. */
  private readonly validated: LRUCache<string, { lastModified: string; fetched: Fetched }>;
  private readonly limits: SourceLimits;
  /** The cache tier and single-flight shared with the other instances (REDIS_URL). */
  private readonly shared?: SharedResponses<Fetched>;
  readonly sources: Map<string, Source>;
  private readonly opts: UpstreamOptions;
  private readonly tokens: OAuth2Tokens;
  /** The cache key of each fresh response, so a failed call can take it back out (discard). */
  private readonly cacheKeyOf = new WeakMap<Fetched, string>();

  constructor(sources: Map<string, Source>, opts: UpstreamOptions) {
    this.sources = sources;
    this.opts = opts;
    this.tokens = new OAuth2Tokens({ timeoutMs: opts.timeoutMs, log: opts.log, env: opts.env ?? process.env });
    this.cache = new LRUCache({ max: opts.cacheMaxEntries, ttlAutopurge: false });
    this.validated = new LRUCache({ max: opts.cacheMaxEntries });
    const limits = new Map<string, RateLimit>();
    for (const s of sources.values()) if (s.rate_limit) limits.set(s.name, s.rate_limit);
    this.limits = new SourceLimits(limits, opts.cluster);
    if (opts.cluster) {
      this.shared = new SharedResponses<Fetched>(opts.cluster, {
        upstreamErrorFields: (e) => (e instanceof UpstreamError ? { ...e, message: e.message } : undefined),
        reviveUpstreamError: (f) => Object.assign(new UpstreamError(f.kind as UpstreamFailure, String(f.source), String(f.url), String(f.message), f.status as number | undefined, f.text as string | undefined), { retryAfter: f.retryAfter, rejectIndex: f.rejectIndex }),
      });
    }
  }

  source(name: string): Source {
    const s = this.sources.get(name);
    if (!s) throw new Error(`unknown upstream source "${name}"`);
    return s;
  }

  /** The URL as it may be shown: the source's public base (never an UPSTREAM_ override), the path and the query, without credentials. */
  publicUrl(req: UpstreamRequest): string {
    return requestUrl(req, publicBaseUrl(this.source(req.source), this.opts.env ?? process.env)).toString();
  }

  /** Forgets cached responses, OAuth2 tokens and this process's rate-limit schedule (an upstream's pause included). */
  clearCache(): void {
    this.cache.clear();
    this.limits.clear();
    this.tokens.clear();
    this.validated.clear();
  }

  /** The whole time one request to the source may take, retries and waits included. */
  private budgetOf(source: Source): number {
    return source.budget_ms ?? this.opts.budgetMs ?? DEFAULT_BUDGET_MS;
  }

  /** The request's cache key: everything that makes two requests the same (credentials excepted). */
  private key(req: UpstreamRequest, publicUrl: string): string {
    return [req.method ?? "GET", req.format ?? "json", publicUrl, JSON.stringify(req.headers ?? {}), req.bodyFormat ?? "json", JSON.stringify(req.body ?? null), JSON.stringify(req.csv ?? {})].join(" ");
  }

  /** The answer to a request, from the cache or the upstream, once it has passed the request's own test of a real answer. */
  async fetch(req: UpstreamRequest): Promise<Fetched> {
    const fetched = await this.fetchOnce(req);
    // Tested here, not where it is fetched: a cached answer is tested by each request that reuses it, by its own test.
    const unlike = await unlikeParsed(fetched.body, req.format ?? "json", req.expect);
    if (!unlike) return fetched;
    this.discard([fetched]);
    throw new UpstreamError("unexpected", req.source, fetched.url, unlike, fetched.status);
  }

  /** The answer from the cache, from a request in flight for the same, or from the upstream. */
  private async fetchOnce(req: UpstreamRequest): Promise<Fetched> {
    const publicUrl = this.publicUrl(req);
    const key = this.key(req, publicUrl);
    const hit = this.cache.get(key);
    if (hit) return { ...hit, cached: true };
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const p = this.fetchShared(req, key).then(({ fetched, ttlMs, lastModified }) => {
      if (ttlMs > 0) this.cache.set(key, fetched, { ttl: ttlMs });
      if (lastModified) this.validated.set(key, { lastModified, fetched });
      this.cacheKeyOf.set(fetched, key);
      return fetched;
    });
    this.inFlight.set(key, p);
    try {
      return await p;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** The shared tier (another instance's fresh response), else one upstream request for all instances asking the same. */
  private async fetchShared(req: UpstreamRequest, key: string): Promise<{ fetched: Fetched; ttlMs: number; lastModified?: string }> {
    const fresh = async () => {
      const { fetched, expiresAt, lastModified } = await this.fetchFresh(req, key);
      // A source with http_cache keeps a response at least until its Expires (at most a day); a 304's reuse is not cached again.
      const ttlMs = fetched.cached ? 0 : Math.max(req.cacheMs ?? 0, expiresAt ? Math.min(expiresAt - Date.now(), DAY_MS) : 0);
      return { fetched, ttlMs, lastModified };
    };
    if (!this.shared) return fresh();
    const hit = await this.shared.get(key);
    if (hit) return { fetched: { ...hit.value, cached: true }, ttlMs: hit.ttlMs };
    let lastModified: string | undefined;
    const deadline = Date.now() + this.budgetOf(this.source(req.source));
    const got = await this.shared.once(key, deadline, async () => {
      const r = await fresh();
      lastModified = r.lastModified;
      return { value: r.fetched, ttlMs: r.ttlMs };
    });
    return { fetched: got.value, ttlMs: got.ttlMs, lastModified };
  }

  /**
   * Forgets responses that served a call which then failed (its transform found the body wrong, or a later step
   * refused it): a wrong answer is never served from the cache. The pipeline calls this on every failure.
   */
  discard(fetched: Iterable<Fetched>): void {
    for (const f of fetched) {
      const key = this.cacheKeyOf.get(f);
      if (key === undefined) continue;
      if (this.cache.peek(key) === f) this.cache.delete(key);
      if (this.validated.peek(key)?.fetched === f) this.validated.delete(key);
      void this.shared?.delete(key);
    }
  }

  private async fetchFresh(req: UpstreamRequest, key: string): Promise<{ fetched: Fetched; expiresAt?: number; lastModified?: string }> {
    const source = this.source(req.source);
    const env = this.opts.env ?? process.env;
    const credential = credentialState(source, env);
    if (credential === "missing") {
      const vars = missingCredentials(source, env);
      throw new Problem({ status: 503, code: "upstream_credentials_missing",
        detail: `The ${source.name} source needs a credential the server does not have: set ${vars.join(" and ")}. The call was not charged.`,
        extra: { upstream: source.name, variables: vars } });
    }
    const publicUrl = this.publicUrl(req);
    const base = new URL(req.baseUrl ?? effectiveBaseUrl(source, env));
    const auth = credential === "set" ? authFor(source, env) : { headers: {}, query: {} };
    const url = requestUrl(req, base.href);
    for (const [k, v] of Object.entries(auth.query)) url.searchParams.set(k, v);
    for (const [k, v] of Object.entries(envQuery(source, env))) url.searchParams.set(k, v);
    const headers: Record<string, string> = {
      "user-agent": env.UPSTREAM_USER_AGENT || USER_AGENT, accept: "*/*", ...lower(source.headers), ...lower(req.headers), ...auth.headers,
      ...(req.method === "POST" ? { "content-type": req.bodyFormat === "form" ? "application/x-www-form-urlencoded" : "application/json" } : {}),
    };
    // An OAuth2 source's bearer token; when the upstream refuses it (401), one more try with a fresh token.
    let token = source.auth?.type === "oauth2" && credential === "set" ? await this.tokens.token(source) : undefined;
    let tokenRetried = false;
    // http_cache: revalidate the last response with If-Modified-Since; a 304 reuses its body.
    const previous = source.http_cache ? this.validated.get(key) : undefined;
    if (previous) headers["if-modified-since"] = previous.lastModified;
    const timeout = source.timeout_ms ?? this.opts.timeoutMs;
    const budget = this.budgetOf(source);
    const maxBytes = source.max_bytes ?? this.opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const started = Date.now();
    const deadline = started + budget;
    const fail = (kind: UpstreamFailure, message: string, status?: number, text?: string) => new UpstreamError(kind, source.name, publicUrl, message, status, text);

    let lastError: UpstreamError | undefined;
    let wait = 0;
    for (let attempt = 0; attempt <= this.opts.retries; attempt++) {
      if (attempt > 0) {
        const delay = wait || RETRY_DELAY_MS * 2 ** (attempt - 1);
        if (Date.now() + delay >= deadline) break;
        await new Promise((r) => setTimeout(r, delay));
      }
      wait = 0;
      // A turn must leave time for the request itself: up to a second (a quarter of a short budget).
      const slot = await this.limits.take(source.name, deadline - Math.min(1_000, budget / 4));
      if (!slot.granted) {
        if (lastError) break;
        const seconds = Math.ceil(slot.waitMs / 1000);
        throw new Problem({ status: 503, code: "upstream_busy", headers: { "retry-after": String(seconds) }, extra: { upstream: source.name },
          detail: `The upstream source ${source.name} can be asked again in ${seconds} s (${source.rate_limit ? `it allows ${source.rate_limit.requests} requests every ${source.rate_limit.per_seconds} s for all callers together, or asked us to wait` : "it asked us to wait"}), beyond this call's time budget. The call was not charged; try again later.` });
      }
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (token) headers.authorization = `Bearer ${token}`;
      const sent = Date.now();
      let res: Exchange;
      try {
        res = await exchange(url, { method: req.method, headers, body: encodeBody(req), timeoutMs: Math.min(timeout, left), maxBytes, base });
      } catch (e) {
        if (!(e instanceof ExchangeError)) throw e;
        if (e.kind === "too_large") throw fail("too_large", e.message);
        if (e.kind === "redirect") throw fail("redirect", e.message);
        lastError = e.kind === "timeout"
          ? fail("timeout", `did not answer within ${Math.min(timeout, left)} ms (${attempt + 1} ${attempt ? "tries" : "try"} in ${((Date.now() - started) / 1000).toFixed(1)} s)`)
          : fail("network", `could not be reached (${redactSecrets(e.message, this.sources.values(), env)})`);
        this.opts.log.warn({ source: source.name, url: url.host + url.pathname, attempt, error: lastError.message }, "upstream failed");
        continue;
      }
      this.opts.log.debug({ source: source.name, url: publicUrl, host: url.host, status: res.status, ms: Date.now() - sent }, "upstream");
      if (res.status === 401 && token && !tokenRetried) {
        tokenRetried = true;
        this.tokens.invalidate(source, token);
        token = await this.tokens.token(source);
        attempt--; // the refused token does not use up a retry
        continue;
      }
      const expiresAt = source.http_cache ? httpDate(res.headers.expires) : undefined;
      if (res.status === 304 && previous) {
        return { fetched: { ...previous.fetched, fetched_at: new Date().toISOString(), cached: true }, expiresAt, lastModified: previous.lastModified };
      }
      const answered = this.publicFinalUrl(source, res.url, url, publicUrl);
      if (res.status >= 300) {
        lastError = fail("status", `answered HTTP ${res.status}`, res.status, res.body.slice(0, 2_000));
        lastError.retryAfter = retryAfterSeconds(res.headers["retry-after"]);
        if (!RETRY_STATUSES.has(res.status)) throw lastError;
        if (lastError.retryAfter !== undefined) {
          if (res.status === 429 || res.status === 503) await this.limits.pause(source.name, lastError.retryAfter * 1000);
          // Honour the upstream's wait when it fits in the budget; otherwise pass it on to the caller now.
          wait = lastError.retryAfter * 1000;
          if (Date.now() + wait >= deadline) break;
        }
        continue;
      }
      const rejected = (req.reject ?? []).findIndex((re) => re.test(res.body));
      if (rejected >= 0) {
        const err = fail("rejected", "answered with an error page", res.status);
        err.rejectIndex = rejected;
        throw err;
      }
      const unlike = unlikeRaw(res.body, req.format ?? "json", req.expect);
      if (unlike) throw fail("unexpected", unlike, res.status, res.body.slice(0, 2_000));
      let body: unknown;
      try {
        body = await parseBodyOffThread(res.body, req.format ?? "json", req.csv);
      } catch (e) {
        throw fail("parse", `sent a body that is not valid ${(req.format ?? "json").toUpperCase()} (${(e as Error).message.slice(0, 120)})`, res.status, res.body.slice(0, 2_000));
      }
      const fetched: Fetched = { source: source.name, publisher: source.publisher, url: answered, fetched_at: new Date().toISOString(), cached: false, status: res.status, body };
      const lastModified = res.headers["last-modified"];
      return { fetched, expiresAt, lastModified: source.http_cache && typeof lastModified === "string" ? lastModified : undefined };
    }
    if (lastError) throw lastError;
    throw fail("timeout", `did not answer within the call's budget of ${(budget / 1000).toFixed(1)} s`);
  }

  /** The URL that answered, as it may be shown: a redirect's target on the public host, never the override's. */
  private publicFinalUrl(source: Source, answered: URL, requested: URL, publicUrl: string): string {
    if (answered.href === requested.href) return publicUrl;
    const pub = new URL(publicUrl);
    const shown = new URL(answered.pathname + answered.search, pub.origin);
    for (const key of [...shown.searchParams.keys()]) if (!pub.searchParams.has(key)) shown.searchParams.delete(key);
    return redactSecrets(shown.toString(), [source], this.opts.env ?? process.env);
  }
}

/**
 * The URL a request goes to: its path under the base URL (the source's, or the request's own baseUrl), then its
 * query. Every request is checked here, whoever built it (a YAML step, a plugin's ctx.fetch), because a path may
 * come from an upstream's answer: "@host:port/x" after "https://api.weather.gov" makes the base a user name and
 * calls that host. The path must start with one "/", and the URL keep the base's scheme, host and port, with no
 * user name; a per-request base (RDAP servers named by the IANA files) must be a public https server (url-gate).
 */
function requestUrl(req: UpstreamRequest, sourceBase: string): URL {
  const base = new URL(req.baseUrl ?? sourceBase);
  const notCalled = (why: string) => new UpstreamError("off_source", req.source, `${base.origin}${req.path}`, `${why}; it was not called`);
  if (req.baseUrl) {
    if (base.protocol !== "https:") throw notCalled(`named a server that is not https (${base.origin})`);
    try {
      checkUrl(base);
    } catch (e) {
      if (e instanceof SafeFetchError) throw notCalled(`named a server that may not be called (${base.origin} ${e.message})`);
      throw e;
    }
  }
  const url = new URL(base.href.replace(/\/$/, "") + req.path);
  // "//host/x" stays on the base's host here, but reads as another host to anything that takes it for a URL.
  const isPath = req.path.startsWith("/") && !req.path.startsWith("//");
  if (!isPath || url.origin !== base.origin || url.username !== base.username || url.password !== base.password) {
    throw notCalled(`was to be asked for "${req.path.slice(0, 120)}", which is not a path on its own server ${base.origin} (a path starts with one "/" and names no other host, port or user)`);
  }
  for (const [k, v] of Object.entries(req.query ?? {})) for (const one of [v].flat()) url.searchParams.append(k, one);
  return url;
}

/** A POST body as sent: JSON, or form fields (an object's members; null and undefined left out). */
function encodeBody(req: UpstreamRequest): string | undefined {
  if (req.body === undefined) return undefined;
  if (req.bodyFormat !== "form") return JSON.stringify(req.body);
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries((req.body ?? {}) as Record<string, unknown>)) if (v !== undefined && v !== null) form.append(k, typeof v === "string" ? v : JSON.stringify(v));
  return form.toString();
}

function lower(h: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
