// Opens the store the configuration asks for: PostgreSQL when DATABASE_URL is set, else SQLite under DATA_DIR.
// Migrations run here, at start-up.
import path from "node:path";
import { openSqlite } from "./sqlite.ts";
import { migrate } from "./migrations.ts";
import { SqlStore } from "./sql-store.ts";
import { closable } from "./db.ts";
import type { Store } from "./types.ts";

export type { Store } from "./types.ts";

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema (DATABASE_SCHEMA); default public. */
  schema?: string;
  /** How long this instance's lease lasts without a heartbeat (renewed every third of it); default 60 s. */
  leaseMs?: number;
}

export async function openStore(opts: StoreOptions): Promise<Store & { dialect: "sqlite" | "postgres" }> {
  // PostgreSQL's driver is loaded only when it is the store.
  const db = closable(opts.databaseUrl ? await (await import("./postgres.ts")).openPostgres(opts.databaseUrl, opts.schema) : openSqlite(path.join(opts.dataDir, "access.sqlite")));
  await migrate(db);
  const store = new SqlStore(db, { leaseMs: opts.leaseMs ?? 60_000 });
  await store.start();
  return store;
}
