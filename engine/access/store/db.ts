// The two SQL drivers behind the store: one small interface, `?` placeholders in every statement.
import { Problem } from "../../basics/problem.ts";

export type Row = Record<string, unknown>;

export interface Db {
  dialect: "sqlite" | "postgres";
  all<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a statement; answers the number of rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  /** Runs fn in one transaction (serialisable for the rows it writes); rolls back when fn throws. */
  tx<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * PostgreSQL: a connection of its own for a statement sent in turns, kept between them (none is checked out of
   * the pool per statement); after an error it is dropped and the next statement takes a new one. asyncCommit: its
   * commits do not wait for the disk (synchronous_commit off): a crash of the database server, not of this process,
   * may lose its last fraction of a second of writes, whole transactions at a time.
   */
  dedicated?(opts?: { asyncCommit?: boolean }): Pick<Db, "all">;
  close(): Promise<void>;
}

/**
 * The store was closed while a call was still running (the server stopped after its grace period): the call
 * cannot be charged or recorded, so it fails as the service stopping (503), not as an internal error.
 */
export class StoreClosed extends Problem {
  constructor() {
    super({ status: 503, code: "service_stopping", detail: "The service is stopping; the call was not charged. Try again in a moment." });
  }
}

/** A Db that refuses every statement once it is closed, instead of each driver's own "not open" error. */
export function closable(db: Db): Db {
  let closed = false;
  const open = () => {
    if (closed) throw new StoreClosed();
  };
  return {
    dialect: db.dialect,
    all: async (sql, params) => (open(), db.all(sql, params)),
    run: async (sql, params) => (open(), db.run(sql, params)),
    tx: async (fn) => (open(), db.tx(fn)),
    ...(db.dedicated ? { dedicated: (opts?: { asyncCommit?: boolean }) => {
      const inner = db.dedicated!(opts);
      return { all: async (sql, params) => (open(), inner.all(sql, params)) } as Pick<Db, "all">;
    } } : {}),
    close: async () => {
      closed = true;
      await db.close();
    },
  };
}
