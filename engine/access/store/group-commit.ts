// Group commit: the writes of concurrent calls (credit and x402 reservations, finishes) share one transaction, so a
// burst of calls pays for one commit (one WAL flush) instead of one each. A write waits for the batch it joined, a
// few milliseconds at most: the batch starts as soon as the previous one committed. The writes of a batch run side
// by side, so on PostgreSQL their statements travel together instead of one round trip each; so no write may depend
// on what another one does meanwhile (allowance counts do: they are counted in turn, see SqlStore.beginAllowanceCalls).
// Each write keeps its own all-or-nothing meaning: it undoes its own partial changes instead of throwing, and if the
// batch fails as a whole (an SQL error, a deadlock between instances), every write of it is retried alone, once all
// of them have stopped (none may send a statement after the rollback).
import type { Db } from "./db.ts";
import { StatementBatch } from "./statement-batch.ts";

type Write<T> = (t: Db) => Promise<T>;

export class GroupCommit {
  /** A batch is one transaction running its writes side by side; tried alone, a write fails with its own error. */
  private readonly batch: StatementBatch<Write<unknown>, unknown>;

  constructor(db: Db) {
    this.batch = new StatementBatch((writes) => db.tx(async (t) => {
      const out = await Promise.allSettled(writes.map((write) => write(t)));
      const failed = out.find((o) => o.status === "rejected");
      if (failed) throw writes.length === 1 ? failed.reason : new Error("a write of the batch failed");
      return out.map((o) => (o as PromiseFulfilledResult<unknown>).value);
    }));
  }

  run<T>(write: Write<T>): Promise<T> {
    return this.batch.run(write) as Promise<T>;
  }
}
