// The named upstream sources of sources.yaml, with UPSTREAM_<NAME> base-URL overrides and auth from env.
import fs from "node:fs";
import YAML from "yaml";

export interface SourceSpec {
  base_url: string;
  publisher: string;
  docs?: string;
  headers?: Record<string, string>;
  auth?: { type: "basic" | "bearer" | "header" | "query"; env: string; name?: string; optional?: boolean };
  rate_limit?: { requests: number; per_seconds: number };
  timeout_ms?: number;
  /** Honour the upstream's HTTP caching: keep a response until its Expires, revalidate with If-Modified-Since. */
  http_cache?: boolean;
}

export interface Source extends SourceSpec {
  name: string;
  /** The variable that overrides base_url. */
  envVar: string;
}

export const sourceEnvVar = (name: string) => `UPSTREAM_${name.toUpperCase().replace(/-/g, "_")}`;

export function readSources(file: string, env: NodeJS.ProcessEnv = process.env): Map<string, Source> {
  const raw = YAML.parse(fs.readFileSync(file, "utf8")) as Record<string, SourceSpec>;
  const out = new Map<string, Source>();
  for (const [name, spec] of Object.entries(raw)) {
    const envVar = sourceEnvVar(name);
    out.set(name, { ...spec, name, envVar, base_url: (env[envVar] || spec.base_url).replace(/\/$/, "") });
  }
  return out;
}

/** Headers and query parameters that carry the source's credentials; they never appear in a logged URL. */
export function authFor(source: Source, env: NodeJS.ProcessEnv = process.env): { headers: Record<string, string>; query: Record<string, string> } {
  const a = source.auth;
  if (!a) return { headers: {}, query: {} };
  const secret = env[a.env];
  if (!secret) return { headers: {}, query: {} };
  switch (a.type) {
    case "basic": return { headers: { authorization: `Basic ${Buffer.from(`${secret}:`).toString("base64")}` }, query: {} };
    case "bearer": return { headers: { authorization: `Bearer ${secret}` }, query: {} };
    case "header": return { headers: { [a.name ?? "x-api-key"]: secret }, query: {} };
    case "query": return { headers: {}, query: { [a.name ?? "api_key"]: secret } };
  }
}
