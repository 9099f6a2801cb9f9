// The same store suite against both backends: embedded SQLite and PostgreSQL (127.0.0.1:5432, database test,
// a schema of its own per run, dropped at the end).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { openStore } from "../engine/store/index.ts";
import type { Store } from "../engine/store/types.ts";
import { tempDir } from "./helpers.ts";
import { TEST_DATABASE_URL, testSchema } from "./support/x402-postgres.ts";

const DAY = "2026-11-21";

/** Each backend: how to open (and reopen) one database, and how to remove it. */
const backends: [string, () => Promise<{ open(): Promise<Store>; cleanup(): Promise<void> }>][] = [
  ["SQLite", async () => {
    const dataDir = tempDir();
    return { open: () => openStore({ dataDir }), cleanup: async () => {} };
  }],
  ["PostgreSQL", async () => {
    const s = await testSchema();
    return { open: () => openStore({ dataDir: tempDir(), databaseUrl: TEST_DATABASE_URL, schema: s.schema }), cleanup: s.drop };
  }],
];

for (const [name, open] of backends) {
  describe(`store on ${name}`, () => {
    let store: Store;
    let backend: { open(): Promise<Store>; cleanup(): Promise<void> };
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

    it("never lets concurrent calls take more than a bucket holds", async () => {
      const principal = `key:${randomUUID()}`;
      const results = await Promise.all(Array.from({ length: 40 }, () =>
        store.beginCall({ endpoint: "g/e", principal, channel: "mcp", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:race", limit: 7 }] })));
      assert.equal(results.filter((r) => r.ok).length, 7);
      assert.equal((await store.usage(principal, DAY)).get("group:race"), 7);
    });

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

    it("gives back what calls interrupted by a crash had reserved", async () => {
      const principal = `key:${randomUUID()}`;
      const call = await store.beginCall({ endpoint: "g/e", principal, channel: "http", priceMicro: 1000, paidBy: "allowance", day: DAY, buckets: [{ id: "group:crash", limit: 5 }] });
      assert.ok(call.ok);
      assert.ok((await store.recoverInterrupted(Date.now() + 1)) >= 1);
      assert.equal((await store.usage(principal, DAY)).get("group:crash"), 0);
      assert.equal((await store.calls({ principal }))[0].outcome, "interrupted");
    });

    it("runs its migrations once: opening the same database again keeps the data", async () => {
      await store.close();
      store = await backend.open();
      assert.ok(await store.findKey("h-a"));
    });
  });
}
