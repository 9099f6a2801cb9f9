// One statement for the items of a batch: what concurrent calls ask in the same turns of the event loop is sent
// together, as one statement (or transaction) that answers an output per item, in order: a batch costs one round trip
// and one commit. One batch at a time (or inFlight); the next starts as soon as the previous one answered.
// A batch that fails as a whole (a lost connection, a deadlock with another instance) wrote nothing: each of its
// items is then tried alone, so that one item's fault is its own.

const MAX_BATCH = 64;

interface Queued<I, O> { item: I; resolve(v: O): void; reject(e: unknown): void }

export class StatementBatch<I, O> {
  private readonly statement: (items: I[]) => Promise<O[]>;
  private readonly gatherTurns: number;
  private readonly inFlight: number;
  private queue: Queued<I, O>[] = [];
  private running = 0;
  private gathering = false;

  /**
   * gatherTurns: how many turns of the event loop an idle batch waits for the items arriving in them. inFlight: how
   * many batches may be sent before the first one answered (PostgreSQL pipelines them on one connection: the next
   * batch does not wait for the previous one's round trip).
   */
  constructor(statement: (items: I[]) => Promise<O[]>, opts: { gatherTurns?: number; inFlight?: number } = {}) {
    this.statement = statement;
    this.gatherTurns = opts.gatherTurns ?? 1;
    this.inFlight = opts.inFlight ?? 1;
  }

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.running < this.inFlight && !this.gathering) {
        this.gathering = true;
        this.afterTurns(this.gatherTurns, () => {
          this.gathering = false;
          void this.drain();
        });
      }
    });
  }

  private afterTurns(turns: number, fn: () => void): void {
    setImmediate(() => (turns > 1 ? this.afterTurns(turns - 1, fn) : fn()));
  }

  private async drain(): Promise<void> {
    this.running++;
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const outs = await this.statement(batch.map((q) => q.item));
        batch.forEach((q, i) => q.resolve(outs[i]));
      } catch {
        for (const q of batch) await this.statement([q.item]).then(([out]) => q.resolve(out), q.reject);
      }
    }
    this.running--;
  }
}
