// OAuth 2.0 client-credentials tokens for the sources whose auth type is oauth2: fetched on first use, cached
// per source, refreshed shortly before they expire, and forgotten when the upstream refuses one (a 401), so the
// upstream client can retry once with a fresh token. Neither the client secret nor a token is ever logged.
import got from "got";
import { UpstreamError } from "./error.ts";
import { USER_AGENT } from "./exchange.ts";
import type { Source } from "./sources.ts";
import { replaying } from "./recordings.ts";
import type { Logger } from "../basics/log.ts";

/** The access token the token service grants for an OAuth2 source's stand-in credentials in examples (and test mode). */
export const standInToken = (source: Source) => `test-${source.name}-token`;

interface Cached {
  token: string;
  /** Epoch ms after which the token is no longer used (a margin before its real expiry). */
  refreshAt: number;
}

/** Tokens without expires_in are assumed to live an hour. */
const DEFAULT_LIFETIME_S = 3600;
/** Refresh this long before expiry, or a tenth of the lifetime for short-lived tokens. */
const MAX_MARGIN_MS = 60_000;

export interface OAuth2Options {
  timeoutMs: number;
  log: Logger;
  env: NodeJS.ProcessEnv;
  /** The clock (tests). */
  now?: () => number;
}

export class OAuth2Tokens {
  private readonly cache = new Map<string, Cached>();
  private readonly pending = new Map<string, Promise<string>>();
  private readonly opts: OAuth2Options;

  constructor(opts: OAuth2Options) {
    this.opts = opts;
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** A valid access token for the source: the cached one, else a new one (one request however many callers wait). */
  async token(source: Source): Promise<string> {
    // A test-mode call's token is the stand-in its example's recordings were written with; none is requested.
    if (replaying()) return standInToken(source);
    const hit = this.cache.get(source.name);
    if (hit && this.now() < hit.refreshAt) return hit.token;
    const pending = this.pending.get(source.name);
    if (pending) return pending;
    const p = this.request(source);
    this.pending.set(source.name, p);
    try {
      return await p;
    } finally {
      this.pending.delete(source.name);
    }
  }

  /** Forgets the source's token (the upstream refused it). */
  invalidate(source: Source, token: string): void {
    if (this.cache.get(source.name)?.token === token) this.cache.delete(source.name);
  }

  clear(): void {
    this.cache.clear();
  }

  private async request(source: Source): Promise<string> {
    const a = source.auth!;
    const url = a.token_url!;
    const form: Record<string, string> = { grant_type: "client_credentials", client_id: this.opts.env[a.env] ?? "", client_secret: this.opts.env[a.secret_env!] ?? "" };
    if (a.scope) form.scope = a.scope;
    const started = this.now();
    let res;
    try {
      res = await got.post(url, {
        form, headers: { "user-agent": USER_AGENT, accept: "application/json" },
        timeout: { request: this.opts.timeoutMs }, retry: { limit: 0 }, throwHttpErrors: false, responseType: "text",
      });
    } catch (e) {
      const err = e as { code?: string; name?: string };
      const timedOut = err.name === "TimeoutError" || err.code === "ETIMEDOUT";
      throw new UpstreamError(timedOut ? "timeout" : "network", source.name, url,
        timedOut ? `token service did not answer within ${this.opts.timeoutMs} ms` : `token service could not be reached (${err.code ?? "connection failed"})`);
    }
    this.opts.log.debug({ source: source.name, url, status: res.statusCode, ms: this.now() - started }, "oauth2 token");
    if (res.statusCode !== 200) {
      // The body is not kept: a token service may echo what it was sent.
      throw new UpstreamError("status", source.name, url, `token service refused the server's client credentials (HTTP ${res.statusCode})`, res.statusCode);
    }
    let body: { access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(res.body);
    } catch {
      throw new UpstreamError("parse", source.name, url, "token service sent a body that is not JSON");
    }
    if (typeof body.access_token !== "string" || !body.access_token) throw new UpstreamError("parse", source.name, url, "token service sent no access_token");
    const lifetimeMs = (typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : Number(body.expires_in) || DEFAULT_LIFETIME_S) * 1000;
    const refreshAt = this.now() + lifetimeMs - Math.min(MAX_MARGIN_MS, lifetimeMs / 10);
    this.cache.set(source.name, { token: body.access_token, refreshAt });
    return body.access_token;
  }
}
