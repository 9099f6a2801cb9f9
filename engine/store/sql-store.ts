// The store over either SQL driver. Every check-and-charge is one conditional statement inside a transaction,
// so concurrent calls (and several instances on PostgreSQL) can never overspend a bucket or a balance.
import { randomUUID } from "node:crypto";
import type { Db, Row } from "./db.ts";
import type { BeginCall, BeginResult, CallRecord, CreditEntry, KeyRecord, Store } from "./types.ts";

class Refused extends Error {
  readonly reason: "allowance" | "credit";
  readonly bucket?: string;
  constructor(reason: "allowance" | "credit", bucket?: string) {
    super(reason);
    this.reason = reason;
    this.bucket = bucket;
  }
}

/** Free keys minted per client address and day are counted like an allowance bucket. */
const MINT_BUCKET = "free-keys";

const INCREMENT_BUCKET = `INSERT INTO allowance_usage (bucket, principal, day, used) SELECT ?, ?, ?, 1 WHERE ? > 0
  ON CONFLICT (bucket, principal, day) DO UPDATE SET used = allowance_usage.used + 1 WHERE allowance_usage.used < ?`;

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
  paymentTx: (r.payment_tx as string | null) ?? undefined,
  detail: (r.detail as string | null) ?? undefined,
});

export class SqlStore implements Store {
  private readonly db: Db;
  readonly dialect: Db["dialect"];
  constructor(db: Db) {
    this.db = db;
    this.dialect = db.dialect;
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
    const callId = randomUUID();
    const at = Date.now();
    const buckets = p.paidBy === "allowance" ? (p.buckets ?? []) : [];
    try {
      await this.db.tx(async (t) => {
        for (const b of buckets) {
          if (!(await t.run(INCREMENT_BUCKET, [b.id, p.principal, p.day, b.limit, b.limit]))) throw new Refused("allowance", b.id);
        }
        if (p.paidBy === "credit") {
          const debited = await t.run("UPDATE api_keys SET credit_micro = credit_micro - ? WHERE id = ? AND credit_micro >= ?", [p.priceMicro, p.keyId, p.priceMicro]);
          if (!debited) throw new Refused("credit");
          await t.run("INSERT INTO credit_entries (id, key_id, at, delta_micro, kind, ref, call_id, note) VALUES (?, ?, ?, ?, 'call', NULL, ?, ?)", [randomUUID(), p.keyId, at, -p.priceMicro, callId, p.endpoint]);
        }
        await t.run(
          `INSERT INTO calls (id, at, day, endpoint, principal, channel, price_micro, paid_by, outcome, buckets, key_id, payment_ref)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
          [callId, at, p.day, p.endpoint, p.principal, p.channel, p.priceMicro, p.paidBy, JSON.stringify(buckets.map((b) => b.id)), p.keyId, p.paymentRef],
        );
      });
    } catch (e) {
      if (e instanceof Refused) return { ok: false, reason: e.reason, bucket: e.bucket };
      throw e;
    }
    return { ok: true, callId };
  }

  async finishCall(callId: string, outcome: "ok" | "error", p: { detail?: string; paymentTx?: string } = {}): Promise<void> {
    if (outcome === "ok" && p.paymentTx === undefined) {
      // Allowance and credit calls: the charge was taken at beginCall; only the outcome is left to write.
      await this.db.run("UPDATE calls SET outcome = 'ok', finished_at = ?, detail = ? WHERE id = ? AND outcome = 'pending'", [Date.now(), p.detail, callId]);
      return;
    }
    if (outcome === "ok") {
      await this.db.tx(async (t) => {
        await t.run("UPDATE calls SET outcome = 'ok', finished_at = ?, payment_tx = ?, detail = ? WHERE id = ? AND outcome = 'pending'", [Date.now(), p.paymentTx, p.detail, callId]);
        await t.run("UPDATE payment_nonces SET state = 'settled' WHERE id = (SELECT payment_ref FROM calls WHERE id = ?)", [callId]);
      });
      return;
    }
    await this.db.tx(async (t) => {
      const [row] = await t.all("SELECT * FROM calls WHERE id = ? AND outcome = 'pending'", [callId]);
      if (row) await this.giveBack(t, row, "error", p.detail, true);
    });
  }

  async recoverInterrupted(before: number): Promise<number> {
    return this.db.tx(async (t) => {
      const rows = await t.all("SELECT * FROM calls WHERE outcome = 'pending' AND at < ?", [before]);
      // An x402 payment may or may not have settled before the process died: its nonce stays used.
      for (const row of rows) await this.giveBack(t, row, "interrupted", "the service stopped during the call", false);
      return rows.length;
    });
  }

  private async giveBack(t: Db, row: Row, outcome: "error" | "interrupted", detail: string | undefined, releaseNonce: boolean): Promise<void> {
    const now = Date.now();
    await t.run("UPDATE calls SET outcome = ?, finished_at = ?, detail = ? WHERE id = ?", [outcome, now, detail?.slice(0, 500), row.id]);
    for (const bucket of JSON.parse(String(row.buckets)) as string[]) {
      await t.run("UPDATE allowance_usage SET used = used - 1 WHERE bucket = ? AND principal = ? AND day = ? AND used > 0", [bucket, row.principal, row.day]);
    }
    if (row.paid_by === "credit") {
      await t.run("UPDATE api_keys SET credit_micro = credit_micro + ? WHERE id = ?", [row.price_micro, row.key_id]);
      await t.run("INSERT INTO credit_entries (id, key_id, at, delta_micro, kind, ref, call_id, note) VALUES (?, ?, ?, ?, 'refund', NULL, ?, ?)", [randomUUID(), row.key_id, now, row.price_micro, row.id, `${outcome}: ${row.endpoint}`]);
    }
    if (row.payment_ref && releaseNonce) await t.run("DELETE FROM payment_nonces WHERE id = ?", [row.payment_ref]);
  }

  async claimNonce(ref: string): Promise<boolean> {
    return (await this.db.run("INSERT INTO payment_nonces (id, state, at) VALUES (?, 'in_flight', ?) ON CONFLICT (id) DO NOTHING", [ref, Date.now()])) === 1;
  }

  async releaseNonce(ref: string): Promise<void> {
    await this.db.run("DELETE FROM payment_nonces WHERE id = ? AND state = 'in_flight'", [ref]);
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
      await t.run("INSERT INTO credit_entries (id, key_id, at, delta_micro, kind, ref, call_id, note) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)", [randomUUID(), e.keyId, Date.now(), e.deltaMicro, e.kind, e.ref, e.note]);
      return true;
    });
  }

  async creditEntries(keyId: string): Promise<(CreditEntry & { at: number })[]> {
    const rows = await this.db.all("SELECT * FROM credit_entries WHERE key_id = ? ORDER BY at, id", [keyId]);
    return rows.map((r) => ({ keyId: String(r.key_id), at: Number(r.at), deltaMicro: Number(r.delta_micro), kind: String(r.kind), ref: (r.ref as string | null) ?? undefined, note: (r.note as string | null) ?? undefined }));
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
