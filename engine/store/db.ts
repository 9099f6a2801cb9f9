// The two SQL drivers behind the store: one small interface, `?` placeholders in every statement.
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
   * the pool per statement); after an error it is dropped and the next statement takes a new one.
   */
  dedicated?(): Pick<Db, "all">;
  close(): Promise<void>;
}
