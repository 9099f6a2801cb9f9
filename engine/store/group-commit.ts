// Group commit: the writes of concurrent calls (credit and x402 reservations, finishes) share one transaction, so a
// burst of calls pays for one commit (one WAL flush) instead of one each. A write waits for the batch it joined, a
// few milliseconds at most: the batch starts as soon as the previous one committed. The writes of a batch run side
// by side, so on PostgreSQL their statements travel together instead of one round trip each; so no write may depend
// on what another one does meanwhile (allowance counts do: they are counted in turn, see SqlStore.beginAllowanceCalls).
// Each write keeps its own all-or-nothing meaning: it undoes its own partial changes instead of throwing, and if the
// batch fails as a whole (an SQL error, a deadlock between instances), every write of it is retried alone, once all
// of them have stopped (none may send a statement after the rollback).
import type { Db } from "./db.ts";

type Write<T> = (t: Db) => Promise<T>;
interface Queued { write: Write<unknown>; resolve(v: unknown): void; reject(e: unknown): void }

const MAX_BATCH = 64;

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
      try {
        const results = await this.db.tx(async (t) => {
          const out = await Promise.allSettled(batch.map((q) => q.write(t)));
          if (out.some((o) => o.status === "rejected")) throw new Error("a write of the batch failed");
          return out.map((o) => (o as PromiseFulfilledResult<unknown>).value);
        });
        batch.forEach((q, i) => q.resolve(results[i]));
      } catch {
        for (const q of batch) await this.db.tx(q.write).then(q.resolve, q.reject);
      }
    }
    this.running = false;
  }
}
