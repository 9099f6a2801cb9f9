// Schema migrations, run in order at start-up (each once, recorded in schema_migrations). Append only: never edit a shipped one.
import type { Db } from "./db.ts";

/** A statement for both stores, or one that only PostgreSQL runs (SQLite skips it). */
type Statement = string | { postgres: string };

export const MIGRATIONS: Statement[][] = [
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
  [
    // PostgreSQL charges the allowance calls of a batch in one statement (one round trip, one commit): each call in
    // turn, exactly as SqlStore.beginCall does on SQLite. Every bucket of a call is counted or none: when one is
    // full, the ones counted before it are given back and the call gets no ledger row. A row per call, in order:
    // the count of each of its buckets, or the bucket that was full. Columns come as arrays, one element per call;
    // the buckets as (call number, bucket, limit) arrays in call order.
    { postgres: `CREATE FUNCTION begin_allowance_calls(
        ids text[], ats bigint[], days text[], endpoints text[], principals text[], channels text[], prices bigint[], outcomes text[],
        finished bigint[], bucket_lists text[], key_ids text[], instance text, bucket_call int[], bucket_id text[], bucket_limit int[])
      RETURNS TABLE (counted int[], full_bucket text) LANGUAGE plpgsql AS $fn$
      DECLARE
        j int := 1;
        first int;
        got int;
        charged int[] := '{}';
      BEGIN
        FOR i IN 1 .. cardinality(ids) LOOP
          counted := '{}';
          full_bucket := NULL;
          first := j;
          WHILE j <= cardinality(bucket_call) AND bucket_call[j] = i LOOP
            IF full_bucket IS NULL THEN
              INSERT INTO allowance_usage AS u (bucket, principal, day, used)
                SELECT bucket_id[j], principals[i], days[i], 1 WHERE bucket_limit[j] > 0
                ON CONFLICT (bucket, principal, day) DO UPDATE SET used = u.used + 1 WHERE u.used < bucket_limit[j]
                RETURNING u.used INTO got;
              IF got IS NULL THEN full_bucket := bucket_id[j]; ELSE counted := counted || got; END IF;
            END IF;
            j := j + 1;
          END LOOP;
          IF full_bucket IS NULL THEN
            charged := charged || i;
          ELSE
            UPDATE allowance_usage AS u SET used = u.used - 1
              WHERE u.principal = principals[i] AND u.day = days[i] AND u.bucket = ANY (bucket_id[first : first + cardinality(counted) - 1]);
            counted := NULL;
          END IF;
          RETURN NEXT;
        END LOOP;
        INSERT INTO calls (id, at, day, endpoint, principal, channel, price_micro, paid_by, outcome, finished_at, buckets, key_id, instance_id)
          SELECT ids[k], ats[k], days[k], endpoints[k], principals[k], channels[k], prices[k], 'allowance', outcomes[k], finished[k], bucket_lists[k], key_ids[k], instance
          FROM unnest(charged) AS k;
      END
      $fn$` },
  ],
  [
    // Pay once (docs/idempotency.md): a call sent with an Idempotency-Key (scope: the key or MCP client that sent it)
    // or an x402 payment identifier (scope: the payer). in_flight while the first call runs (its instance's, given
    // up with it), then done with the answer it sent; forgotten once expires_at (24 h on) has passed.
    `CREATE TABLE idempotency (
      scope TEXT NOT NULL,
      id TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      state TEXT NOT NULL,
      answer TEXT,
      instance_id TEXT NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (scope, id)
    )`,
    `CREATE INDEX idempotency_expires ON idempotency (expires_at)`,
  ],
];

export async function migrate(db: Db): Promise<void> {
  await db.tx(async (t) => {
    if (t.dialect === "postgres") await t.run("SELECT pg_advisory_xact_lock(4020402)");
    await t.run("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
    const done = new Set((await t.all<{ version: number }>("SELECT version FROM schema_migrations")).map((r) => Number(r.version)));
    for (const [i, statements] of MIGRATIONS.entries()) {
      if (done.has(i + 1)) continue;
      for (const sql of statements) {
        if (typeof sql === "string") await t.run(sql);
        else if (t.dialect === "postgres") await t.run(sql.postgres);
      }
      await t.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [i + 1, Date.now()]);
    }
  });
}
