// Several instances behind a load balancer: two servers on one PostgreSQL schema share keys, allowances, credit
// and the x402 replay guard. (PostgreSQL at 127.0.0.1:5432, database test; a schema of this run, dropped after.)
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { wrapFetchWithPayment } from "@x402/fetch";
import { appendPaymentIdentifierToExtensions, generatePaymentId } from "@x402/extensions/payment-identifier";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { startX402Chain, type X402Chain } from "../support/x402-chain.ts";
import { GROUP_ALLOWANCE, smallAllowanceEndpoints, startAccessServer } from "../support/x402-service.ts";
import { TEST_DATABASE_URL, testSchema } from "../support/x402-postgres.ts";
import { fixture, getJson, startTestServer } from "../support/helpers.ts";
import { openStore } from "../../engine/access/store/index.ts";
import { hashKey, newApiKey, utcDay } from "../../engine/access/keys.ts";

describe("two instances on PostgreSQL", function () {
  this.timeout(60_000);
  let chain: X402Chain;
  let schema: Awaited<ReturnType<typeof testSchema>>;
  let one: Running;
  let two: Running;

  before(async () => {
    chain = await startX402Chain();
    schema = await testSchema();
    const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema.schema };
    [one, two] = await Promise.all([startAccessServer(chain, env), startAccessServer(chain, env)]);
  });
  after(async () => {
    await one?.close();
    await two?.close();
    await chain?.close();
    await schema?.drop();
    nock.cleanAll();
  });

  const bankRate = (server: Running, from = "2025-08-01") => `${server.url}/v1/bank-of-england/bank-rate?from=${from}`;

  it("a key minted on one instance works on the other, and the allowance is one bucket across both", async () => {
    const { key, record } = (await (one.engine.access as AccessService).mintKey("10.7.0.1"))!;
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => getJson(bankRate(i % 2 ? one : two), { "X-API-Key": key })));
    assert.equal(results.filter((r) => r.status === 200).length, GROUP_ALLOWANCE.key);
    const account = await getJson(`${two.url}/account`, { "X-API-Key": key });
    assert.equal(account.body.allowance.find((b: { bucket: string }) => b.bucket === "group:bank-of-england").used, GROUP_ALLOWANCE.key);
    // The counter and the ledger agree: one row per call answered, none for a refused one.
    const ledger = await (two.engine.access as AccessService).store.calls({ principal: `key:${record.id}` });
    assert.deepEqual(ledger.map((c) => `${c.paidBy} ${c.outcome}`), Array(GROUP_ALLOWANCE.key).fill("allowance ok"));
  });

  it("runs one x402 signature once even when it reaches both instances at the same time", async () => {
    const pr = decodePaymentRequiredHeader((await fetch(bankRate(one))).headers.get("payment-required")!);
    const header = encodePaymentSignatureHeader(await chain.createPaymentPayload(pr));
    const before = await chain.balanceOf(chain.payTo);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => getJson(bankRate(i % 2 ? one : two), { "PAYMENT-SIGNATURE": header })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 402, 402, 402, 402, 402]);
    assert.equal(await chain.balanceOf(chain.payTo), before + 1000n);
  });

  it("a retry with the same Idempotency-Key on the other instance gets the first answer, and is charged once", async () => {
    const access = one.engine.access as AccessService;
    const { key, record } = (await access.mintKey("10.7.0.3"))!;
    for (let i = 0; i < GROUP_ALLOWANCE.key; i++) await getJson(bankRate(one), { "X-API-Key": key });
    await access.store.addCredit({ keyId: record.id, deltaMicro: 3000, kind: "grant" });
    const headers = { "X-API-Key": key, "Idempotency-Key": "two-instances-1" };
    const first = await getJson(bankRate(one), headers);
    const retry = await getJson(bankRate(two), headers);
    assert.equal(first.body.meta.paid_by, "credit");
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(retry.body, first.body);
    const other = await getJson(bankRate(two, "2025-08-02"), headers);
    assert.equal(other.status, 422);
    assert.equal((await access.store.keyById(record.id))?.creditMicro, 2000);
    // At once on both instances: one runs, the others wait for it or get its answer.
    const together = { ...headers, "Idempotency-Key": "two-instances-2" };
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => getJson(bankRate(i % 2 ? one : two, "2025-08-03"), together)));
    assert.equal(results.filter((r) => r.status === 200 && !r.headers.get("idempotent-replayed")).length, 1);
    assert.ok(results.every((r) => r.status === 200 || r.body.code === "idempotency_key_in_use"));
    assert.equal((await access.store.keyById(record.id))?.creditMicro, 1000);
  });

  it("a payment retried on the other instance with the same payment identifier is settled once", async () => {
    const client = chain.newClient();
    const id = generatePaymentId();
    client.onBeforePaymentCreation(async ({ paymentRequired }) => void appendPaymentIdentifierToExtensions(paymentRequired.extensions!, id));
    const pay = wrapFetchWithPayment(fetch, client);
    const settled = chain.settleRequests();
    const first = await pay(bankRate(one, "2025-08-04"));
    const retry = await pay(bankRate(two, "2025-08-04"));
    assert.deepEqual([first.status, retry.status], [200, 200]);
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.equal(chain.settleRequests(), settled + 1);
  });

  it("never spends credit below zero across instances", async () => {
    const access = one.engine.access as AccessService;
    const { key, record } = (await access.mintKey("10.7.0.2"))!;
    for (let i = 0; i < GROUP_ALLOWANCE.key; i++) await getJson(bankRate(one), { "X-API-Key": key });
    await access.store.addCredit({ keyId: record.id, deltaMicro: 3000, kind: "grant" });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => getJson(bankRate(i % 2 ? one : two), { "X-API-Key": key })));
    assert.equal(results.filter((r) => r.status === 200).length, 3);
    assert.equal((await access.store.keyById(record.id))?.creditMicro, 0);
  });
});

describe("interrupted calls on PostgreSQL", function () {
  this.timeout(60_000);
  const day = utcDay().day;
  let schema: Awaited<ReturnType<typeof testSchema>>;
  const servers: Running[] = [];
  /** An instance of the service on this test's schema, its calls given back by lease after PENDING_STALE_SECONDS=1. */
  const instance = async (env: Record<string, string> = {}) => {
    const server = await startTestServer({
      env: { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema.schema, PENDING_STALE_SECONDS: "1", ...env },
      config: { endpointsDir: smallAllowanceEndpoints(), upstreamTimeoutMs: 10_000 },
    });
    servers.push(server);
    return server;
  };
  beforeEach(async () => {
    schema = await testSchema();
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    await schema.drop();
  });

  it("two instances starting together after a crash give each interrupted call back exactly once", async () => {
    const crashed = await openStore({ dataDir: "", databaseUrl: TEST_DATABASE_URL, schema: schema.schema });
    const key = (await crashed.mintKey({ hash: hashKey(newApiKey()), clientId: "crash", day, maxPerDay: 10 }))!;
    await crashed.addCredit({ keyId: key.id, deltaMicro: 1_000_000, kind: "grant" });
    const principal = `key:${key.id}`;
    for (let i = 0; i < 100; i++) {
      const paidBy = i % 2 ? "credit" : "allowance";
      await crashed.beginCall({ endpoint: "bank-of-england/bank-rate", principal, channel: "http", priceMicro: 1000, paidBy, day, keyId: key.id, buckets: [{ id: "group:bank-of-england", limit: 1000 }] });
    }
    await crashed.close();
    await new Promise((r) => setTimeout(r, 1100));
    const [one] = await Promise.all([instance(), instance()]);
    const store = (one.engine.access as AccessService).store;
    const ledger = await store.calls({ principal });
    assert.deepEqual([...new Set(ledger.map((c) => c.outcome))], ["interrupted"]);
    const entries = await store.creditEntries(key.id);
    assert.equal(entries.filter((e) => e.kind === "refund").length, 50, "each credit call refunded once");
    assert.equal((await store.keyById(key.id))?.creditMicro, 1_000_000);
    assert.equal(entries.reduce((sum, e) => sum + e.deltaMicro, 0), 1_000_000);
    assert.equal((await store.usage(principal, day)).get("group:bank-of-england"), 0, "allowance used = ok calls in the ledger (none)");
  });

  it("a sweep never gives back a call that is still running: calls of 3 s with a 1 s lease are charged once, as answered", async () => {
    const csv = fixture("bank-of-england:IUDBEDR.csv");
    const slow = http.createServer((_req, res) => void setTimeout(() => res.writeHead(200, { "content-type": "application/csv" }).end(csv), 3000));
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", () => r()));
    try {
      const env = { UPSTREAM_BANK_OF_ENGLAND: `http://127.0.0.1:${(slow.address() as AddressInfo).port}` };
      const [one] = await Promise.all([instance(env), instance(env)]);
      const access = one.engine.access as AccessService;
      const free = (await access.mintKey("10.7.1.1"))!;
      const paid = (await access.mintKey("10.7.1.2"))!;
      await access.store.addCredit({ keyId: paid.record.id, deltaMicro: 1_000_000, kind: "grant" });
      for (let i = 0; i < GROUP_ALLOWANCE.key; i++) {
        const r = await access.store.beginCall({ endpoint: "bank-of-england/bank-rate", principal: `key:${paid.record.id}`, channel: "http", priceMicro: 1000, paidBy: "allowance", day, buckets: [{ id: "group:bank-of-england", limit: GROUP_ALLOWANCE.key }] });
        assert.ok(r.ok);
        await access.store.finishCall(r.callId, "ok");
      }
      const calls = Array.from({ length: 8 }, (_, i) => getJson(`${one.url}/v1/bank-of-england/bank-rate?from=2024-02-0${1 + (i >> 1)}`, { "X-API-Key": i % 2 ? paid.key : free.key }));
      const results = await Promise.all(calls);
      assert.deepEqual(results.map((r) => r.status), Array(8).fill(200));
      assert.deepEqual(results.map((r) => r.body.meta.paid_by), Array.from({ length: 8 }, (_, i) => (i % 2 ? "credit" : "allowance")));
      const paidLedger = (await access.store.calls({ principal: `key:${paid.record.id}` })).filter((c) => c.paidBy === "credit");
      assert.deepEqual(paidLedger.map((c) => c.outcome), ["ok", "ok", "ok", "ok"]);
      assert.equal((await access.store.keyById(paid.record.id))?.creditMicro, 1_000_000 - 4000);
      assert.equal((await access.store.creditEntries(paid.record.id)).filter((e) => e.kind === "refund").length, 0);
      const freeLedger = await access.store.calls({ principal: `key:${free.record.id}` });
      assert.deepEqual(freeLedger.map((c) => c.outcome), ["ok", "ok", "ok", "ok"]);
      assert.equal((await access.store.usage(`key:${free.record.id}`, day)).get("group:bank-of-england"), 4);
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
