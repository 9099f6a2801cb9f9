// Embedded SQLite (node:sqlite), the default store: one file under DATA_DIR.
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import type { Db, Row } from "./db.ts";

const queues = new Map<string, Promise<unknown>>();

export function openSqlite(file: string): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;");
  const cache = new Map<string, ReturnType<DatabaseSync["prepare"]>>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const args = (params: unknown[]) => params.map((p) => (typeof p === "boolean" ? Number(p) : p ?? null)) as SQLInputValue[];
  const inner: Db = {
    dialect: "sqlite",
    all: async <T>(sql: string, params: unknown[] = []) => stmt(sql).all(...args(params)) as T[],
    run: async (sql, params = []) => Number(stmt(sql).run(...args(params)).changes),
    tx: (fn) => fn(inner),
    close: async () => {},
  };
  // Statements and transactions take turns, so a statement never lands inside another's transaction. The turns are
  // per file, not per connection: a second connection of this process waiting for the lock would block the thread
  // that holds it.
  const shared = path.resolve(file);
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = (queues.get(shared) ?? Promise.resolve()).then(fn, fn);
    queues.set(shared, next.catch(() => undefined));
    return next;
  };
  return {
    dialect: "sqlite",
    all: <T = Row>(sql: string, params?: unknown[]) => serial(() => inner.all<T>(sql, params)),
    run: (sql, params) => serial(() => inner.run(sql, params)),
    tx: (fn) =>
      serial(async () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const out = await fn(inner);
          db.exec("COMMIT");
          return out;
        } catch (e) {
          db.exec("ROLLBACK");
          throw e;
        }
      }),
    close: async () => {
      await serial(async () => db.close());
    },
  };
}
