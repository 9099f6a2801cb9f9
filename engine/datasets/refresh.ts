// The running server's background refresh: each dataset loaded before is synced again when its `refresh`
// interval has passed since its version was loaded; a failed refresh is tried again within the hour.
import { durationMs } from "../basics/duration.ts";
import { createProgress, type SyncProgress } from "./progress.ts";
import type { Logger } from "../basics/log.ts";
import type { DatasetDefinition, DatasetVersion } from "./types.ts";

interface Syncer {
  syncInTurn(name: string, opts: { progress: SyncProgress }): Promise<DatasetVersion>;
}

/** Not sooner than a minute after start-up; a failed refresh again within the hour. */
const DEFAULT_TIMING = { minDelayMs: 60_000, retryMs: 3_600_000 };
/** setTimeout cannot wait longer than about 24.8 days; a longer wait is taken in steps. */
const MAX_TIMER_MS = 86_400_000;

export class RefreshSchedule {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly datasets: Syncer;
  private readonly log: Logger;
  private readonly timing: typeof DEFAULT_TIMING;
  constructor(datasets: Syncer, log: Logger, timing = DEFAULT_TIMING) {
    this.datasets = datasets;
    this.log = log;
    this.timing = timing;
  }

  /** Plans the next refresh of `def` from the version just loaded (or found at start-up). */
  schedule(def: DatasetDefinition, v: DatasetVersion): void {
    const due = Date.parse(v.loaded_at) + durationMs(def.refresh);
    this.log.info({ dataset: def.name, version: v.version, due: new Date(Math.max(due, Date.now())).toISOString() }, "dataset refresh scheduled");
    this.at(def, due);
  }

  /** After a failed load: again within the hour (or the refresh interval, if shorter). */
  retryLater(def: DatasetDefinition): void {
    this.at(def, Date.now() + Math.min(this.timing.retryMs, durationMs(def.refresh)));
  }

  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private at(def: DatasetDefinition, due: number): void {
    clearTimeout(this.timers.get(def.name));
    const delay = Math.min(Math.max(due - Date.now(), this.timing.minDelayMs), MAX_TIMER_MS);
    const timer = setTimeout(() => {
      this.timers.delete(def.name);
      if (Date.now() < due) return this.at(def, due);
      this.log.info({ dataset: def.name }, "refreshing dataset");
      // A success schedules the next refresh itself (Datasets.sync -> schedule).
      this.datasets.syncInTurn(def.name, { progress: createProgress(def.name, this.log, false) }).catch(() => this.retryLater(def));
    }, delay);
    timer.unref();
    this.timers.set(def.name, timer);
  }
}
