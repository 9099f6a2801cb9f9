// Schema migrations, run in order at start-up (each once, recorded in schema_migrations). Append only: never edit a shipped one.
import type { Db } from "./db.ts";

export const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      hash TEXT NOT NULL UNIQUE,
      client_id TEXT NOT NULL,
      label TEXT,
      created_at BIGINT NOT NULL,
      credit_micro BIGINT NOT NULL DEFAULT 0 CHECK (credit_micro >= 0)
    )`,
    // Daily free-call counters: one row per bucket, principal and UTC day.
    `CREATE TABLE allowance_usage (
      bucket TEXT NOT NULL,
      principal TEXT NOT NULL,
      day TEXT NOT NULL,
      used INTEGER NOT NULL,
      PRIMARY KEY (bucket, principal, day)
    )`,
    // The call ledger: one row per billable call; outcome goes pending -> ok | error | interrupted.
    `CREATE TABLE calls (
      id TEXT PRIMARY KEY,
      at BIGINT NOT NULL,
      day TEXT NOT NULL,
      endpoint TEXT NOT NULL,
      principal TEXT NOT NULL,
      channel TEXT NOT NULL,
      price_micro BIGINT NOT NULL,
      paid_by TEXT NOT NULL,
      outcome TEXT NOT NULL,
      buckets TEXT NOT NULL,
      key_id TEXT,
      payment_ref TEXT,
      payment_tx TEXT,
      detail TEXT,
      finished_at BIGINT
    )`,
    `CREATE INDEX calls_principal_at ON calls (principal, at)`,
    `CREATE INDEX calls_outcome_at ON calls (outcome, at)`,
    // Card credit: append-only; api_keys.credit_micro is the running sum, updated in the same transaction.
    `CREATE TABLE credit_entries (
      id TEXT PRIMARY KEY,
      key_id TEXT NOT NULL REFERENCES api_keys (id),
      at BIGINT NOT NULL,
      delta_micro BIGINT NOT NULL,
      kind TEXT NOT NULL,
      ref TEXT UNIQUE,
      call_id TEXT,
      note TEXT
    )`,
    `CREATE INDEX credit_entries_key ON credit_entries (key_id, at)`,
    // x402 payments in flight or settled, keyed by network, asset, payer and EIP-3009 nonce: a payload runs once.
    `CREATE TABLE payment_nonces (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      at BIGINT NOT NULL
    )`,
  ],
  [
    // Each running process holds a lease it renews until expires_at; a pending call belongs to the instance that
    // began it, and only the calls of an instance that is gone or whose lease ran out are given back.
    `CREATE TABLE instances (
      id TEXT PRIMARY KEY,
      started_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    )`,
    `ALTER TABLE calls ADD COLUMN instance_id TEXT`,
    // x402 calls whose settlement outcome is not known: what `npm run payments -- reconcile` needs to find out.
    `ALTER TABLE calls ADD COLUMN payment_payload TEXT`,
  ],
  [
    // Calls are looked up by outcome only while open (recovery: pending; reconcile: settlement_unknown), so only the
    // open ones are indexed: a call recorded as final (ok at once) writes one index entry fewer.
    `DROP INDEX calls_outcome_at`,
    `CREATE INDEX calls_pending ON calls (at) WHERE outcome = 'pending'`,
    `CREATE INDEX calls_settlement_unknown ON calls (at) WHERE outcome = 'settlement_unknown'`,
  ],
];

export async function migrate(db: Db): Promise<void> {
  await db.tx(async (t) => {
    if (t.dialect === "postgres") await t.run("SELECT pg_advisory_xact_lock(4020402)");
    await t.run("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
    const done = new Set((await t.all<{ version: number }>("SELECT version FROM schema_migrations")).map((r) => Number(r.version)));
    for (const [i, statements] of MIGRATIONS.entries()) {
      if (done.has(i + 1)) continue;
      for (const sql of statements) await t.run(sql);
      await t.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [i + 1, Date.now()]);
    }
  });
}
