// Configuration from the environment, read once. Everything has a working default for `npm start`.
import path from "node:path";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  databaseUrl?: string;
  /** Several instances act as one toward upstreams: shared rate limits, response cache, single-flight, dataset downloads. */
  redisUrl?: string;
  /** Prefix of every Redis key, so that several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  logLevel: string;
  upstreamTimeoutMs: number;
  upstreamRetries: number;
  /** The whole time one upstream request may take, retries and waits included. */
  upstreamBudgetMs: number;
  /** The largest upstream body taken (a source may set its own max_bytes). */
  upstreamMaxBytes: number;
  cacheMaxEntries: number;
  /** On stop, how long the calls in flight may take to finish before their connections are cut. */
  shutdownGraceMs: number;
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
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_PREFIX || "pda:",
    logLevel: env.LOG_LEVEL ?? "info",
    upstreamTimeoutMs: Number(env.UPSTREAM_TIMEOUT_MS ?? 10_000),
    upstreamRetries: Number(env.UPSTREAM_RETRIES ?? 2),
    upstreamBudgetMs: Number(env.UPSTREAM_BUDGET_MS ?? 15_000),
    upstreamMaxBytes: Number(env.UPSTREAM_MAX_BYTES ?? 10 * 1024 * 1024),
    cacheMaxEntries: Number(env.CACHE_MAX_ENTRIES ?? 5_000),
    shutdownGraceMs: Number(env.SHUTDOWN_GRACE_MS ?? 10_000),
    endpointsDir: path.join(ROOT, "endpoints"),
    rootDir: ROOT,
    ...overrides,
  };
}
