// Group commit: the writes of concurrent calls (reservations and finishes) share one transaction, so a burst of
// calls pays for one commit (one WAL flush) instead of one each. A write waits for the batch it joined, a few
// milliseconds at most: the batch starts as soon as the previous one committed. Each write keeps its own
// all-or-nothing meaning: it undoes its own partial changes instead of throwing, and if the batch fails as a
// whole (an SQL error, a deadlock between instances), every write of it is retried alone.
import type { Db } from "./db.ts";

type Write<T> = (t: Db) => Promise<T>;
interface Queued { write: Write<unknown>; resolve(v: unknown): void; reject(e: unknown): void }

const MAX_BATCH = 64;
const STATS = { n: 0, calls: 0, ms: 0 };
if (process.env.GC_STATS) setInterval(() => { if (STATS.n) console.error(`batches ${STATS.n} avg size ${(STATS.calls / STATS.n).toFixed(2)} avg ms ${(STATS.ms / STATS.n).toFixed(2)}`); STATS.n = STATS.calls = STATS.ms = 0; }, 1000).unref();

export class GroupCommit {
  private readonly db: Db;
  private queue: Queued[] = [];
  private running = false;

  constructor(db: Db) {
    this.db = db;
  }

  run<T>(write: Write<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (v: unknown) => void, reject });
      // Started after this turn of the event loop, so the writes of the requests arriving in it join the batch.
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const t0 = performance.now();
      try {
        const results = await this.db.tx(async (t) => {
          const out: unknown[] = [];
          for (const q of batch) out.push(await q.write(t));
          return out;
        });
        batch.forEach((q, i) => q.resolve(results[i]));
        STATS.n++; STATS.calls += batch.length; STATS.ms += performance.now() - t0;
      } catch {
        for (const q of batch) await this.db.tx(q.write).then(q.resolve, q.reject);
      }
    }
    this.running = false;
  }
}
