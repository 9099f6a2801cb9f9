// The one HTTP client for every upstream: named sources, timeouts, bounded retries on idempotent failures,
// a per-source rate limit, an LRU response cache with per-endpoint TTL, and single-flight.
import got from "got";
import { LRUCache } from "lru-cache";
import { authFor, credentialState, effectiveBaseUrl, missingCredentials, redactSecrets, type Source } from "./sources.ts";
import { OAuth2Tokens } from "./oauth2.ts";
import { parseBody, type BodyFormat, type CsvOptions } from "./parse-body.ts";
import { Problem } from "./problem.ts";
import type { Logger } from "./log.ts";

export interface UpstreamRequest {
  source: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  format?: BodyFormat;
  csv?: CsvOptions;
  /** How long the parsed response may be reused; 0 = not cached. */
  cacheMs?: number;
  /** Bodies that answer 2xx but mean an error (e.g. an HTML page instead of CSV): UpstreamError "rejected". */
  reject?: RegExp[];
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

export type UpstreamFailure = "timeout" | "network" | "status" | "parse" | "rejected";

export class UpstreamError extends Error {
  readonly kind: UpstreamFailure;
  readonly source: string;
  readonly url: string;
  readonly status?: number;
  readonly text?: string;
  rejectIndex?: number;
  constructor(kind: UpstreamFailure, source: string, url: string, message: string, status?: number, text?: string) {
    super(message);
    this.kind = kind;
    this.source = source;
    this.url = url;
    this.status = status;
    this.text = text;
  }
}

export const USER_AGENT = "public-data-api/1.1 (+https://github.com/public-data-api; pay-per-call public data for AI agents)";
const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const RETRY_DELAY_MS = 200;
const DAY_MS = 86_400_000;

/** An HTTP date (Expires) as epoch milliseconds, or undefined. */
function httpDate(v: unknown): number | undefined {
  const t = typeof v === "string" ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

class RateLimiter {
  private readonly interval: number;
  private next = 0;
  constructor(requests: number, perSeconds: number) {
    this.interval = (perSeconds * 1000) / requests;
  }
  async take(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.interval;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }
}

export interface UpstreamOptions {
  timeoutMs: number;
  retries: number;
  cacheMaxEntries: number;
  log: Logger;
  env?: NodeJS.ProcessEnv;
}

export class UpstreamClient {
  private readonly cache: LRUCache<string, Fetched>;
  private readonly inFlight = new Map<string, Promise<Fetched>>();
  /** For http_cache sources: the last response with a Last-Modified, to revalidate once it has expired. */
  private readonly validated: LRUCache<string, { lastModified: string; fetched: Fetched }>;
  private readonly limiters = new Map<string, RateLimiter>();
  readonly sources: Map<string, Source>;
  private readonly opts: UpstreamOptions;
  private readonly tokens: OAuth2Tokens;

  constructor(sources: Map<string, Source>, opts: UpstreamOptions) {
    this.sources = sources;
    this.opts = opts;
    this.tokens = new OAuth2Tokens({ timeoutMs: opts.timeoutMs, log: opts.log, env: opts.env ?? process.env });
    this.cache = new LRUCache({ max: opts.cacheMaxEntries, ttlAutopurge: false });
    this.validated = new LRUCache({ max: opts.cacheMaxEntries });
    for (const s of sources.values()) {
      if (s.rate_limit) this.limiters.set(s.name, new RateLimiter(s.rate_limit.requests, s.rate_limit.per_seconds));
    }
  }

  source(name: string): Source {
    const s = this.sources.get(name);
    if (!s) throw new Error(`unknown upstream source "${name}"`);
    return s;
  }

  /** The URL as it may be shown: the source's base, the path and the query, without credentials. */
  publicUrl(req: UpstreamRequest): string {
    const base = req.baseUrl?.replace(/\/$/, "") ?? effectiveBaseUrl(this.source(req.source), this.opts.env ?? process.env);
    const url = new URL(base + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.append(k, v);
    return url.toString();
  }

  /** Forgets cached responses and OAuth2 tokens. */
  clearCache(): void {
    this.cache.clear();
    this.tokens.clear();
    this.validated.clear();
  }

  async fetch(req: UpstreamRequest): Promise<Fetched> {
    const publicUrl = this.publicUrl(req);
    const key = `${req.format ?? "json"} ${publicUrl} ${JSON.stringify(req.headers ?? {})} ${JSON.stringify(req.csv ?? {})}`;
    const hit = this.cache.get(key);
    if (hit) return { ...hit, cached: true };
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const p = this.fetchFresh(req, publicUrl, key).then(({ fetched, expiresAt }) => {
      // A source with http_cache keeps a response at least until its Expires (at most a day).
      const ttl = Math.max(req.cacheMs ?? 0, expiresAt ? Math.min(expiresAt - Date.now(), DAY_MS) : 0);
      if (ttl > 0 && fetched.status < 300) this.cache.set(key, fetched, { ttl });
      return fetched;
    });
    this.inFlight.set(key, p);
    try {
      return await p;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async fetchFresh(req: UpstreamRequest, publicUrl: string, key: string): Promise<{ fetched: Fetched; expiresAt?: number }> {
    const source = this.source(req.source);
    const env = this.opts.env ?? process.env;
    const credential = credentialState(source, env);
    if (credential === "missing") {
      const vars = missingCredentials(source, env);
      throw new Problem({ status: 503, code: "upstream_credentials_missing",
        detail: `The ${source.name} source needs a credential the server does not have: set ${vars.join(" and ")}. The call was not charged.`,
        extra: { upstream: source.name, variables: vars } });
    }
    const auth = credential === "set" ? authFor(source, env) : { headers: {}, query: {} };
    const url = new URL(publicUrl);
    for (const [k, v] of Object.entries(auth.query)) url.searchParams.set(k, v);
    const headers: Record<string, string> = { "user-agent": USER_AGENT, accept: "*/*", ...lower(source.headers), ...lower(req.headers), ...auth.headers };
    // An OAuth2 source's bearer token; when the upstream refuses it (401), one more try with a fresh token.
    let token = source.auth?.type === "oauth2" && credential === "set" ? await this.tokens.token(source) : undefined;
    let tokenRetried = false;
    // http_cache: revalidate the last response with If-Modified-Since; a 304 reuses its body.
    const previous = source.http_cache ? this.validated.get(key) : undefined;
    if (previous) headers["if-modified-since"] = previous.lastModified;
    const timeout = source.timeout_ms ?? this.opts.timeoutMs;

    let lastError: UpstreamError | undefined;
    for (let attempt = 0; attempt <= this.opts.retries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, RETRY_DELAY_MS * 2 ** (attempt - 1)));
      await this.limiters.get(source.name)?.take();
      if (token) headers.authorization = `Bearer ${token}`;
      const started = Date.now();
      try {
        const res = await got(url, { headers, timeout: { request: timeout }, retry: { limit: 0 }, throwHttpErrors: false, responseType: "text" });
        this.opts.log.debug({ source: source.name, url: publicUrl, status: res.statusCode, ms: Date.now() - started }, "upstream");
        if (res.statusCode === 401 && token && !tokenRetried) {
          tokenRetried = true;
          this.tokens.invalidate(source, token);
          token = await this.tokens.token(source);
          attempt--; // the refused token does not use up a retry
          continue;
        }
        const expiresAt = source.http_cache ? httpDate(res.headers.expires) : undefined;
        if (res.statusCode === 304 && previous) {
          return { fetched: { ...previous.fetched, fetched_at: new Date().toISOString(), cached: true }, expiresAt };
        }
        if (res.statusCode >= 300) {
          lastError = new UpstreamError("status", source.name, publicUrl, `answered HTTP ${res.statusCode}`, res.statusCode, res.body.slice(0, 2_000));
          if (RETRY_STATUSES.has(res.statusCode)) continue;
          throw lastError;
        }
        const rejected = (req.reject ?? []).findIndex((re) => re.test(res.body));
        if (rejected >= 0) {
          const err = new UpstreamError("rejected", source.name, publicUrl, "answered with an error page", res.statusCode);
          err.rejectIndex = rejected;
          throw err;
        }
        let body: unknown;
        try {
          body = parseBody(res.body, req.format ?? "json", req.csv);
        } catch (e) {
          throw new UpstreamError("parse", source.name, publicUrl, `sent a body that is not valid ${(req.format ?? "json").toUpperCase()} (${(e as Error).message.slice(0, 120)})`, res.statusCode, res.body.slice(0, 2_000));
        }
        const fetched: Fetched = { source: source.name, publisher: source.publisher, url: publicUrl, fetched_at: new Date().toISOString(), cached: false, status: res.statusCode, body };
        const lastModified = res.headers["last-modified"];
        if (source.http_cache && typeof lastModified === "string") this.validated.set(key, { lastModified, fetched });
        return { fetched, expiresAt };
      } catch (e) {
        if (e instanceof UpstreamError || e instanceof Problem) throw e;
        const err = e as { code?: string; name?: string; message: string };
        const timedOut = err.name === "TimeoutError" || err.code === "ETIMEDOUT";
        lastError = timedOut
          ? new UpstreamError("timeout", source.name, publicUrl, `did not answer within ${timeout} ms`)
          : new UpstreamError("network", source.name, publicUrl, `could not be reached (${err.code ?? redactSecrets(err.message, this.sources.values(), env)})`);
        this.opts.log.warn({ source: source.name, url: publicUrl, attempt, error: lastError.message }, "upstream failed");
      }
    }
    throw lastError!;
  }
}

function lower(h: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
