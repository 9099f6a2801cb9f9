// The store over either SQL driver. Every check-and-charge is one conditional statement inside a transaction,
// so concurrent calls (and several instances on PostgreSQL) can never overspend a bucket or a balance.
import { randomUUID, randomUUIDv7 } from "node:crypto";
import type { Db, Row } from "./db.ts";
import { GroupCommit } from "./group-commit.ts";
import { StatementBatch } from "./statement-batch.ts";
import type { BeginCall, BeginResult, BucketClaim, CallRecord, CreditEntry, KeyRecord, OnceClaim, Store } from "./types.ts";

/** Free keys minted per client address and day are counted like an allowance bucket. */
const MINT_BUCKET = "free-keys";

const INCREMENT_BUCKET = `INSERT INTO allowance_usage (bucket, principal, day, used) SELECT ?, ?, ?, 1 WHERE ? > 0
  ON CONFLICT (bucket, principal, day) DO UPDATE SET used = allowance_usage.used + 1 WHERE allowance_usage.used < ? RETURNING used`;

const DECREMENT_BUCKET = "UPDATE allowance_usage SET used = used - 1 WHERE bucket = ? AND principal = ? AND day = ? AND used > 0";

const toKey = (r: Row): KeyRecord => ({
  id: String(r.id),
  clientId: String(r.client_id),
  label: (r.label as string | null) ?? undefined,
  createdAt: Number(r.created_at),
  creditMicro: Number(r.credit_micro),
});

const toCall = (r: Row): CallRecord => ({
  id: String(r.id),
  at: Number(r.at),
  endpoint: String(r.endpoint),
  principal: String(r.principal),
  channel: String(r.channel),
  priceMicro: Number(r.price_micro),
  paidBy: r.paid_by as CallRecord["paidBy"],
  outcome: r.outcome as CallRecord["outcome"],
  paymentRef: (r.payment_ref as string | null) ?? undefined,
  paymentTx: (r.payment_tx as string | null) ?? undefined,
  detail: (r.detail as string | null) ?? undefined,
});

const INSERT_CALL = `INSERT INTO calls (id, at, day, endpoint, principal, channel, price_micro, paid_by, outcome, finished_at, buckets, key_id, payment_ref, instance_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** A new idempotency claim, or the takeover of an expired one; changes no row while a live one holds the id. */
const CLAIM_ONCE = `INSERT INTO idempotency (scope, id, fingerprint, state, answer, instance_id, expires_at) VALUES (?, ?, ?, 'in_flight', NULL, ?, ?)
  ON CONFLICT (scope, id) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'in_flight', answer = NULL, instance_id = excluded.instance_id,
    expires_at = excluded.expires_at WHERE idempotency.expires_at < ?`;

const INSERT_CREDIT_ENTRY = "INSERT INTO credit_entries (id, key_id, at, delta_micro, kind, ref, call_id, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

/** An allowance call as begin_allowance_calls takes it: its ledger row's columns and the buckets it counts against. */
interface AllowanceCall {
  id: string; at: number; day: string; endpoint: string; principal: string; channel: string; priceMicro: number;
  outcome: "ok" | "pending"; finishedAt: number | null; bucketList: string; keyId: string | null; buckets: BucketClaim[];
}

/** What counting did for a call: its count in each of its buckets, or the bucket that was full. */
type AllowanceCount = number[] | { full: string };

export class SqlStore implements Store {
  private readonly db: Db;
  readonly dialect: Db["dialect"];
  /** This process: the pending calls it begins are its own, and nobody gives them back while its lease holds. */
  readonly instanceId = randomUUID();
  private readonly leaseMs: number;
  private heartbeat?: NodeJS.Timeout;
  private readonly batch: GroupCommit;
  /** The allowance calls of a batch, counted together (see beginAllowanceCalls). */
  private readonly allowanceCalls: StatementBatch<AllowanceCall, BeginResult>;
  /** PostgreSQL: the allowance batches' statement, sent in turns on a connection kept for it. */
  private readonly ownConnection: Pick<Db, "all">;

  constructor(db: Db, opts: { leaseMs: number }) {
    this.db = db;
    this.dialect = db.dialect;
    this.leaseMs = opts.leaseMs;
    this.batch = new GroupCommit(db);
    // Allowance counts do not wait for PostgreSQL's disk, as SQLite's WAL with synchronous=NORMAL does not: a commit
    // that waits for its flush holds the key's bucket row locked that long, so one key's calls would take turns at
    // the disk's pace (several ms here). Only a crash of the database server itself can lose the last fraction of a
    // second of them (free calls, whole batches at a time: counts and ledger rows together); money is never written
    // this way (credit and x402 wait for the disk).
    this.ownConnection = db.dedicated?.({ asyncCommit: true }) ?? db;
    // SQLite's cost is the commit's own work (its WAL writes), on this thread: a batch that waits one more turn of the
    // event loop gathers more calls per commit. On PostgreSQL the cost is the wait for the server: a batch goes at once.
    // PostgreSQL: a second batch is sent while the first is on the server, on the same connection (pipelined, so
    // counted after it, in order).
    this.allowanceCalls = new StatementBatch((calls) => this.beginAllowanceCalls(calls), db.dialect === "sqlite" ? { gatherTurns: 2 } : { inFlight: 2 });
  }

  /** Takes this instance's lease and renews it three times a lease. */
  async start(): Promise<void> {
    const now = Date.now();
    await this.db.run("INSERT INTO instances (id, started_at, expires_at) VALUES (?, ?, ?)", [this.instanceId, now, now + this.leaseMs]);
    this.heartbeat = setInterval(() => void this.renewLease().catch(() => undefined), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.heartbeat.unref();
  }

  private async renewLease(): Promise<void> {
    const now = Date.now();
    // Taken for gone by another instance (it was silent too long): it is alive after all, so it enrols again.
    if (!(await this.db.run("UPDATE instances SET expires_at = ? WHERE id = ?", [now + this.leaseMs, this.instanceId]))) {
      await this.db.run("INSERT INTO instances (id, started_at, expires_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING", [this.instanceId, now, now + this.leaseMs]);
    }
  }

  async mintKey(p: { hash: string; clientId: string; day: string; maxPerDay: number; label?: string }): Promise<KeyRecord | undefined> {
    const id = randomUUID();
    const createdAt = Date.now();
    const ok = await this.db.tx(async (t) => {
      if (!(await t.run(INCREMENT_BUCKET, [MINT_BUCKET, `ip:${p.clientId}`, p.day, p.maxPerDay, p.maxPerDay]))) return false;
      await t.run("INSERT INTO api_keys (id, hash, client_id, label, created_at, credit_micro) VALUES (?, ?, ?, ?, ?, 0)", [id, p.hash, p.clientId, p.label, createdAt]);
      return true;
    });
    return ok ? { id, clientId: p.clientId, label: p.label, createdAt, creditMicro: 0 } : undefined;
  }

  async findKey(hash: string): Promise<KeyRecord | undefined> {
    const [r] = await this.db.all("SELECT * FROM api_keys WHERE hash = ?", [hash]);
    return r ? toKey(r) : undefined;
  }

  async keyById(id: string): Promise<KeyRecord | undefined> {
    const [r] = await this.db.all("SELECT * FROM api_keys WHERE id = ?", [id]);
    return r ? toKey(r) : undefined;
  }

  async beginCall(p: BeginCall): Promise<BeginResult> {
    // Time-ordered ids: each new ledger row lands next to the last one in the primary key, not on a random page.
    const callId = randomUUIDv7();
    const at = Date.now();
    const outcome = p.final ? "ok" : "pending";
    const finishedAt = p.final ? at : null;
    if (p.paidBy === "allowance") {
      const buckets = p.buckets ?? [];
      return this.allowanceCalls.run({ id: callId, at, day: p.day, endpoint: p.endpoint, principal: p.principal, channel: p.channel, priceMicro: p.priceMicro,
        outcome, finishedAt, bucketList: JSON.stringify(buckets.map((b) => b.id)), keyId: p.keyId ?? null, buckets });
    }
    // Credit and x402, part of a group commit: a refusal undoes this call's own writes instead of rolling the batch
    // back. The ledger row and the debit go out together (PostgreSQL pipelines them); a refused call deletes its row.
    return this.batch.run(async (t): Promise<BeginResult> => {
      const [, debited] = await Promise.all([
        t.run(INSERT_CALL, [callId, at, p.day, p.endpoint, p.principal, p.channel, p.priceMicro, p.paidBy, outcome, finishedAt, "[]", p.keyId, p.paymentRef, this.instanceId]),
        p.paidBy === "credit" ? t.run("UPDATE api_keys SET credit_micro = credit_micro - ? WHERE id = ? AND credit_micro >= ?", [p.priceMicro, p.keyId, p.priceMicro]) : 1,
      ]);
      if (!debited) {
        await t.run("DELETE FROM calls WHERE id = ?", [callId]);
        return { ok: false, reason: "credit" };
      }
      if (p.paidBy === "credit") await t.run(INSERT_CREDIT_ENTRY, [randomUUID(), p.keyId, at, -p.priceMicro, "call", null, callId, p.endpoint]);
      return { ok: true, callId };
    });
  }

  /**
   * The allowance calls of a batch, counted together and each in turn: a call gets each of its buckets or none, and
   * a refused call leaves no trace that a later call of the batch could see. Taken in the order of their principals,
   * so that two instances' batches lock the bucket rows they share in the same order and never deadlock.
   */
  private async beginAllowanceCalls(calls: AllowanceCall[]): Promise<BeginResult[]> {
    const order = calls.map((c, i) => ({ c, i })).sort((a, b) => (a.c.principal < b.c.principal ? -1 : a.c.principal > b.c.principal ? 1 : a.i - b.i));
    const sorted = order.map(({ c }) => c);
    const counts = this.dialect === "postgres" ? await this.countOnPostgres(sorted) : await this.countInTransaction(sorted);
    if (counts.length !== calls.length) throw new Error(`${counts.length} counts for ${calls.length} allowance calls`);
    const out: BeginResult[] = [];
    order.forEach(({ c, i }, n) => {
      const count = counts[n];
      out[i] = Array.isArray(count) ? { ok: true, callId: c.id, used: new Map(c.buckets.map((b, j) => [b.id, count[j]])) } : { ok: false, reason: "allowance", bucket: count.full };
    });
    return out;
  }

  /** One statement: begin_allowance_calls (migration 4) does on the server what countInTransaction does here. */
  private async countOnPostgres(calls: AllowanceCall[]): Promise<AllowanceCount[]> {
    const column = <K extends keyof AllowanceCall>(k: K) => calls.map((c) => c[k]);
    const buckets = calls.flatMap((c, n) => c.buckets.map((b) => ({ call: n + 1, ...b })));
    const rows = await this.ownConnection.all<{ counted: number[] | null; full_bucket: string }>(
      `SELECT counted, full_bucket FROM begin_allowance_calls(?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[],
        ?::bigint[], ?::text[], ?::text[], ?, ?::int[], ?::text[], ?::int[]) WITH ORDINALITY ORDER BY ordinality`,
      [column("id"), column("at"), column("day"), column("endpoint"), column("principal"), column("channel"), column("priceMicro"), column("outcome"),
        column("finishedAt"), column("bucketList"), column("keyId"), this.instanceId, buckets.map((b) => b.call), buckets.map((b) => b.id), buckets.map((b) => b.limit)],
    );
    return rows.map((r) => r.counted ?? { full: r.full_bucket });
  }

  private async countInTransaction(calls: AllowanceCall[]): Promise<AllowanceCount[]> {
    return this.db.tx(async (t) => {
      const counts: AllowanceCount[] = [];
      for (const c of calls) {
        const counted: number[] = [];
        let full: string | undefined;
        for (const b of c.buckets) {
          const [row] = await t.all<{ used: number }>(INCREMENT_BUCKET, [b.id, c.principal, c.day, b.limit, b.limit]);
          if (!row) {
            full = b.id;
            break;
          }
          counted.push(Number(row.used));
        }
        if (full) {
          for (const b of c.buckets.slice(0, counted.length)) {
            await t.run(DECREMENT_BUCKET, [b.id, c.principal, c.day]);
          }
          counts.push({ full });
          continue;
        }
        await t.run(INSERT_CALL, [c.id, c.at, c.day, c.endpoint, c.principal, c.channel, c.priceMicro, "allowance", c.outcome, c.finishedAt, c.bucketList, c.keyId, null, this.instanceId]);
        counts.push(counted);
      }
      return counts;
    });
  }

  async finishCall(callId: string, outcome: "ok" | "error", p: { detail?: string; paymentTx?: string } = {}): Promise<void> {
    const now = Date.now();
    if (outcome === "ok") {
      const done = p.paymentTx === undefined
        // Allowance and credit calls: the charge was taken at beginCall; only the outcome is left to write.
        ? await this.batch.run((t) => t.run("UPDATE calls SET outcome = 'ok', finished_at = ?, detail = ? WHERE id = ? AND outcome = 'pending'", [now, p.detail, callId]))
        : await this.db.tx(async (t) => {
          const n = await t.run("UPDATE calls SET outcome = 'ok', finished_at = ?, payment_tx = ?, detail = ? WHERE id = ? AND outcome IN ('pending', 'interrupted', 'settlement_unknown')", [now, p.paymentTx, p.detail, callId]);
          await t.run("UPDATE payment_nonces SET state = 'settled' WHERE id = (SELECT payment_ref FROM calls WHERE id = ?)", [callId]);
          return n;
        });
      if (!done) await this.finishAfterGiveBack(callId);
      return;
    }
    await this.db.tx(async (t) => {
      // An allowance call may have been recorded as final (ok) at once: its failure gives it back all the same.
      const rows = await t.all(`UPDATE calls SET outcome = 'error', finished_at = ?, detail = ? WHERE id = ?
        AND (outcome IN ('pending', 'settlement_unknown') OR (outcome = 'ok' AND paid_by = 'allowance')) RETURNING *`, [now, p.detail?.slice(0, 500), callId]);
      for (const row of rows) await this.giveBack(t, row, true);
    });
  }

  async interruptCalls(callIds: string[]): Promise<void> {
    if (!callIds.length) return;
    await this.db.tx(async (t) => {
      for (const id of callIds) {
        const rows = await t.all("UPDATE calls SET outcome = 'interrupted', finished_at = ?, detail = ? WHERE id = ? AND outcome = 'ok' AND paid_by = 'allowance' RETURNING *",
          [Date.now(), "the service stopped before the call was answered", id]);
        for (const row of rows) await this.giveBack(t, row, false);
      }
    });
  }

  /**
   * A call that succeeded after its charge was given back (its instance was silent past its lease): it was
   * answered, so the ledger records it and the charge is taken again (the allowance even past its size; the
   * credit only if it still covers the price, else the call is `uncharged`).
   */
  private async finishAfterGiveBack(callId: string): Promise<void> {
    await this.db.tx(async (t) => {
      const [row] = await t.all("UPDATE calls SET outcome = 'ok', finished_at = ?, detail = ? WHERE id = ? AND outcome = 'interrupted' RETURNING *", [Date.now(), "finished after it was given back as interrupted: charged again", callId]);
      if (!row) return;
      for (const bucket of JSON.parse(String(row.buckets)) as string[]) {
        await t.run("INSERT INTO allowance_usage (bucket, principal, day, used) VALUES (?, ?, ?, 1) ON CONFLICT (bucket, principal, day) DO UPDATE SET used = allowance_usage.used + 1", [bucket, row.principal, row.day]);
      }
      if (row.paid_by !== "credit") return;
      if (await t.run("UPDATE api_keys SET credit_micro = credit_micro - ? WHERE id = ? AND credit_micro >= ?", [row.price_micro, row.key_id, row.price_micro])) {
        await t.run(INSERT_CREDIT_ENTRY, [randomUUID(), row.key_id, Date.now(), -Number(row.price_micro), "call", null, row.id, `${row.endpoint} (finished after it was given back)`]);
      } else {
        await t.run("UPDATE calls SET outcome = 'uncharged', detail = ? WHERE id = ?", ["finished after it was given back as interrupted; the credit no longer covered it", row.id]);
      }
    });
  }

  async recoverInterrupted(opts: { othersGone?: boolean } = {}): Promise<number> {
    const now = Date.now();
    const liveAt = opts.othersGone ? Number.MAX_SAFE_INTEGER : now;
    return this.db.tx(async (t) => {
      // Claimed by one conditional UPDATE: two instances sweeping at once each get a disjoint set of calls.
      const rows = await t.all(
        `UPDATE calls SET outcome = 'interrupted', finished_at = ?, detail = ?
         WHERE outcome = 'pending' AND (instance_id IS NULL OR instance_id <> ?)
           AND (instance_id IS NULL OR instance_id NOT IN (SELECT id FROM instances WHERE expires_at >= ?))
         RETURNING *`,
        [now, "the service stopped during the call", this.instanceId, liveAt],
      );
      // An x402 payment may or may not have settled before the process died: its nonce stays used.
      for (const row of rows) await this.giveBack(t, row, false);
      await t.run(`DELETE FROM idempotency WHERE expires_at < ? OR (state = 'in_flight' AND instance_id <> ?
        AND instance_id NOT IN (SELECT id FROM instances WHERE expires_at >= ?))`, [now, this.instanceId, liveAt]);
      await t.run("DELETE FROM instances WHERE id <> ? AND expires_at < ?", [this.instanceId, liveAt]);
      return rows.length;
    });
  }

  /** Gives back what a call reserved; its ledger row was already moved out of `pending` by the caller's UPDATE. */
  private async giveBack(t: Db, row: Row, releaseNonce: boolean): Promise<void> {
    for (const bucket of JSON.parse(String(row.buckets)) as string[]) {
      await t.run(DECREMENT_BUCKET, [bucket, row.principal, row.day]);
    }
    if (row.paid_by === "credit") {
      await t.run("UPDATE api_keys SET credit_micro = credit_micro + ? WHERE id = ?", [row.price_micro, row.key_id]);
      await t.run(INSERT_CREDIT_ENTRY, [randomUUID(), row.key_id, Date.now(), row.price_micro, "refund", null, row.id, `${row.outcome}: ${row.endpoint}`]);
    }
    if (row.payment_ref && releaseNonce) await t.run("DELETE FROM payment_nonces WHERE id = ?", [row.payment_ref]);
  }

  async settlementUnknown(callId: string, payment: string): Promise<void> {
    await this.db.run("UPDATE calls SET outcome = 'settlement_unknown', finished_at = ?, payment_payload = ?, detail = ? WHERE id = ? AND outcome IN ('pending', 'interrupted')",
      [Date.now(), payment, "the facilitator's settlement answer was lost; to reconcile against the chain", callId]);
  }

  async unknownSettlements(): Promise<{ callId: string; payment: string }[]> {
    const rows = await this.db.all<{ id: string; payment_payload: string }>("SELECT id, payment_payload FROM calls WHERE outcome = 'settlement_unknown' ORDER BY at");
    return rows.map((r) => ({ callId: r.id, payment: r.payment_payload }));
  }

  async claimNonce(ref: string): Promise<boolean> {
    return (await this.db.run("INSERT INTO payment_nonces (id, state, at) VALUES (?, 'in_flight', ?) ON CONFLICT (id) DO NOTHING", [ref, Date.now()])) === 1;
  }

  async releaseNonce(ref: string): Promise<void> {
    await this.db.run("DELETE FROM payment_nonces WHERE id = ? AND state = 'in_flight'", [ref]);
  }

  async claimOnce(p: { scope: string; id: string; fingerprint: string; expiresAt: number }): Promise<OnceClaim> {
    // Claimed, or held: read who holds it. A holder that let go in between (released) leaves nothing to read: claim again.
    for (;;) {
      if (await this.db.run(CLAIM_ONCE, [p.scope, p.id, p.fingerprint, this.instanceId, p.expiresAt, Date.now()])) return { claimed: true };
      const [held] = await this.db.all<{ fingerprint: string; state: string; answer: string | null }>(
        "SELECT fingerprint, state, answer FROM idempotency WHERE scope = ? AND id = ?", [p.scope, p.id]);
      if (held) return { claimed: false, fingerprint: held.fingerprint, ...(held.state === "done" ? { answer: held.answer! } : {}) };
    }
  }

  async keepOnce(scope: string, id: string, answer: string): Promise<void> {
    await this.db.run("UPDATE idempotency SET state = 'done', answer = ? WHERE scope = ? AND id = ? AND state = 'in_flight' AND instance_id = ?", [answer, scope, id, this.instanceId]);
  }

  async releaseOnce(scope: string, id: string): Promise<void> {
    await this.db.run("DELETE FROM idempotency WHERE scope = ? AND id = ? AND state = 'in_flight' AND instance_id = ?", [scope, id, this.instanceId]);
  }

  async usage(principal: string, day: string): Promise<Map<string, number>> {
    const rows = await this.db.all<{ bucket: string; used: number }>("SELECT bucket, used FROM allowance_usage WHERE principal = ? AND day = ?", [principal, day]);
    return new Map(rows.map((r) => [r.bucket, Number(r.used)]));
  }

  async recentCalls(principal: string, limit: number): Promise<CallRecord[]> {
    return (await this.db.all("SELECT * FROM calls WHERE principal = ? ORDER BY at DESC LIMIT ?", [principal, limit])).map(toCall);
  }

  async calls(filter: { principal?: string; endpoint?: string } = {}): Promise<CallRecord[]> {
    const where = Object.entries({ principal: filter.principal, endpoint: filter.endpoint }).filter(([, v]) => v !== undefined);
    const sql = `SELECT * FROM calls ${where.length ? `WHERE ${where.map(([k]) => `${k} = ?`).join(" AND ")}` : ""} ORDER BY at, id`;
    return (await this.db.all(sql, where.map(([, v]) => v))).map(toCall);
  }

  async addCredit(e: CreditEntry): Promise<boolean> {
    return this.db.tx(async (t) => {
      if (e.ref && (await t.all("SELECT 1 FROM credit_entries WHERE ref = ?", [e.ref])).length) return false;
      const moved = await t.run("UPDATE api_keys SET credit_micro = credit_micro + ? WHERE id = ? AND credit_micro + ? >= 0", [e.deltaMicro, e.keyId, e.deltaMicro]);
      if (!moved) return false;
      await t.run(INSERT_CREDIT_ENTRY, [randomUUID(), e.keyId, Date.now(), e.deltaMicro, e.kind, e.ref, null, e.note]);
      return true;
    });
  }

  async creditEntries(keyId: string): Promise<(CreditEntry & { at: number })[]> {
    const rows = await this.db.all("SELECT * FROM credit_entries WHERE key_id = ? ORDER BY at, id", [keyId]);
    return rows.map((r) => ({ keyId: String(r.key_id), at: Number(r.at), deltaMicro: Number(r.delta_micro), kind: String(r.kind), ref: (r.ref as string | null) ?? undefined, note: (r.note as string | null) ?? undefined }));
  }

  /** Stops the heartbeat and gives up the lease: the pending calls left (none after a clean stop) are anyone's to give back. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.db.run("DELETE FROM instances WHERE id = ?", [this.instanceId]).catch(() => undefined);
    await this.db.close();
  }
}
