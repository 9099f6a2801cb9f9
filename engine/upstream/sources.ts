// The named upstream sources of sources.yaml, with UPSTREAM_<NAME> base-URL overrides and auth from env.
import fs from "node:fs";
import YAML from "yaml";

export interface AuthSpec {
  type: "basic" | "bearer" | "header" | "query" | "oauth2";
  /** The variable holding the credential (for oauth2: the client id). */
  env: string;
  name?: string;
  optional?: boolean;
  /** oauth2: the variable holding the client secret. */
  secret_env?: string;
  /** oauth2: where the client-credentials token is requested. */
  token_url?: string;
  scope?: string;
  /** A variable read when `env` is unset (e.g. SEC_USER_AGENT falls back to the project-wide UPSTREAM_USER_AGENT). */
  fallback_env?: string;
  /** Without the credential, call this base URL (a public host of the same API) anonymously instead. */
  fallback_base_url?: string;
  /**
   * One more credential the upstream wants in a header besides the main one (e.g. an OAuth2 API that also asks for
   * an `x-api-key`): required with it, sent with every request.
   */
  key_header?: { name: string; env: string };
}

export interface SourceSpec {
  base_url: string;
  publisher: string;
  docs?: string;
  headers?: Record<string, string>;
  auth?: AuthSpec;
  rate_limit?: { requests: number; per_seconds: number };
  timeout_ms?: number;
  /** The largest body taken from this source (default 10 MB, UPSTREAM_MAX_BYTES). */
  max_bytes?: number;
  /** The whole time one request to this source may take, retries included (default UPSTREAM_BUDGET_MS), for slow upstreams such as PageSpeed Insights. */
  budget_ms?: number;
  /** Honour the upstream's HTTP caching: keep a response until its Expires, revalidate with If-Modified-Since. */
  http_cache?: boolean;
  /** Query parameters read from the environment (contact details an upstream asks for, e.g. Crossref's mailto): sent when set or defaulted, never shown in answers. */
  query_env?: Record<string, { env: string; default?: string }>;
}

export interface Source extends SourceSpec {
  name: string;
  /** The variable that overrides base_url. */
  envVar: string;
  /** base_url as sources.yaml declares it: what answers show, whatever UPSTREAM_<NAME> says. */
  public_base_url: string;
  /** UPSTREAM_<NAME> is set: requests go there, even while a credential with a public fallback host is unset. */
  overridden?: boolean;
}

export const sourceEnvVar = (name: string) => `UPSTREAM_${name.toUpperCase().replace(/-/g, "_")}`;

/**
 * The sources of sources.yaml. UPSTREAM_<NAME> replaces a source's base URL; UPSTREAM_<NAME>_TOKEN_URL replaces
 * an OAuth2 source's token_url (a sandbox's token service, or a test double's).
 */
export function readSources(file: string, env: NodeJS.ProcessEnv = process.env): Map<string, Source> {
  const raw = YAML.parse(fs.readFileSync(file, "utf8")) as Record<string, SourceSpec>;
  const out = new Map<string, Source>();
  for (const [name, spec] of Object.entries(raw)) {
    const envVar = sourceEnvVar(name);
    const tokenUrl = spec.auth?.token_url && env[`${envVar}_TOKEN_URL`];
    out.set(name, {
      ...spec, name, envVar, base_url: (env[envVar] || spec.base_url).replace(/\/$/, ""), public_base_url: spec.base_url.replace(/\/$/, ""),
      overridden: Boolean(env[envVar]), ...(tokenUrl ? { auth: { ...spec.auth!, token_url: tokenUrl } } : {}),
    });
  }
  return out;
}

/** Every environment variable the source's credential is read from. */
export function credentialVars(source: Source): string[] {
  const a = source.auth;
  if (!a) return [];
  return [a.env, ...(a.secret_env ? [a.secret_env] : []), ...(a.key_header ? [a.key_header.env] : [])];
}

/** A credential variable's value, or its fallback variable's. */
export function credentialValue(source: Source, variable: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[variable] || (variable === source.auth?.env && source.auth.fallback_env ? env[source.auth.fallback_env] : undefined) || undefined;
}

/** The credential variables that are unset (all of them must be set for the credential to be used). */
export function missingCredentials(source: Source, env: NodeJS.ProcessEnv = process.env): string[] {
  return credentialVars(source).filter((v) => !credentialValue(source, v, env));
}

/**
 * What the server does about the source's credential: "set" (sent), "missing" (a required credential is unset:
 * calls answer 503), "fallback" (unset: calls go anonymously to the public host), "anonymous" (optional, unset).
 */
export function credentialState(source: Source, env: NodeJS.ProcessEnv = process.env): "none" | "set" | "missing" | "fallback" | "anonymous" {
  if (!source.auth) return "none";
  if (!missingCredentials(source, env).length) return "set";
  if (source.auth.fallback_base_url) return "fallback";
  return source.auth.optional ? "anonymous" : "missing";
}

/** The base URL requests go to: UPSTREAM_<NAME> when set, else the public fallback host while the credential is unset. */
export function effectiveBaseUrl(source: Source, env: NodeJS.ProcessEnv = process.env): string {
  return credentialState(source, env) === "fallback" && !source.overridden ? source.auth!.fallback_base_url!.replace(/\/$/, "") : source.base_url;
}

/** The base URL answers show: the declared one (or the public fallback host), never an override's. */
export function publicBaseUrl(source: Source, env: NodeJS.ProcessEnv = process.env): string {
  return credentialState(source, env) === "fallback" ? source.auth!.fallback_base_url!.replace(/\/$/, "") : source.public_base_url;
}

/**
 * Headers and query parameters that carry the source's static credentials; they never appear in a logged URL.
 * An oauth2 source's bearer token is fetched by the upstream client (engine/upstream/oauth2.ts), not here.
 */
export function authFor(source: Source, env: NodeJS.ProcessEnv = process.env): { headers: Record<string, string>; query: Record<string, string> } {
  const a = source.auth;
  if (!a) return { headers: {}, query: {} };
  const secret = credentialValue(source, a.env, env);
  if (!secret) return { headers: {}, query: {} };
  const key = a.key_header && env[a.key_header.env] ? { [a.key_header.name.toLowerCase()]: env[a.key_header.env]! } : {};
  switch (a.type) {
    case "basic": return { headers: { authorization: `Basic ${Buffer.from(`${secret}:`).toString("base64")}`, ...key }, query: {} };
    case "bearer": return { headers: { authorization: `Bearer ${secret}`, ...key }, query: {} };
    case "header": return { headers: { [a.name ?? "x-api-key"]: secret, ...key }, query: {} };
    case "query": return { headers: key, query: { [a.name ?? "api_key"]: secret } };
    case "oauth2": return { headers: key, query: {} };
  }
}

/** The source's query_env parameters that have a value (the variable's, else the default). */
export function envQuery(source: Source, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, q] of Object.entries(source.query_env ?? {})) {
    const v = env[q.env] || q.default;
    if (v) out[name] = v;
  }
  return out;
}

/** Replaces every credential value of every source in a text (an error message that may quote a request). */
export function redactSecrets(text: string, sources: Iterable<Source>, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  for (const s of sources) {
    for (const v of credentialVars(s)) {
      const secret = env[v];
      if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]").split(encodeURIComponent(secret)).join("[redacted]");
    }
  }
  return out;
}
