// The same store suite against both backends: embedded SQLite and PostgreSQL (127.0.0.1:5432, database test,
// a schema of its own per run, dropped at the end).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { openStore } from "../../engine/access/store/index.ts";
import { openSqlite } from "../../engine/access/store/sqlite.ts";
import { openPostgres } from "../../engine/access/store/postgres.ts";
import { GroupCommit } from "../../engine/access/store/group-commit.ts";
import { StatementBatch } from "../../engine/access/store/statement-batch.ts";
import type { Db } from "../../engine/access/store/db.ts";
import type { Store } from "../../engine/access/store/types.ts";
import { tempDir } from "../support/helpers.ts";
import { TEST_DATABASE_URL, testSchema } from "../support/x402-postgres.ts";

interface Backend {
  open(opts?: { leaseMs?: number }): Promise<Store>;
  /** The driver alone, on the same database. */
  db(): Promise<Db>;
  /** A statement straight on the database, as another process would run it. */
  sql(statement: string, params?: (string | number)[]): Promise<void>;
  cleanup(): Promise<void>;
}

const DAY = "2026-11-21";

/** Each backend: how to open (and reopen) one database, and how to remove it. */
const backends: [string, () => Promise<Backend>][] = [
  ["SQLite", async () => {
    const dataDir = tempDir();
    return {
      open: (opts = {}) => openStore({ dataDir, ...opts }),
      db: async () => openSqlite(path.join(dataDir, "access.sqlite")),
      sql: async (statement, params = []) => {
        const db = new DatabaseSync(path.join(dataDir, "access.sqlite"));
        db.prepare(statement).run(...params);
        db.close();
      },
      cleanup: async () => {},
    };
  }],
  ["PostgreSQL", async () => {
    const s = await testSchema();
    return {
      open: (opts = {}) => openStore({ dataDir: tempDir(), databaseUrl: TEST_DATABASE_URL, schema: s.schema, ...opts }),
      db: () => openPostgres(TEST_DATABASE_URL, s.schema),
      sql: async (statement, params = []) => {
        const c = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${s.schema}` });
        await c.connect();
        let i = 0;
        await c.query(statement.replace(/\?/g, () => `$${++i}`), params);
        await c.end();
      },
      cleanup: s.drop,
    };
  }],
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const [name, open] of backends) {
  describe(`store on ${name}`, () => {
    let store: Store;
    let backend: Backend;
    before(async () => {
      backend = await open();
      store = await backend.open();
    });
    after(async () => {
      await store?.close();
      await backend?.cleanup();
    });

    it("mints keys stored by hash, at most maxPerDay per client and day", async () => {
      const a = await store.mintKey({ hash: "h-a", clientId: "10.0.0.1", day: DAY, maxPerDay: 2 });
      const b = await store.mintKey({ hash: "h-b", clientId: "10.0.0.1", day: DAY, maxPerDay: 2 });
      const c = await store.mintKey({ hash: "h-c", clientId: "10.0.0.1", day: DAY, maxPerDay: 2 });
      const other = await store.mintKey({ hash: "h-d", clientId: "10.0.0.2", day: DAY, maxPerDay: 2 });
      const tomorrow = await store.mintKey({ hash: "h-e", clientId: "10.0.0.1", day: "2026-11-22", maxPerDay: 2 });
      assert.ok(a && b && other && tomorrow);
      assert.equal(c, undefined);
      assert.equal((await store.findKey("h-a"))?.id, a.id);
      assert.equal(await store.findKey("h-c"), undefined);
      assert.equal((await store.keyById(b.id))?.creditMicro, 0);
    });

    it("counts a call against every bucket, and refuses when any bucket is full (counting none)", async () => {
      const principal = `key:${randomUUID()}`;
      const buckets = [{ id: "group:g", limit: 3 }, { id: "endpoint:g/e", limit: 1 }];
      const first = await store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets });
      assert.ok(first.ok);
      const second = await store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets });
      assert.deepEqual(second, { ok: false, reason: "allowance", bucket: "endpoint:g/e" });
      assert.deepEqual(Object.fromEntries(await store.usage(principal, DAY)), { "group:g": 1, "endpoint:g/e": 1 });
      const zero = await store.beginCall({ endpoint: "g/f", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:none", limit: 0 }] });
      assert.equal(zero.ok, false);
    });

    it("gives the allowance back when the call fails, and keeps it when it succeeds", async () => {
      const principal = `key:${randomUUID()}`;
      const buckets = [{ id: "group:g", limit: 5 }];
      const ok = await store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets });
      const bad = await store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets });
      assert.ok(ok.ok && bad.ok);
      await store.finishCall(ok.callId, "ok");
      await store.finishCall(bad.callId, "error", { detail: "upstream 502" });
      assert.equal((await store.usage(principal, DAY)).get("group:g"), 1);
      const ledger = await store.calls({ principal });
      assert.deepEqual(ledger.map((c) => [c.outcome, c.paidBy, c.priceMicro]).sort(), [["error", "allowance", 1000], ["ok", "allowance", 1000]]);
    });

    it("records a call whose answer was at hand as ok in one step, which no recovery gives back", async () => {
      const principal = `key:${randomUUID()}`;
      const crashed = await backend.open();
      const buckets = [{ id: "group:final", limit: 2 }];
      const calls = await Promise.all(Array.from({ length: 3 }, () =>
        crashed.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets, final: true })));
      assert.deepEqual(calls.map((c) => c.ok).sort(), [false, true, true]);
      await crashed.close();
      assert.equal(await store.recoverInterrupted({ othersGone: true }), 0);
      assert.deepEqual((await store.calls({ principal })).map((c) => c.outcome), ["ok", "ok"]);
      assert.equal((await store.usage(principal, DAY)).get("group:final"), 2);
    });


    it("gives back an allowance call recorded as final at once when it fails (once) or the service stops, never a credit call that finished", async () => {
      const principal = `key:${randomUUID()}`;
      const buckets = [{ id: "group:g", limit: 5 }, { id: "endpoint:g/e", limit: 5 }];
      const failed = await store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets, final: true });
      const kept = await store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets, final: true });
      assert.ok(failed.ok && kept.ok);
      await store.finishCall(failed.callId, "error", { detail: "502 upstream_error" });
      await store.finishCall(failed.callId, "error", { detail: "502 upstream_error" });
      assert.deepEqual(Object.fromEntries(await store.usage(principal, DAY)), { "group:g": 1, "endpoint:g/e": 1 });
      assert.deepEqual((await store.calls({ principal })).map((c) => c.outcome).sort(), ["error", "ok"]);

      const key = (await store.mintKey({ hash: randomUUID(), clientId: "final-credit", day: DAY, maxPerDay: 1 }))!;
      await store.addCredit({ keyId: key.id, deltaMicro: 5000, kind: "grant" });
      const paid = await store.beginCall({ endpoint: "g/e", principal: `key:${key.id}`, channel: "http", priceMicro: 1000, paidBy: "credit", day: DAY, keyId: key.id, final: true });
      assert.ok(paid.ok);
      await store.finishCall(paid.callId, "error", { detail: "too late" });
      assert.equal((await store.keyById(key.id))!.creditMicro, 4000);

      // A stop with the other allowance call still running gives it back; the credit call is not touched.
      await store.interruptCalls([kept.callId, paid.callId]);
      assert.deepEqual(Object.fromEntries(await store.usage(principal, DAY)), { "group:g": 0, "endpoint:g/e": 0 });
      assert.deepEqual((await store.calls({ principal })).map((c) => c.outcome).sort(), ["error", "interrupted"]);
      assert.equal((await store.keyById(key.id))!.creditMicro, 4000);
    });
    it("never lets concurrent calls take more than a bucket holds", async () => {
      const principal = `key:${randomUUID()}`;
      const results = await Promise.all(Array.from({ length: 40 }, () =>
        store.beginCall({ endpoint: "g/e", principal, channel: "mcp", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:race", limit: 7 }] })));
      assert.equal(results.filter((r) => r.ok).length, 7);
      assert.equal((await store.usage(principal, DAY)).get("group:race"), 7);
    });

    it("counts the calls of one batch each in turn: each is told its own count, and a refused one counts nothing", async () => {
      const [p, q] = [`key:${randomUUID()}`, `key:${randomUUID()}`];
      const own = [{ id: "group:g", limit: 5 }, { id: "endpoint:g/e", limit: 2 }];
      const group = [{ id: "group:g", limit: 5 }];
      const begin = (principal: string, buckets: typeof own, final = false) =>
        store.beginCall({ endpoint: buckets === own ? "g/e" : "g/f", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets, final });
      // Begun in one turn of the event loop, so they are counted together; q's calls interleave with p's.
      const results = await Promise.all([begin(p, own, true), begin(q, group), begin(p, own), begin(p, own), begin(q, own, true), begin(p, group),
        begin(p, group), begin(p, group), begin(p, group)]);
      const seen = results.map((r) => (r.ok ? Object.fromEntries(r.used!) : `full ${r.bucket}`));
      assert.deepEqual(seen, [
        { "group:g": 1, "endpoint:g/e": 1 }, { "group:g": 1 }, { "group:g": 2, "endpoint:g/e": 2 }, "full endpoint:g/e",
        { "group:g": 2, "endpoint:g/e": 1 }, { "group:g": 3 }, { "group:g": 4 }, { "group:g": 5 }, "full group:g",
      ]);
      assert.deepEqual(Object.fromEntries(await store.usage(p, DAY)), { "group:g": 5, "endpoint:g/e": 2 });
      assert.deepEqual(Object.fromEntries(await store.usage(q, DAY)), { "group:g": 2, "endpoint:g/e": 1 });
      const ledger = await store.calls({ principal: p });
      assert.deepEqual(ledger.map((c) => c.id).sort(), results.filter((r, i) => r.ok && i !== 1 && i !== 4).map((r) => (r as { callId: string }).callId).sort());
      assert.deepEqual(ledger.map((c) => c.outcome).sort(), ["ok", "pending", "pending", "pending", "pending"]);
    });

    if (name === "PostgreSQL") {
      it("keeps counting allowance calls after the connection their statement uses was cut", async () => {
        const principal = `key:${randomUUID()}`;
        const begin = () => store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:cut", limit: 5 }] });
        assert.ok((await begin()).ok);
        await backend.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%begin_allowance_calls%'");
        const after = await Promise.all([begin(), begin()]);
        assert.deepEqual(after.map((r) => r.ok && Object.fromEntries(r.used!)), [{ "group:cut": 2 }, { "group:cut": 3 }]);
        assert.equal((await store.calls({ principal })).length, 3);
      });
    }

    it("keeps credit as an append-only ledger that never goes negative, applying a reference once", async () => {
      const key = (await store.mintKey({ hash: `h-${randomUUID()}`, clientId: "10.0.0.9", day: DAY, maxPerDay: 10 }))!;
      assert.equal(await store.addCredit({ keyId: key.id, deltaMicro: 2500, kind: "stripe", ref: "cs_1" }), true);
      assert.equal(await store.addCredit({ keyId: key.id, deltaMicro: 2500, kind: "stripe", ref: "cs_1" }), false);
      assert.equal(await store.addCredit({ keyId: key.id, deltaMicro: -9000, kind: "grant" }), false);
      const principal = `key:${key.id}`;
      const spend = () => store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "credit", day: DAY, keyId: key.id });
      const results = await Promise.all([spend(), spend(), spend(), spend()]);
      assert.equal(results.filter((r) => r.ok).length, 2);
      assert.equal((await store.keyById(key.id))?.creditMicro, 500);
      const failed = results.find((r) => r.ok)!;
      await store.finishCall((failed as { callId: string }).callId, "error");
      assert.equal((await store.keyById(key.id))?.creditMicro, 1500);
      const entries = await store.creditEntries(key.id);
      assert.deepEqual(entries.map((e) => `${e.kind} ${e.deltaMicro}`).sort(), ["call -1000", "call -1000", "refund 1000", "stripe 2500"]);
      assert.equal(entries.reduce((s, e) => s + e.deltaMicro, 0), 1500);
    });

    it("claims a payment nonce once, also under concurrency, and frees it only while unsettled", async () => {
      const ref = `eip155:31337:0xtoken:0xpayer:${randomUUID()}`;
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimNonce(ref)));
      assert.equal(claims.filter(Boolean).length, 1);
      await store.releaseNonce(ref);
      assert.equal(await store.claimNonce(ref), true);
      const call = await store.beginCall({ endpoint: "g/e", principal: "x402:0xpayer", channel: "http", priceMicro: 1000, paidBy: "x402", day: DAY, paymentRef: ref });
      assert.ok(call.ok);
      await store.finishCall(call.callId, "ok", { paymentTx: "0xabc" });
      await store.releaseNonce(ref);
      assert.equal(await store.claimNonce(ref), false);
    });

    it("gives back what the calls of a stopped instance had reserved, and never its own", async () => {
      const principal = `key:${randomUUID()}`;
      const crashed = await backend.open();
      const call = await crashed.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:crash", limit: 5 }] });
      const own = await store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:crash", limit: 5 }] });
      assert.ok(call.ok && own.ok);
      await crashed.close();
      assert.equal(await store.recoverInterrupted({ othersGone: true }), 1);
      assert.equal((await store.usage(principal, DAY)).get("group:crash"), 1);
      assert.deepEqual((await store.calls({ principal })).map((c) => c.outcome).sort(), ["interrupted", "pending"]);
      await store.finishCall(own.callId, "ok");
    });

    it("gives each interrupted call back exactly once when two instances recover the same crash at once", async () => {
      const key = (await store.mintKey({ hash: `h-${randomUUID()}`, clientId: "10.0.0.10", day: DAY, maxPerDay: 10 }))!;
      await store.addCredit({ keyId: key.id, deltaMicro: 1_000_000, kind: "grant" });
      const principal = `key:${key.id}`;
      const crashed = await backend.open();
      for (let i = 0; i < 100; i++) {
        const r = await crashed.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: i % 2 ? "credit" : "allowance", day: DAY, keyId: key.id, buckets: [{ id: "group:twice", limit: 1000 }] });
        assert.ok(r.ok);
      }
      await crashed.close();
      const [one, two] = [await backend.open(), await backend.open()];
      const recovered = await Promise.all([one.recoverInterrupted(), two.recoverInterrupted(), one.recoverInterrupted(), two.recoverInterrupted()]);
      await Promise.all([one.close(), two.close()]);
      assert.equal(recovered.reduce((a, b) => a + b, 0), 100);
      const entries = await store.creditEntries(key.id);
      assert.equal(entries.filter((e) => e.kind === "refund").length, 50);
      assert.equal((await store.keyById(key.id))?.creditMicro, 1_000_000);
      assert.equal(entries.reduce((s, e) => s + e.deltaMicro, 0), 1_000_000);
      const ledger = await store.calls({ principal });
      assert.equal(ledger.filter((c) => c.outcome === "interrupted").length, 100);
      assert.equal((await store.usage(principal, DAY)).get("group:twice") ?? 0, ledger.filter((c) => c.outcome === "ok" && c.paidBy === "allowance").length);
    });

    it("never gives back the calls of a live instance, however long they run", async () => {
      const principal = `key:${randomUUID()}`;
      const live = await backend.open({ leaseMs: 150 });
      const call = await live.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:live", limit: 5 }] });
      assert.ok(call.ok);
      await sleep(500);
      const other = await backend.open({ leaseMs: 150 });
      assert.equal(await other.recoverInterrupted(), 0);
      await other.close();
      await live.finishCall(call.callId, "ok");
      await live.close();
      assert.deepEqual((await store.calls({ principal })).map((c) => c.outcome), ["ok"]);
      assert.equal((await store.usage(principal, DAY)).get("group:live"), 1);
    });

    it("records a call that finishes after its silent instance's charge was given back, and charges it again", async () => {
      const key = (await store.mintKey({ hash: `h-${randomUUID()}`, clientId: "10.0.0.11", day: DAY, maxPerDay: 10 }))!;
      await store.addCredit({ keyId: key.id, deltaMicro: 1500, kind: "grant" });
      const principal = `key:${key.id}`;
      const silent = (await backend.open()) as Store & { instanceId: string };
      const free = await silent.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:late", limit: 5 }] });
      const paid = await silent.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "credit", day: DAY, keyId: key.id });
      assert.ok(free.ok && paid.ok);
      await backend.sql("UPDATE instances SET expires_at = 0 WHERE id = ?", [silent.instanceId]);
      assert.equal(await store.recoverInterrupted(), 2);
      assert.equal((await store.keyById(key.id))?.creditMicro, 1500);
      await silent.finishCall(free.callId, "ok");
      await silent.finishCall(paid.callId, "ok");
      await silent.close();
      assert.deepEqual((await store.calls({ principal })).map((c) => `${c.paidBy} ${c.outcome}`).sort(), ["allowance ok", "credit ok"]);
      assert.equal((await store.usage(principal, DAY)).get("group:late"), 1);
      assert.equal((await store.keyById(key.id))?.creditMicro, 500);
      assert.equal((await store.creditEntries(key.id)).reduce((s, e) => s + e.deltaMicro, 0), 500);
    });

    it("applies each write of a group commit once when another write of its batch fails", async () => {
      const db = await backend.db();
      await db.run("CREATE TABLE probe (id TEXT PRIMARY KEY)");
      const batch = new GroupCommit(db);
      const insert = (...ids: string[]) => batch.run(async (t) => {
        for (const id of ids) {
          await t.run("INSERT INTO probe (id) VALUES (?)", [id]);
          await sleep(20);
        }
        return ids.length;
      });
      // One batch, its writes sent together: the two-statement write sends its second statement well after the next
      // write failed (never outside the batch's transaction), and the duplicate fails only once the writes run alone.
      const results = await Promise.allSettled([insert("a", "b"), batch.run((t) => t.run("INSERT INTO no_such_table VALUES (1)")), insert("c"), insert("a")]);
      assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled", "rejected"]);
      assert.deepEqual((await db.all<{ id: string }>("SELECT id FROM probe ORDER BY id")).map((r) => r.id), ["a", "b", "c"]);
      await db.close();
    });

    it("claims an idempotency id once, also under concurrency; the answer kept is what any later claim finds", async () => {
      const id = { scope: `key:${randomUUID()}`, id: "retry-1", fingerprint: "f1", expiresAt: Date.now() + 60_000 };
      const claims = await Promise.all(Array.from({ length: 8 }, () => store.claimOnce(id)));
      assert.equal(claims.filter((c) => c.claimed).length, 1);
      assert.deepEqual(claims.find((c) => !c.claimed), { claimed: false, fingerprint: "f1" }, "still running: no answer yet");
      await store.keepOnce(id.scope, id.id, "{\"status\":200}");
      const other = await backend.open();
      assert.deepEqual(await other.claimOnce({ ...id, fingerprint: "f2" }), { claimed: false, fingerprint: "f1", answer: "{\"status\":200}" }, "another instance finds it");
      await other.close();
      assert.equal((await store.claimOnce({ ...id, scope: `key:${randomUUID()}` })).claimed, true, "another principal's key of the same name is its own");
    });

    it("lets a failed call's idempotency id go, and takes over one past its expiry", async () => {
      const scope = `mcp:${randomUUID()}`;
      assert.equal((await store.claimOnce({ scope, id: "failed", fingerprint: "f", expiresAt: Date.now() + 60_000 })).claimed, true);
      await store.releaseOnce(scope, "failed");
      assert.equal((await store.claimOnce({ scope, id: "failed", fingerprint: "g", expiresAt: Date.now() + 60_000 })).claimed, true);
      await store.keepOnce(scope, "failed", "{}");
      await store.releaseOnce(scope, "failed");
      assert.equal((await store.claimOnce({ scope, id: "failed", fingerprint: "g", expiresAt: Date.now() + 60_000 })).claimed, false, "an answered call is not let go");
      assert.equal((await store.claimOnce({ scope, id: "old", fingerprint: "f", expiresAt: Date.now() - 1 })).claimed, true);
      await store.keepOnce(scope, "old", "{}");
      assert.deepEqual(await store.claimOnce({ scope, id: "old", fingerprint: "h", expiresAt: Date.now() + 60_000 }), { claimed: true }, "expired: a new call's");
    });

    it("frees the idempotency claims of a stopped instance (never a live one's) and forgets the expired records", async () => {
      const scope = `key:${randomUUID()}`;
      const crashed = await backend.open();
      const live = await backend.open();
      const claim = (s: Store, id: string, expiresAt = Date.now() + 60_000) => s.claimOnce({ scope, id, fingerprint: "f", expiresAt });
      assert.ok((await claim(crashed, "crashed")).claimed && (await claim(live, "live")).claimed && (await claim(store, "expired", Date.now() - 1)).claimed);
      await store.keepOnce(scope, "expired", "{}");
      await crashed.close();
      await store.recoverInterrupted();
      assert.equal((await claim(store, "crashed")).claimed, true, "the stopped instance's claim is free");
      assert.equal((await claim(store, "live")).claimed, false, "the live one's is not");
      const db = await backend.db();
      const [row] = await db.all("SELECT COUNT(*) AS n FROM idempotency WHERE scope = ? AND id = ?", [scope, "expired"]);
      assert.equal(Number(row.n), 0, "the expired record is gone");
      await db.close();
      await live.close();
    });

    it("runs its migrations once: opening the same database again keeps the data", async () => {
      await store.close();
      store = await backend.open();
      assert.ok(await store.findKey("h-a"));
    });
  });
}

describe("statement batch", () => {
  it("sends what is asked in one turn as one statement, and when that fails, tries each item alone", async () => {
    const sent: number[][] = [];
    const batch = new StatementBatch<number, number>(async (items) => {
      sent.push(items);
      if (items.includes(13)) throw new Error("unlucky");
      return items.map((n) => n * 2);
    });
    const results = await Promise.allSettled([1, 13, 3].map((n) => batch.run(n)));
    assert.deepEqual(results.map((r) => (r.status === "fulfilled" ? r.value : "rejected")), [2, "rejected", 6]);
    assert.deepEqual(sent, [[1, 13, 3], [1], [13], [3]]);
    assert.equal(await batch.run(4), 8);
  });
});
