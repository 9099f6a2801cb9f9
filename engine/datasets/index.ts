// Local datasets: bulk files loaded into SQLite, one file per version, switched atomically (see store.ts).
// Plugins read them through ctx.datasets.use(name); `npm run sync` and the background loads call sync(). A server
// loads every dataset never loaded in the background, one at a time, and refreshes the others on their interval.
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Problem } from "../basics/problem.ts";
import { DatasetStore, type Failure } from "./store.ts";
import { DatasetLoadError, findLocal, type FoundFile } from "./input.ts";
import { download } from "./download.ts";
import { loadOffThread } from "./load-off-thread.ts";
import { createProgress, type SyncProgress } from "./progress.ts";
import { loadDefinitions, testCopyDir } from "./definitions.ts";
import { RefreshSchedule } from "./refresh.ts";
import type { Config } from "../config.ts";
import type { Cluster } from "../cluster/redis.ts";
import { durationMs } from "../basics/duration.ts";
import type { Logger } from "../basics/log.ts";
import type { Provenance, UpstreamClient } from "../upstream/client.ts";
import type { DatasetDefinition, DatasetHandle, DatasetVersion } from "./types.ts";

export { DatasetLoadError };

export interface DatasetDeps {
  config: Config;
  log: Logger;
  upstream: UpstreamClient;
  /** For UPSTREAM_* credentials of a download and DATASET_REFRESH; process.env when absent. */
  env?: NodeJS.ProcessEnv;
  /** REDIS_URL: instances sharing DATA_DIR take turns to download (one lease per dataset). */
  cluster?: Cluster;
}

export interface SyncOptions {
  /** Read the files from this folder instead of downloading them. */
  from?: string;
  /** Default: a bar on a terminal, log lines otherwise. */
  progress?: SyncProgress;
  /** Accept a version with far fewer rows than the one in use (otherwise refused as truncated). */
  force?: boolean;
}

export interface DatasetStatus {
  name: string;
  title: string;
  source: string;
  refresh: string;
  licence: string;
  attribution: string;
  version?: DatasetVersion;
  /** Being loaded by this process now, or waiting for its turn. */
  loading: boolean;
  last_failure?: Failure;
}

interface OpenVersion {
  version: DatasetVersion;
  db: DatabaseSync;
  index?: unknown;
  indexed: boolean;
  /** The pointer file's mtime when this was checked. */
  stamp?: number;
}

/** How long a replaced version's database stays open for calls that started on it. */
const RETIRE_AFTER_MS = 30_000;
/** A download's lease, renewed while it runs; a crashed holder's lapses after this. */
const LEASE_MS = 60_000;
/** How often an instance waiting for another's download looks whether it is done. */
const LEASE_POLL_MS = 2_000;
/** How often a server looks for versions loaded by another process (npm run sync), to build their index before a call needs it. */
const VERSION_CHECK_MS = 30_000;

export class Datasets {
  readonly deps: DatasetDeps;
  readonly definitions: Map<string, DatasetDefinition>;
  readonly store: DatasetStore;
  private readonly open = new Map<string, OpenVersion>();
  private readonly retired = new Set<DatabaseSync>();
  private readonly syncing = new Map<string, Promise<DatasetVersion>>();
  private readonly testLoaded = new Set<string>();
  /** Datasets waiting for their first load in the background. */
  private readonly queued = new Set<string>();
  private background?: Promise<void>;
  private closing = false;
  /** Cancels the downloads and loads in flight when the server stops. */
  private readonly aborts = new AbortController();
  private versionCheck?: NodeJS.Timeout;
  private refresh?: RefreshSchedule;

  constructor(deps: DatasetDeps, definitions = new Map<string, DatasetDefinition>()) {
    this.deps = deps;
    this.definitions = definitions;
    this.store = new DatasetStore(deps.config.dataDir);
  }

  definition(name: string): DatasetDefinition {
    const def = this.definitions.get(name);
    if (!def) throw new Error(`unknown dataset "${name}" (known: ${[...this.definitions.keys()].join(", ") || "none"})`);
    return def;
  }

  /** The current version of a dataset, opened; a 503 Problem (dataset_not_loaded) when it was never loaded. */
  use<Index = unknown>(name: string): DatasetHandle<Index> {
    const def = this.definition(name);
    const stamp = this.store.pointerStamp(name);
    let open = this.open.get(name);
    if (!open || open.stamp !== stamp) {
      const current = stamp === undefined ? undefined : this.store.current(name);
      if (!current) throw notLoaded(def, this.isLoading(name));
      if (open?.version.version !== current.version) open = this.openVersion(def, current);
      open.stamp = stamp;
    }
    if (!open.indexed) {
      open.index = def.index?.(open.db);
      open.indexed = true;
    }
    return { db: open.db, index: open.index as Index, version: open.version };
  }

  /** The version in use, if any, without opening it. */
  version(name: string): DatasetVersion | undefined {
    this.definition(name);
    return this.store.current(name);
  }

  /** Where a dataset's answers come from, for ctx.record(): the official URL of its first file and the load time. */
  provenance(handle: DatasetHandle<unknown>): Provenance {
    const def = this.definition(handle.version.name);
    const source = this.deps.upstream.source(def.source);
    return { source: source.name, publisher: source.publisher, url: source.base_url + def.files[0].path, fetched_at: handle.version.loaded_at, cached: false };
  }

  status(): DatasetStatus[] {
    return [...this.definitions.values()].map((d) => ({
      name: d.name, title: d.title, source: d.source, refresh: d.refresh, licence: d.licence, attribution: d.attribution,
      version: this.store.current(d.name),
      loading: this.isLoading(d.name),
      last_failure: this.store.lastFailure(d.name),
    }));
  }

  private isLoading(name: string): boolean {
    return this.syncing.has(name) || this.queued.has(name);
  }

  /** Loads a new version (downloaded, or from a folder) and makes it current; on any failure the previous stays. */
  sync(name: string, opts: SyncOptions = {}): Promise<DatasetVersion> {
    if (this.closing) return Promise.reject(new DatasetLoadError(`${name}: not loaded, the server is stopping`));
    const running = this.syncing.get(name);
    if (running) return running;
    const p = this.syncOnce(this.definition(name), opts).finally(() => this.syncing.delete(name));
    this.syncing.set(name, p);
    return p;
  }

  /**
   * A background load or refresh. With REDIS_URL, the instances sharing DATA_DIR take turns: the one holding the
   * dataset's lease downloads it; the others wait and then use the version it switched to, instead of
   * downloading copies of their own. Without Redis (or while it is away), a plain sync.
   */
  async syncInTurn(name: string, opts: SyncOptions): Promise<DatasetVersion> {
    const def = this.definition(name);
    const cluster = this.deps.cluster;
    let told = false;
    for (;;) {
      const fresh = this.freshVersion(def);
      if (fresh) return fresh;
      if (!cluster?.usable() || this.closing) return this.sync(name, opts);
      const lease = await cluster.lease(`dataset:${name}`, LEASE_MS);
      if (lease) {
        try {
          return this.freshVersion(def) ?? (await this.sync(name, opts));
        } finally {
          await lease.release();
        }
      }
      if (!told) this.deps.log.info({ dataset: name }, "another instance is loading this dataset: waiting for its version");
      told = true;
      await new Promise((r) => setTimeout(r, LEASE_POLL_MS));
    }
  }

  /** The current version if it was loaded within its refresh interval (by this instance or another): nothing to do. */
  private freshVersion(def: DatasetDefinition): DatasetVersion | undefined {
    const v = this.store.current(def.name);
    if (!v || Date.parse(v.loaded_at) + durationMs(def.refresh) <= Date.now()) return undefined;
    this.refresh?.schedule(def, v);
    this.warm(def.name);
    return v;
  }

  /** Tests: loads each named dataset's test copy (beside its definition, fixtures/<name>/) once per engine. */
  loadTestDatasets = async (names: string[]): Promise<void> => {
    for (const name of names) {
      if (this.testLoaded.has(name)) continue;
      await this.sync(name, { from: testCopyDir(this.deps.config.rootDir, name), progress: createProgress(name, this.deps.log, false) });
      this.testLoaded.add(name);
    }
  };

  /**
   * A server's background work: the datasets loaded before get their index built now (not on the first call) and
   * a refresh on their interval; those never loaded are downloaded from their sources, one after another.
   */
  startBackground(versionCheckMs = VERSION_CHECK_MS): Promise<void> {
    this.refresh ??= new RefreshSchedule(this, this.deps.log);
    this.versionCheck ??= setInterval(() => this.warmNewVersions(), versionCheckMs).unref();
    const missing: DatasetDefinition[] = [];
    for (const d of this.definitions.values()) {
      const v = this.store.current(d.name);
      if (v) this.refresh.schedule(d, v);
      else missing.push(d);
    }
    for (const d of missing) this.queued.add(d.name);
    if (missing.length) this.deps.log.info({ datasets: missing.map((d) => d.name) }, "datasets never loaded: loading them in the background from their sources");
    this.background = (async () => {
      // Yield first, so that the server is listening before the work starts.
      await new Promise((r) => setImmediate(r));
      for (const d of this.definitions.values()) if (!missing.includes(d) && !this.closing) this.warm(d.name);
      for (const d of missing) {
        if (this.closing) break;
        this.deps.log.info({ dataset: d.name, source: d.source }, "loading dataset");
        try {
          await this.syncInTurn(d.name, { progress: createProgress(d.name, this.deps.log, false) }).finally(() => this.queued.delete(d.name));
        } catch {
          // Logged and recorded by the sync; tried again later like a failed refresh.
          if (!this.closing) this.refresh?.retryLater(d);
        }
      }
      this.queued.clear();
    })();
    return this.background;
  }

  /** Builds the index of each version another process has switched to since this one last looked. */
  private warmNewVersions(): void {
    for (const name of this.definitions.keys()) {
      if (this.syncing.has(name) || this.closing) continue;
      const open = this.open.get(name);
      const stamp = this.store.pointerStamp(name);
      if (stamp !== undefined && stamp !== open?.stamp) this.warm(name);
    }
  }

  /** Opens the current version and builds its index, so that the first call does not wait for it. */
  private warm(name: string): void {
    try {
      const t0 = performance.now();
      this.use(name);
      this.deps.log.info({ dataset: name, ms: Math.round(performance.now() - t0) }, "dataset ready");
    } catch (e) {
      this.deps.log.warn({ dataset: name, error: (e as Error).message }, "dataset could not be opened");
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.versionCheck);
    // Ends the downloads and the loads' threads now: a stop does not wait for a parse.
    this.aborts.abort();
    this.refresh?.stop();
    await Promise.allSettled(this.syncing.values());
    await this.background?.catch(() => {});
    for (const o of this.open.values()) o.db.close();
    for (const db of this.retired) db.close();
    this.open.clear();
    this.retired.clear();
  }

  private openVersion(def: DatasetDefinition, v: DatasetVersion): OpenVersion {
    const file = this.store.file(def.name, v.version);
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(file, { readOnly: true });
    } catch (e) {
      this.deps.log.error({ dataset: def.name, file, err: e }, "dataset version cannot be opened");
      throw notLoaded(def, false, `Its current version file cannot be opened (${(e as Error).message}).`);
    }
    const old = this.open.get(def.name);
    if (old) this.retire(old.db);
    const open: OpenVersion = { version: v, db, indexed: false };
    this.open.set(def.name, open);
    return open;
  }

  private retire(db: DatabaseSync): void {
    this.retired.add(db);
    setTimeout(() => {
      if (this.retired.delete(db)) db.close();
    }, RETIRE_AFTER_MS).unref();
  }

  private async syncOnce(def: DatasetDefinition, opts: SyncOptions): Promise<DatasetVersion> {
    const { log } = this.deps;
    const started = performance.now();
    const version = this.store.newVersion();
    const dir = this.store.dir(def.name);
    fs.mkdirSync(dir, { recursive: true });
    const target = this.store.file(def.name, version);
    const loading = `${target}.loading`;
    const staging = path.join(dir, `download-${version}`);
    const progress = opts.progress ?? createProgress(def.name, log);
    try {
      const found = opts.from ? findLocal(def, path.resolve(opts.from)) : await this.download(def, staging, progress);
      const job = { rootDir: this.deps.config.rootDir, name: def.name, found: [...found.entries()], file: loading };
      const result = await loadOffThread(job, progress, this.aborts.signal);
      const rows = Object.values(result.counts).reduce((a, b) => a + b, 0);
      if (!rows) throw new DatasetLoadError("the files hold no rows");
      if (!opts.force) checkNotShrunk(result.counts, this.store.current(def.name));
      fs.renameSync(loading, target);
      const v: DatasetVersion = {
        name: def.name,
        version,
        loaded_at: new Date().toISOString(),
        load_ms: Math.round(performance.now() - started),
        sources: [...found.entries()].map(([file, f]) => ({ file, url: f.url, ...(f.date ? { date: f.date, date_from: f.dateFrom } : {}) })),
        counts: result.counts,
        ...(result.dataDates ? { data_dates: result.dataDates } : {}),
      };
      this.store.switchTo(v);
      progress.done();
      log.info({ dataset: def.name, version, counts: v.counts, ms: v.load_ms }, "dataset loaded");
      if (this.refresh && !this.closing) {
        this.refresh.schedule(def, v);
        this.warm(def.name);
      }
      return v;
    } catch (e) {
      progress.done();
      fs.rmSync(loading, { force: true });
      if (this.aborts.signal.aborted) {
        // Not a failure of the source: the version in use (if any) stays, and the next start loads it again.
        log.info({ dataset: def.name }, "dataset load stopped: the server is stopping");
        throw new DatasetLoadError(`${def.name}: the load was stopped, the server is stopping`, { cause: e });
      }
      const why = (e as Error).message;
      this.store.recordFailure(def.name, why);
      const kept = this.store.current(def.name);
      const message = `${def.name}: the sync failed (${why}); ${kept ? `version ${kept.version} of ${kept.loaded_at} stays in use` : "no version is loaded"}`;
      log.error({ dataset: def.name, error: why, kept: kept?.version }, "dataset sync failed");
      throw new DatasetLoadError(message, { cause: e });
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  }

  private async download(def: DatasetDefinition, staging: string, progress: SyncProgress): Promise<Map<string, FoundFile>> {
    let current = "";
    let last = 0;
    let sized = false;
    const skipped = (file: string, why: string) => progress.log(`${file} left out: ${why}`);
    return download(def, (name) => this.deps.upstream.source(name), staging, this.deps.env ?? process.env, (file, received, total) => {
      if (file !== current || (total && !sized)) {
        current = file;
        sized = Boolean(total);
        progress.phase(`downloading ${file}`, total);
        progress.tick(received);
        last = received;
        return;
      }
      progress.tick(received - last);
      last = received;
    }, skipped, this.aborts.signal);
  }
}

/**
 * A count that falls below half of the version in use means a truncated file far more often than real change; a
 * kind that is gone (an optional file that could not be had this time) counts as none.
 */
function checkNotShrunk(counts: Record<string, number>, previous: DatasetVersion | undefined): void {
  for (const [kind, before] of Object.entries(previous?.counts ?? {})) {
    const n = counts[kind] ?? 0;
    if (before && n < before / 2) {
      throw new DatasetLoadError(`${kind}: ${n} rows against ${before} in the version in use; the files look truncated (sync with --force to accept them)`);
    }
  }
}

function notLoaded(def: DatasetDefinition, loading: boolean, why = ""): Problem {
  const how = loading ? "It is being loaded now, in the background; try again in a few minutes."
    : `The operator loads it with \`npm run sync -- ${def.name}\`.`;
  return new Problem({
    status: 503,
    code: "dataset_not_loaded",
    detail: `The ${def.title} dataset (${def.name}) has not been loaded on this server yet. ${why}${why ? " " : ""}${how} The call was not charged.`,
    extra: { dataset: def.name, loading },
    headers: { "retry-after": loading ? "60" : "3600" },
  });
}

/** Background loading and refresh are off with DATASET_REFRESH=off and under NODE_ENV=test. */
export function refreshEnabled(env: NodeJS.ProcessEnv): boolean {
  return env.DATASET_REFRESH !== "off" && env.NODE_ENV !== "test";
}

export async function createDatasets(deps: DatasetDeps, opts: { refresh?: boolean } = {}): Promise<Datasets> {
  const definitions = await loadDefinitions(deps.config.rootDir, deps.upstream.sources);
  const datasets = new Datasets(deps, definitions);
  if (opts.refresh ?? refreshEnabled(deps.env ?? process.env)) void datasets.startBackground();
  return datasets;
}
