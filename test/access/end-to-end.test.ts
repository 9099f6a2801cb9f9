// Access and payment over HTTP and MCP, end to end against the running service: free keys, allowances,
// credit, 402 with x402 v2 requirements, and real x402 payments settled on a local chain (test/support/x402-chain.ts).
import assert from "node:assert/strict";
import nock from "nock";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { PaymentRequired } from "@x402/core/types";
import { runCall } from "../../engine/call/pipeline.ts";
import { Problem } from "../../engine/basics/problem.ts";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { startX402Chain, type X402Chain } from "../support/x402-chain.ts";
import { GROUP_ALLOWANCE, SONIA_ALLOWANCE, mockBankOfEngland, smallAllowanceEndpoints, startAccessServer } from "../support/x402-service.ts";
import { getJson, startTestServer } from "../support/helpers.ts";

/** The service with no X402_* settings at all (as after a bare `npm start`). */
async function startAccessServerWithout(): Promise<Running> {
  mockBankOfEngland();
  const env = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith("X402_")).map((k) => [k, ""]));
  return startTestServer({ env, config: { endpointsDir: smallAllowanceEndpoints() } });
}

const PRICE_ATOMIC = 1000n; // bank-of-england endpoints cost $0.001

describe("access and payment", function () {
  this.timeout(60_000);
  let chain: X402Chain;
  let server: Running;
  let access: AccessService;
  let n = 0;
  /** A key minted for a fresh client address (the HTTP /free limit is tested on its own). */
  const newKey = async () => (await access.mintKey(`10.9.0.${++n}`))!.key;
  const bankRate = (from = "2025-08-01") => `${server.url}/v1/bank-of-england/bank-rate?from=${from}`;

  before(async () => {
    chain = await startX402Chain();
    server = await startAccessServer(chain, { FREE_KEYS_PER_DAY: "2" });
    access = server.engine.access as AccessService;
  });
  after(async () => {
    await server?.close();
    await chain?.close();
    nock.cleanAll();
  });

  describe("without a key or payment over HTTP", () => {
    it("answers 402 with an x402 v2 PAYMENT-REQUIRED header, the same object in the problem body, and three ways forward", async () => {
      const res = await getJson(bankRate());
      assert.equal(res.status, 402);
      assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
      const header = res.headers.get("payment-required");
      assert.ok(header, "PAYMENT-REQUIRED header");
      const pr = decodePaymentRequiredHeader(header);
      assert.equal(pr.x402Version, 2);
      assert.equal(pr.resource.url, `${server.engine.config.baseUrl}/v1/bank-of-england/bank-rate?from=2025-08-01`);
      assert.equal(pr.accepts.length, 1);
      const { extra, ...accept } = pr.accepts[0];
      assert.deepEqual(accept, { scheme: "exact", network: chain.network, asset: chain.asset, amount: "1000", payTo: chain.payTo, maxTimeoutSeconds: 60 });
      assert.deepEqual([extra.name, extra.version], ["USD Coin", "2"]);
      assert.equal(res.body.code, "payment_required");
      assert.equal(res.body.status, 402);
      assert.deepEqual(res.body.payment_required, pr);
      assert.deepEqual(res.body.ways_forward.map((w: { way: string }) => w.way), ["x402", "free_key", "credit"]);
      assert.match(res.body.ways_forward[1].url, /\/free$/);
    });

    it("asks the same amount every time (the retried call is matched by equality)", async () => {
      const a = decodePaymentRequiredHeader((await fetch(bankRate())).headers.get("payment-required")!);
      const b = decodePaymentRequiredHeader((await fetch(bankRate())).headers.get("payment-required")!);
      assert.deepEqual(a.accepts, b.accepts);
    });

    it("refuses an unknown key with 401", async () => {
      const res = await getJson(bankRate(), { "X-API-Key": "pda_not-a-key" });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, "invalid_api_key");
    });
  });

  describe("free keys", () => {
    it("POST /free mints a key a program can use at once; the address gets only FREE_KEYS_PER_DAY a day", async () => {
      const first = await fetch(`${server.url}/free`, { method: "POST" });
      assert.equal(first.status, 201);
      const body: any = await first.json();
      assert.match(body.key, /^pda_[A-Za-z0-9_-]{32}$/);
      const used = await getJson(bankRate(), { "X-API-Key": body.key });
      assert.equal(used.status, 200);
      assert.equal((await fetch(`${server.url}/free`, { method: "POST" })).status, 201);
      const refused = await fetch(`${server.url}/free`, { method: "POST" });
      assert.equal(refused.status, 429);
      assert.equal(((await refused.json()) as any).code, "key_limit_reached");
      assert.ok(Number(refused.headers.get("retry-after")) > 0);
    });

    it("stores keys only as hashes", async () => {
      const key = await newKey();
      const rows = await access.store.findKey(key);
      assert.equal(rows, undefined, "the key itself is not a lookup value");
    });

    it("lets a key call free within its daily allowance, and shows the allowance on each response", async () => {
      const key = await newKey();
      const res = await getJson(bankRate(), { "X-API-Key": key });
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.paid_by, "allowance");
      assert.equal(res.body.data.latest.value, 4);
      assert.equal(res.headers.get("ratelimit-policy"), `"group:bank-of-england";q=${GROUP_ALLOWANCE.key};w=86400`);
      assert.match(res.headers.get("ratelimit") ?? "", new RegExp(`^"group:bank-of-england";r=${GROUP_ALLOWANCE.key - 1};t=\\d+$`));
      assert.deepEqual(res.body.meta.allowance_left, { "group:bank-of-england": GROUP_ALLOWANCE.key - 1 });
    });

    it("GET /account shows allowance left per bucket, credit and recent calls", async () => {
      const key = await newKey();
      await getJson(bankRate(), { "X-API-Key": key });
      await getJson(`${server.url}/v1/bank-of-england/sonia?from=2025-08-01`, { "X-API-Key": key });
      const res = await getJson(`${server.url}/account`, { "X-API-Key": key });
      assert.equal(res.status, 200);
      const bucket = (id: string) => res.body.allowance.find((b: { bucket: string }) => b.bucket === id);
      assert.deepEqual([bucket("group:bank-of-england").used, bucket("group:bank-of-england").left], [2, GROUP_ALLOWANCE.key - 2]);
      assert.deepEqual([bucket("endpoint:bank-of-england/sonia").used, bucket("endpoint:bank-of-england/sonia").left], [1, SONIA_ALLOWANCE.key - 1]);
      assert.equal(res.body.credit_usd, 0);
      assert.deepEqual(res.body.recent_calls.map((c: { endpoint: string; paid_by: string; outcome: string }) => `${c.endpoint} ${c.paid_by} ${c.outcome}`).sort(),
        ["bank-of-england/bank-rate allowance ok", "bank-of-england/sonia allowance ok"]);
      assert.equal((await getJson(`${server.url}/account`)).status, 401);
    });

    it("draws from every bucket: sonia's own bucket runs out before the group's", async () => {
      const key = await newKey();
      const sonia = () => getJson(`${server.url}/v1/bank-of-england/sonia?from=2025-08-01`, { "X-API-Key": key });
      for (let i = 0; i < SONIA_ALLOWANCE.key; i++) assert.equal((await sonia()).status, 200);
      const over = await sonia();
      assert.equal(over.status, 402);
      assert.match(over.body.detail, /endpoint:bank-of-england\/sonia/);
      assert.equal((await getJson(bankRate(), { "X-API-Key": key })).status, 200, "the group bucket still has room");
    });

    it("answers 402 offering x402 and credit (not another key) when the allowance is spent and the key has no credit", async () => {
      const key = await newKey();
      for (let i = 0; i < GROUP_ALLOWANCE.key; i++) assert.equal((await getJson(bankRate(), { "X-API-Key": key })).status, 200);
      const res = await getJson(bankRate(), { "X-API-Key": key });
      assert.equal(res.status, 402);
      assert.equal(res.body.code, "payment_required");
      assert.ok(res.headers.get("payment-required"));
      assert.match(res.headers.get("ratelimit") ?? "", /r=0;/);
      assert.deepEqual(res.body.ways_forward.map((w: { way: string }) => w.way), ["x402", "credit"]);
      assert.doesNotMatch(res.body.detail, /free key|\/free/);
      assert.match(res.body.detail, /Pay with x402 or buy card credit for this key\./);
    });

    it("never gives more free calls than the bucket holds to concurrent calls", async () => {
      const key = await newKey();
      const results = await Promise.all(Array.from({ length: 30 }, () => getJson(bankRate(), { "X-API-Key": key })));
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, GROUP_ALLOWANCE.key);
      assert.equal(statuses.filter((s) => s === 402).length, 30 - GROUP_ALLOWANCE.key);
      const ledger = await access.store.calls({ principal: `key:${(await access.keyFor(key)).id}` });
      assert.equal(ledger.filter((c) => c.outcome === "ok").length, GROUP_ALLOWANCE.key);
    });

    it("charges nothing for a call that failed upstream, and says so in the ledger", async () => {
      const key = await newKey();
      const failed = await getJson(bankRate("1999-01-01"), { "X-API-Key": key });
      assert.equal(failed.status, 502);
      assert.match(failed.headers.get("ratelimit")!, new RegExp(`"group:bank-of-england";r=${GROUP_ALLOWANCE.key};`), "the failed call's answer shows the allowance untouched");
      const account = await getJson(`${server.url}/account`, { "X-API-Key": key });
      assert.equal(account.body.allowance.find((b: { bucket: string }) => b.bucket === "group:bank-of-england").used, 0);
      assert.deepEqual(account.body.recent_calls.map((c: { outcome: string; paid_by: string }) => `${c.paid_by} ${c.outcome}`), ["allowance error"]);
    });
  });

  describe("card credit pays when the allowance is spent", () => {
    it("debits the price from the key's credit, never below zero, and refunds a failed call", async () => {
      const key = await newKey();
      const record = await access.keyFor(key);
      await access.store.addCredit({ keyId: record.id, deltaMicro: 2500, kind: "grant" });
      for (let i = 0; i < GROUP_ALLOWANCE.key; i++) await getJson(bankRate(), { "X-API-Key": key });
      const failed = await getJson(bankRate("1999-01-01"), { "X-API-Key": key });
      assert.equal(failed.status, 502);
      const paid = await getJson(bankRate(), { "X-API-Key": key });
      assert.equal(paid.status, 200);
      assert.equal(paid.body.meta.paid_by, "credit");
      assert.equal(paid.body.meta.credit_left_usd, 0.0015);
      assert.equal((await getJson(bankRate(), { "X-API-Key": key })).body.meta.paid_by, "credit");
      const broke = await getJson(bankRate(), { "X-API-Key": key });
      assert.equal(broke.status, 402, "0.0005 left does not cover 0.001");
      assert.equal((await access.store.keyById(record.id))?.creditMicro, 500);
      const kinds = (await access.store.creditEntries(record.id)).map((e) => `${e.kind} ${e.deltaMicro}`).sort();
      assert.deepEqual(kinds, ["call -1000", "call -1000", "call -1000", "grant 2500", "refund 1000"]);
    });
  });

  describe("x402 payments on the local chain", () => {
    it("pays with the real x402 client: 402, signed retry, 200 with PAYMENT-RESPONSE; balances move by exactly the price", async () => {
      const payerBefore = await chain.balanceOf(chain.payer.address);
      const payToBefore = await chain.balanceOf(chain.payTo);
      const res = await chain.payingFetch(bankRate());
      assert.equal(res.status, 200);
      const body: any = await res.json();
      assert.equal(body.meta.paid_by, "x402");
      const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
      assert.equal(settlement.success, true);
      assert.match(settlement.transaction, /^0x[0-9a-f]{64}$/);
      assert.equal(settlement.network, chain.network);
      assert.deepEqual(body.meta.payment_response, settlement);
      assert.equal(await chain.balanceOf(chain.payer.address), payerBefore - PRICE_ATOMIC);
      assert.equal(await chain.balanceOf(chain.payTo), payToBefore + PRICE_ATOMIC);
      const row = (await access.store.calls({ principal: `x402:${chain.payer.address.toLowerCase()}` })).find((c) => c.paymentTx === settlement.transaction);
      assert.ok(row);
      assert.deepEqual([row.paidBy, row.outcome, row.priceMicro], ["x402", "ok", 1000]);
    });

    it("refuses a replayed payment", async () => {
      const sent: string[] = [];
      const recording: typeof fetch = async (input, init) => {
        const req = new Request(input, init);
        const sig = req.headers.get("payment-signature");
        if (sig) sent.push(sig);
        return fetch(req);
      };
      const res = await wrapFetchWithPayment(recording, chain.client)(bankRate());
      assert.equal(res.status, 200);
      assert.equal(sent.length, 1);
      const before = await chain.balanceOf(chain.payer.address);
      const replay = await getJson(bankRate(), { "PAYMENT-SIGNATURE": sent[0] });
      assert.equal(replay.status, 402);
      assert.equal(replay.body.code, "payment_invalid");
      assert.ok(replay.headers.get("payment-required"));
      assert.equal(await chain.balanceOf(chain.payer.address), before);
    });

    it("runs one signature once when it is sent many times at once", async () => {
      const pr = decodePaymentRequiredHeader((await fetch(bankRate("2025-08-02"))).headers.get("payment-required")!);
      const header = encodePaymentSignatureHeader(await chain.createPaymentPayload(pr));
      const before = await chain.balanceOf(chain.payer.address);
      const results = await Promise.all(Array.from({ length: 6 }, () => getJson(bankRate("2025-08-02"), { "PAYMENT-SIGNATURE": header })));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 402, 402, 402, 402, 402]);
      assert.equal(await chain.balanceOf(chain.payer.address), before - PRICE_ATOMIC);
    });

    it("does not settle when the upstream call failed: the payment is not spent", async () => {
      const url = bankRate("1999-01-01");
      const pr = decodePaymentRequiredHeader((await fetch(url)).headers.get("payment-required")!);
      const payload = await chain.createPaymentPayload(pr);
      const before = await chain.balanceOf(chain.payer.address);
      const failed = await getJson(url, { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
      assert.equal(failed.status, 502);
      assert.equal(failed.headers.get("payment-response"), null);
      assert.equal(await chain.balanceOf(chain.payer.address), before);
      const nonce = (payload.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce;
      assert.equal(await chain.nonceUsed(chain.payer.address, nonce), false);
    });

    it("refuses a payment signed for another price", async () => {
      const pr = decodePaymentRequiredHeader((await fetch(bankRate())).headers.get("payment-required")!);
      const cheaper: PaymentRequired = { ...pr, accepts: [{ ...pr.accepts[0], amount: "1" }] };
      const res = await getJson(bankRate(), { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(await chain.createPaymentPayload(cheaper)) });
      assert.equal(res.status, 402);
      assert.equal(res.body.code, "payment_invalid");
      assert.equal(res.body.x402_error, "No matching payment requirements");
    });

    it("refuses a payment signed for another endpoint, or for the same endpoint with other parameters", async () => {
      const signedFor = async (target: string) => encodePaymentSignatureHeader(await chain.createPaymentPayload(decodePaymentRequiredHeader((await fetch(target)).headers.get("payment-required")!)));
      const before = await chain.balanceOf(chain.payer.address);
      const forBankRate = await signedFor(bankRate("2025-08-03"));
      const sonia = await getJson(`${server.url}/v1/bank-of-england/sonia?from=2025-08-03`, { "PAYMENT-SIGNATURE": forBankRate });
      assert.equal(sonia.status, 402);
      assert.equal(sonia.body.x402_error, "resource_mismatch");
      const otherDate = await getJson(bankRate("2025-08-04"), { "PAYMENT-SIGNATURE": forBankRate });
      assert.equal(otherDate.body.x402_error, "resource_mismatch");
      assert.equal(await chain.balanceOf(chain.payer.address), before);
      const right = await getJson(bankRate("2025-08-03"), { "PAYMENT-SIGNATURE": forBankRate });
      assert.equal(right.status, 200, "the call it was signed for");
    });

    it("refuses a PAYMENT-SIGNATURE that is not a payment", async () => {
      const res = await getJson(bankRate(), { "PAYMENT-SIGNATURE": "bm90IGEgcGF5bWVudA==" });
      assert.equal(res.status, 402);
      assert.equal(res.body.code, "payment_invalid");
    });
  });

  describe("over MCP (the same pipeline, channel mcp)", () => {
    const mcpCall = (clientId: string, extra: { apiKey?: string; paymentPayload?: unknown } = {}) =>
      runCall(server.engine, {
        group: "bank-of-england", operation: "bank-rate", query: { from: "2025-08-01" }, channel: "mcp", clientId,
        resourceUrl: "mcp://tool/bank-of-england__bank-rate", ...extra,
      });

    it("gives an anonymous client the without-key allowance, counted per client address", async () => {
      for (let i = 0; i < GROUP_ALLOWANCE.anonymous; i++) assert.equal((await mcpCall("192.0.2.1")).body.meta.paid_by, "allowance");
      const refused = await mcpCall("192.0.2.1").catch((e) => e);
      assert.ok(refused instanceof Problem);
      assert.equal(refused.status, 402);
      assert.equal(refused.code, "payment_required");
      const pr = refused.extra.payment_required as PaymentRequired;
      assert.equal(pr.resource.url, "mcp://tool/bank-of-england__bank-rate");
      assert.equal(pr.accepts[0].amount, "1000");
      assert.ok(refused.headers["PAYMENT-REQUIRED"]);
      assert.equal((await mcpCall("192.0.2.2")).status, 200, "another client has its own allowance");
    });

    it("takes an x402 payment as a PaymentPayload object and answers the settlement", async () => {
      for (let i = 0; i < GROUP_ALLOWANCE.anonymous; i++) await mcpCall("192.0.2.3");
      const refused = (await mcpCall("192.0.2.3").catch((e) => e)) as Problem;
      const payload = await chain.createPaymentPayload(refused.extra.payment_required as PaymentRequired);
      const before = await chain.balanceOf(chain.payTo);
      const paid = await mcpCall("192.0.2.3", { paymentPayload: payload });
      assert.equal(paid.body.meta.paid_by, "x402");
      const settlement = paid.body.meta.payment_response as { success: boolean; transaction: string };
      assert.equal(settlement.success, true);
      assert.deepEqual(decodePaymentResponseHeader(paid.headers["PAYMENT-RESPONSE"]), settlement);
      assert.equal(await chain.balanceOf(chain.payTo), before + PRICE_ATOMIC);
      const replay = (await mcpCall("192.0.2.3", { paymentPayload: payload }).catch((e) => e)) as Problem;
      assert.equal(replay.code, "payment_invalid");
    });
  });
});

describe("access without payment configuration", () => {
  let server: Running;
  before(async () => {
    server = await startAccessServerWithout();
  });
  after(async () => {
    await server?.close();
    nock.cleanAll();
  });

  it("answers 402 offering a free key and card credit, not x402, when no X402_PAY_TO is set", async () => {
    const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`);
    assert.equal(res.status, 402);
    assert.equal(res.body.code, "payment_required");
    assert.equal(res.headers.get("payment-required"), null);
    assert.equal(res.body.payment_required, undefined);
    assert.deepEqual(res.body.ways_forward.map((w: { way: string }) => w.way), ["free_key", "credit"]);
    assert.doesNotMatch(res.body.detail, /x402/);
    const { key } = await (await fetch(`${server.url}/free`, { method: "POST" })).json() as { key: string };
    assert.equal((await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`, { "X-API-Key": key })).status, 200);
  });

  it("refuses an x402 payment with a 402 that says x402 is not taken here", async () => {
    const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`, { "PAYMENT-SIGNATURE": "bm90IGEgcGF5bWVudA==" });
    assert.equal(res.status, 402);
    assert.equal(res.body.x402_error, "x402_not_accepted");
  });
});

describe("access with a pay-to address and no facilitator in reach", () => {
  let server: Running;
  before(async () => {
    mockBankOfEngland();
    const env = { X402_NETWORK: "eip155:84532", X402_PAY_TO: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", X402_FACILITATOR_URL: "http://127.0.0.1:9" };
    server = await startTestServer({ env, config: { endpointsDir: smallAllowanceEndpoints() } });
  });
  after(async () => {
    await server?.close();
    nock.cleanAll();
  });

  it("builds the 402's PAYMENT-REQUIRED locally: an unpaid call never waits for the facilitator", async () => {
    const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`);
    assert.equal(res.status, 402);
    const pr = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    assert.deepEqual(pr.accepts, [{
      scheme: "exact", network: "eip155:84532", amount: "1000", asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", maxTimeoutSeconds: 60, extra: { name: "USDC", version: "2" },
    }]);
    assert.deepEqual(res.body.ways_forward.map((w: { way: string }) => w.way), ["x402", "free_key", "credit"]);
  });

  it("answers 503 payments_unavailable only when a payment arrives and the facilitator cannot be asked", async () => {
    const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`);
    const pr = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    const payload = { x402Version: 2, resource: pr.resource, accepted: pr.accepts[0], payload: { signature: "0x00", authorization: { from: "0x857b06519E91e3A54538791bDbb0E22373e36b66", nonce: "0x01" } } };
    const paid = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`, { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload as never) });
    assert.equal(paid.status, 503);
    assert.equal(paid.body.code, "payments_unavailable");
  });
});
