// The engine: everything a call needs, built once at start-up.
import { loadConfig, type Config } from "./config.ts";
import { createLogger, type Logger } from "./basics/log.ts";
import { loadRegistry } from "./endpoints/registry.ts";
import { type Registry } from "./endpoints/model.ts";
import { UpstreamClient } from "./upstream/client.ts";
import { ResultCache } from "./call/result-cache.ts";
import { createAccess } from "./access/index.ts";
import { createDatasets, type Datasets } from "./datasets/index.ts";
import type { Access } from "./access/types.ts";
import type { Cluster } from "./cluster/redis.ts";

export interface Engine {
  config: Config;
  env: NodeJS.ProcessEnv;
  log: Logger;
  registry: Registry;
  upstream: UpstreamClient;
  results: ResultCache;
  access: Access;
  datasets: Datasets;
  /** REDIS_URL: what the instances share; absent for a single instance. */
  cluster?: Cluster;
  /** Forgets cached upstream responses and answers (tests, operators). */
  clearCaches(): void;
  close(): Promise<void>;
}

export interface EngineOptions {
  env?: NodeJS.ProcessEnv;
  config?: Partial<Config>;
  log?: Logger;
  /** Replace the access layer (tests of the engine alone). */
  access?: Access;
}

export async function createEngine(opts: EngineOptions = {}): Promise<Engine> {
  const env = opts.env ?? process.env;
  const config = loadConfig(env, opts.config);
  const log = opts.log ?? createLogger(config.logLevel);
  // What a call needs is compiled when first needed, and Redis's client loaded only with REDIS_URL: start-up time and memory.
  const registry = await loadRegistry({ rootDir: config.rootDir, endpointsDir: config.endpointsDir, env, lazy: true });
  const cluster = config.redisUrl ? await (await import("./cluster/redis.ts")).Cluster.connect(config.redisUrl, log, config.redisPrefix) : undefined;
  const upstream = new UpstreamClient(registry.sources, {
    timeoutMs: config.upstreamTimeoutMs, retries: config.upstreamRetries, cacheMaxEntries: config.cacheMaxEntries, log, env,
    budgetMs: config.upstreamBudgetMs, maxBytes: config.upstreamMaxBytes, cluster,
  });
  const datasets = await createDatasets({ config, log, upstream, env, cluster });
  const access = opts.access ?? (await createAccess({ config, log, registry, env }));
  const results = new ResultCache(config.cacheMaxEntries);
  return {
    config, env, log, registry, upstream, results, access, datasets, cluster,
    clearCaches: () => {
      upstream.clearCache();
      results.clear();
    },
    close: async () => {
      await access.close();
      await datasets.close();
      await cluster?.close();
    },
  };
}
