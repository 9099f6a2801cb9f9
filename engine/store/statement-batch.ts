// One statement for the items of a batch: what concurrent calls ask in the same turn of the event loop is sent
// together, as one statement that answers an output per item, in order. A statement commits on its own, so a batch
// costs one round trip and one commit. One batch at a time; the next starts as soon as the previous one answered.
// A batch that fails as a whole (a lost connection, a deadlock with another instance) wrote nothing: each of its
// items is then tried alone, so that one item's fault is its own.

const MAX_BATCH = 64;

interface Queued<I, O> { item: I; resolve(v: O): void; reject(e: unknown): void }

export class StatementBatch<I, O> {
  private readonly statement: (items: I[]) => Promise<O[]>;
  private queue: Queued<I, O>[] = [];
  private running = false;

  constructor(statement: (items: I[]) => Promise<O[]>) {
    this.statement = statement;
  }

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // Sent after this turn of the event loop, so that the items of the requests arriving in it join the batch.
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
        const outs = await this.statement(batch.map((q) => q.item));
        batch.forEach((q, i) => q.resolve(outs[i]));
      } catch {
        for (const q of batch) await this.statement([q.item]).then(([out]) => q.resolve(out), q.reject);
      }
    }
    this.running = false;
  }
}
