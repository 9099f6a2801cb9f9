// Test mode (docs/test-mode.md): a test key (POST /free?mode=test) gets every endpoint's answer from its own
// examples, through the real pipeline and the real access layer (SQLite), without ever opening an upstream
// connection and without being charged; a live key never gets a test answer.
import assert from "node:assert/strict";
import nock from "nock";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { x402Client } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { fixture, getJson, pick, queryString, startTestServer } from "../support/helpers.ts";
import { watchNetwork } from "../support/network-watch.ts";
import { TESTNET_X402_ENV } from "../support/x402-service.ts";
import { clock, withClock } from "../../engine/basics/clock.ts";


describe("test mode (test keys)", function () {
  this.timeout(600_000);
  let server: Running;
  let access: AccessService;
  let testKey: string;
  let liveKey: string;
  let watch: ReturnType<typeof watchNetwork>;

  before(async () => {
    server = await startTestServer({ env: TESTNET_X402_ENV });
    access = server.engine.access as AccessService;
    watch = watchNetwork(() => Number(new URL(server.url).port));
    const minted = await fetch(`${server.url}/free?mode=test`, { method: "POST" });
    assert.equal(minted.status, 201);
    const body = (await minted.json()) as { mode: string; key: string };
    assert.equal(body.mode, "test");
    testKey = body.key;
    liveKey = ((await (await fetch(`${server.url}/free`, { method: "POST" })).json()) as { key: string }).key;
  });
  after(async () => {
    watch?.restore();
    await server?.close();
    nock.cleanAll();
  });

  it("gives test keys that say so, and live keys that do not", () => {
    assert.match(testKey, /^pda_test_[A-Za-z0-9_-]{32}$/);
    assert.doesNotMatch(liveKey, /^pda_test_/);
    assert.deepEqual(watch.connections, []);
  });

  it("answers every example of every endpoint as the example expects, marked test_mode, with no connection made", async () => {
    const failures: string[] = [];
    let answered = 0;
    for (const endpoint of server.engine.registry.endpoints.values()) {
      for (const [i, example] of endpoint.examples.entries()) {
        if (example.datasets?.length) await server.engine.datasets.loadTestDatasets?.(example.datasets);
        // Examples that share their parameters (a normal answer, then the upstream failing) are told apart by number.
        const res = await getJson(`${server.url}${endpoint.path}${queryString(example.params)}`, { "X-API-Key": testKey, "Test-Example": String(i + 1) });
        const where = `${endpoint.key} ${example.title ?? `example ${i + 1}`}`;
        const expected = example.status ?? 200;
        const tagged = expected === 200 ? res.body?.meta : res.body;
        if (res.status !== expected) failures.push(`${where}: status ${res.status}, not ${expected} (${JSON.stringify(res.body).slice(0, 200)})`);
        else if (tagged?.test_mode !== true) failures.push(`${where}: no test_mode in ${JSON.stringify(res.body).slice(0, 200)}`);
        else {
          for (const [expr, value] of Object.entries(example.expect ?? {})) {
            const got = await pick(res.body, expr);
            if (JSON.stringify(got) !== JSON.stringify(value)) failures.push(`${where}: ${expr} is ${JSON.stringify(got)?.slice(0, 120)}, not ${JSON.stringify(value).slice(0, 120)}`);
          }
          if (expected === 200) answered++;
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(answered > 500, `${answered} answers`);
    assert.deepEqual(watch.connections, [], "no connection but to the server under test");
  });

  it("is never charged: the ledger holds only price-0 rows of the test key, and the live allowance is untouched", async () => {
    const key = await access.keyFor(testKey);
    const rows = await access.store.calls();
    assert.ok(rows.length > 500);
    assert.deepEqual(rows.filter((r) => r.principal !== `test:${key.id}`), []);
    assert.deepEqual(rows.filter((r) => r.priceMicro !== 0), []);
    assert.equal((await access.store.usage(`key:${key.id}`, new Date().toISOString().slice(0, 10))).size, 0);
    const account = await getJson(`${server.url}/account`, { "X-API-Key": testKey });
    assert.equal(account.body.mode, "test");
    assert.equal(account.body.test_calls.used, rows.filter((r) => r.outcome === "ok").length);
    assert.ok(account.body.recent_calls.every((c: { price_usd: number }) => c.price_usd === 0));
  });

  it("answers other valid parameters with the first example's answer, and says so", async () => {
    const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2024-01-02`, { "X-API-Key": testKey });
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.test_mode, true);
    assert.match(res.body.meta.test_mode_note, /No example of bank-of-england\/bank-rate has these parameters/);
    const first = server.engine.registry.find("bank-of-england", "bank-rate")!.examples[0];
    assert.equal(res.body.meta.test_mode_example, first.title ?? "example 1");
  });

  it("answers the example named by Test-Example, and refuses a number it has not", async () => {
    const url = `${server.url}/v1/uk-parliament-bills/bill-types`;
    const second = await getJson(url, { "X-API-Key": testKey, "Test-Example": "2" });
    assert.equal(second.status, 502);
    assert.equal(second.body.test_mode, true);
    assert.equal((await getJson(url, { "X-API-Key": testKey })).status, 200);
    const none = await getJson(url, { "X-API-Key": testKey, "Test-Example": "99" });
    assert.equal(none.status, 400);
    assert.equal(none.body.code, "invalid_test_example");
  });

  it("refuses bad parameters with the same 400 as a live call", async () => {
    const test = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-02-30`, { "X-API-Key": testKey });
    const live = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-02-30`, { "X-API-Key": liveKey });
    assert.equal(test.status, 400);
    assert.equal(test.body.code, live.body.code);
    assert.equal(test.body.param, "from");
    assert.equal(test.body.detail, live.body.detail);
  });

  it("computes computed endpoints live, free", async () => {
    const res = await getJson(`${server.url}/v1/imei/validate?imei=490154203237518`, { "X-API-Key": testKey });
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.test_mode, true);
    assert.equal(res.body.meta.paid_by, "test");
  });

  it("a live key never gets a test answer: its call goes to the upstream (here nock's recording)", async () => {
    const live = watchNetwork(() => Number(new URL(server.url).port));
    try {
      nock("https://www.bankofengland.co.uk").get("/boeapps/database/_iadb-fromshowcolumns.asp").query(true).reply(200, fixture("bank-of-england:IUDBEDR.csv"), { "content-type": "application/csv" });
      const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`, { "X-API-Key": liveKey });
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.test_mode, undefined);
      assert.equal(res.body.meta.paid_by, "allowance");
      assert.ok(nock.isDone(), "the live call asked the upstream");
      // The detector of the tests above sees a live call that no recording answers.
      const unanswered = await getJson(`${server.url}/v1/bank-of-england/sonia?from=2025-08-01`, { "X-API-Key": liveKey });
      assert.equal(unanswered.status, 502);
      assert.notDeepEqual(live.connections, []);
    } finally {
      live.restore();
      watch.connections.length = 0;
    }
  });

  it("takes an x402 payment with a test key as a test settlement, sending nothing to the facilitator", async () => {
    const url = `${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`;
    const unpaid = await fetch(url);
    assert.equal(unpaid.status, 402);
    const client = x402Client.fromConfig({ schemes: [{ network: TESTNET_X402_ENV.X402_NETWORK, client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }] });
    const payload = await client.createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!));
    const before = (await access.store.calls()).length;
    const res = await getJson(url, { "X-API-Key": testKey, "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.test_mode, true);
    const settled = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    assert.equal(settled.success, true);
    assert.equal(settled.extra?.test_mode, true);
    assert.equal(settled.transaction, `0x${"0".repeat(64)}`);
    const rows = (await access.store.calls()).slice(before);
    assert.deepEqual(rows.map((r) => [r.priceMicro, r.paidBy]), [[0, "allowance"]]);
    const bad = await getJson(url, { "X-API-Key": testKey, "PAYMENT-SIGNATURE": "not-a-payment" });
    assert.equal(bad.status, 402);
    assert.equal(bad.body.x402_error, "invalid_payload");
    assert.deepEqual(watch.connections, [], "the facilitator (127.0.0.1:9) was never asked");
  });

  it("refuses a test key that is not one of this service's, and card credit for a test key", async () => {
    const unknown = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`, { "X-API-Key": "pda_test_not-a-key" });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.code, "invalid_api_key");
    const credit = await fetch(`${server.url}/credit/checkout`, { method: "POST", headers: { "X-API-Key": testKey, "content-type": "application/json" }, body: "{\"amount_usd\":5}" });
    assert.equal(credit.status, 400);
  });

  it("runs a test call on its example's day while a call beside it keeps the real clock", async () => {
    const realDay = clock.today().toISOString().slice(0, 10);
    const inside = withClock({ today: new Date("2020-02-03T00:00:00Z") }, async () => {
      await new Promise((r) => setTimeout(r, 20));
      return clock.today().toISOString().slice(0, 10);
    });
    const beside = (async () => {
      await new Promise((r) => setTimeout(r, 10));
      return clock.today().toISOString().slice(0, 10);
    })();
    assert.deepEqual(await Promise.all([inside, beside]), ["2020-02-03", realDay]);
  });

  it("shows a live key's account as live", async () => {
    const account = await getJson(`${server.url}/account`, { "X-API-Key": liveKey });
    assert.equal(account.body.mode, "live");
  });
});
