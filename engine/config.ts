// Configuration from the environment, read once. Everything has a working default for `npm start`.
import path from "node:path";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  databaseUrl?: string;
  logLevel: string;
  upstreamTimeoutMs: number;
  upstreamRetries: number;
  cacheMaxEntries: number;
  endpointsDir: string;
  rootDir: string;
}

const ROOT = path.resolve(import.meta.dirname, "..");

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = Number(env.PORT ?? 8080);
  return {
    port,
    host: env.HOST ?? "0.0.0.0",
    dataDir: path.resolve(env.DATA_DIR ?? path.join(ROOT, "data")),
    baseUrl: (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, ""),
    databaseUrl: env.DATABASE_URL || undefined,
    logLevel: env.LOG_LEVEL ?? "info",
    upstreamTimeoutMs: Number(env.UPSTREAM_TIMEOUT_MS ?? 10_000),
    upstreamRetries: Number(env.UPSTREAM_RETRIES ?? 2),
    cacheMaxEntries: Number(env.CACHE_MAX_ENTRIES ?? 5_000),
    endpointsDir: path.join(ROOT, "endpoints"),
    rootDir: ROOT,
    ...overrides,
  };
}
