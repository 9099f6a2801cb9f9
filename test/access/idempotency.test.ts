// Pay once over HTTP (docs/idempotency.md): a call retried with the same Idempotency-Key, or paid again with the same
// x402 payment identifier, gets the first answer and is charged once. Against the running service and its SQLite
// store; payments signed by the real @x402 client and settled by the library's facilitator on a local chain.
import assert from "node:assert/strict";
import nock from "nock";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { wrapFetchWithPayment } from "@x402/fetch";
import { appendPaymentIdentifierToExtensions, declarePaymentIdentifierExtension, generatePaymentId } from "@x402/extensions/payment-identifier";
import type { PaymentRequired } from "@x402/core/types";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { utcDay } from "../../engine/access/keys.ts";
import { startX402Chain, type X402Chain } from "../support/x402-chain.ts";
import { BOE, BOE_PATH, GROUP_ALLOWANCE, mockBankOfEngland, startAccessServer } from "../support/x402-service.ts";
import { fixture, getJson, tempDir } from "../support/helpers.ts";

const PRICE_ATOMIC = 1000n; // bank-of-england endpoints cost $0.001

describe("pay once over HTTP", function () {
  this.timeout(60_000);
  let chain: X402Chain;
  let server: Running;
  let access: AccessService;
  let n = 0;
  const bankRate = (from = "2025-08-01", s = server) => `${s.url}/v1/bank-of-england/bank-rate?from=${from}`;
  /** A fresh key, and its ledger. */
  const newKey = async () => {
    const { key, record } = (await access.mintKey(`10.6.0.${++n}`))!;
    return { key, id: record.id, ledger: () => access.store.calls({ principal: `key:${record.id}` }) };
  };
  const groupUsed = async (keyId: string) => (await access.store.usage(`key:${keyId}`, utcDay().day)).get("group:bank-of-england") ?? 0;

  before(async () => {
    chain = await startX402Chain();
    server = await startAccessServer(chain);
    access = server.engine.access as AccessService;
  });
  after(async () => {
    await server?.close();
    await chain?.close();
    nock.cleanAll();
  });

  describe("Idempotency-Key", () => {
    it("charges a credit-paid call sent twice with one key once, and answers the retry with the first answer", async () => {
      const { key, id, ledger } = await newKey();
      for (let i = 0; i < GROUP_ALLOWANCE.key; i++) await getJson(bankRate(), { "X-API-Key": key });
      await access.store.addCredit({ keyId: id, deltaMicro: 2500, kind: "grant" });
      const headers = { "X-API-Key": key, "Idempotency-Key": "8e03978e-40d5-43e8-bc93-6894a57f9324" };
      const first = await getJson(bankRate(), headers);
      assert.equal(first.status, 200);
      assert.equal(first.body.meta.paid_by, "credit");
      assert.equal(first.headers.get("idempotent-replayed"), null);
      const retry = await getJson(bankRate(), headers);
      assert.equal(retry.status, 200);
      assert.equal(retry.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(retry.body, first.body);
      assert.equal(retry.headers.get("ratelimit"), first.headers.get("ratelimit"));
      assert.equal((await access.store.keyById(id))?.creditMicro, 1500, "debited once");
      assert.deepEqual((await access.store.creditEntries(id)).map((e) => `${e.kind} ${e.deltaMicro}`).sort(), ["call -1000", "grant 2500"]);
      assert.equal((await ledger()).filter((c) => c.paidBy === "credit").length, 1);
    });

    it("counts an allowance call sent twice with one key once (the structured-field form of the key too)", async () => {
      const { key, id, ledger } = await newKey();
      const first = await getJson(bankRate(), { "X-API-Key": key, "Idempotency-Key": "\"order-17\"" });
      const retry = await getJson(bankRate(), { "X-API-Key": key, "Idempotency-Key": "order-17" });
      assert.deepEqual([first.status, retry.status], [200, 200]);
      assert.equal(retry.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(retry.body, first.body);
      assert.equal(await groupUsed(id), 1);
      assert.deepEqual((await ledger()).map((c) => `${c.paidBy} ${c.outcome}`), ["allowance ok"]);
      const another = await getJson(bankRate(), { "X-API-Key": key, "Idempotency-Key": "order-18" });
      assert.equal(another.headers.get("idempotent-replayed"), null, "a new key is a new call");
      assert.equal(await groupUsed(id), 2);
    });

    it("refuses the same key with another request (422, saying why) and charges nothing for it", async () => {
      const { key, id } = await newKey();
      const headers = { "X-API-Key": key, "Idempotency-Key": "refused-1" };
      assert.equal((await getJson(bankRate("2025-08-01"), headers)).status, 200);
      for (const url of [bankRate("2025-08-02"), `${server.url}/v1/bank-of-england/sonia?from=2025-08-01`]) {
        const other = await getJson(url, headers);
        assert.equal(other.status, 422);
        assert.equal(other.body.code, "idempotency_key_reused");
        assert.match(other.body.detail, /used in the last 24 hours for another request/);
      }
      assert.equal(await groupUsed(id), 1);
      const reordered = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`, headers);
      assert.equal(reordered.headers.get("idempotent-replayed"), "true");
      const anotherKey = await newKey();
      assert.equal((await getJson(bankRate("2025-08-02"), { "X-API-Key": anotherKey.key, "Idempotency-Key": "refused-1" })).status, 200, "keys are per principal");
    });

    it("runs duplicates sent at once once: the others are told it is running, or get its answer", async () => {
      const { key, id, ledger } = await newKey();
      // The upstream answers after a second, so the duplicates arrive while the first call runs.
      nock.cleanAll();
      const slow = nock(BOE).get(BOE_PATH).query((q) => q.Datefrom === "05/Aug/2025").delay(1000).reply(200, fixture("bank-of-england:IUDSOIA.csv"), { "content-type": "application/csv" });
      mockBankOfEngland();
      const headers = { "X-API-Key": key, "Idempotency-Key": "at-once-1" };
      const sonia = `${server.url}/v1/bank-of-england/sonia?from=2025-08-05`;
      const results = await Promise.all(Array.from({ length: 6 }, () => getJson(sonia, headers)));
      const fresh = results.filter((r) => r.status === 200 && !r.headers.get("idempotent-replayed"));
      assert.equal(fresh.length, 1);
      for (const r of results.filter((x) => x !== fresh[0])) {
        if (r.status === 200) assert.deepEqual(r.body, fresh[0].body);
        else assert.deepEqual([r.status, r.body.code, r.headers.get("retry-after")], [409, "idempotency_key_in_use", "1"]);
      }
      assert.ok(results.some((r) => r.status === 409), "a duplicate arrived while the first call ran");
      assert.equal((await getJson(sonia, headers)).headers.get("idempotent-replayed"), "true");
      assert.ok(slow.isDone());
      assert.equal(await groupUsed(id), 1);
      assert.equal((await ledger()).length, 1);
    });

    it("keeps no failed call: a retry with the key runs again", async () => {
      const { key, ledger } = await newKey();
      const headers = { "X-API-Key": key, "Idempotency-Key": "fails-1" };
      const failed = await getJson(bankRate("1999-01-01"), headers);
      assert.equal(failed.status, 502);
      const retry = await getJson(bankRate("1999-01-01"), headers);
      assert.equal(retry.status, 502);
      assert.equal(retry.headers.get("idempotent-replayed"), null);
      assert.deepEqual((await ledger()).map((c) => c.outcome), ["error", "error"], "run twice, charged never");
      const refused = await getJson(bankRate("2025-08-01"), headers);
      assert.equal(refused.status, 200, "the key is free for another request: nothing was kept");
    });

    it("refuses a malformed key with 400 before anything is charged", async () => {
      const { key, id } = await newKey();
      for (const bad of ["", "has space", "x".repeat(256), "semi;colon"]) {
        const res = await fetch(bankRate(), { headers: { "X-API-Key": key, "Idempotency-Key": bad } });
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(((await res.json()) as { code: string }).code, "invalid_idempotency_key");
      }
      assert.equal(await groupUsed(id), 0);
    });

    it("keeps the answer across a restart of the server", async () => {
      const dataDir = tempDir();
      const first = await startAccessServer(chain, { DATA_DIR: dataDir });
      const { key, record } = (await (first.engine.access as AccessService).mintKey("10.6.1.1"))!;
      const headers = { "X-API-Key": key, "Idempotency-Key": "across-restart" };
      const answered = await getJson(bankRate("2025-08-01", first), headers);
      assert.equal(answered.status, 200);
      await first.close();
      const second = await startAccessServer(chain, { DATA_DIR: dataDir });
      try {
        const retry = await getJson(bankRate("2025-08-01", second), headers);
        assert.equal(retry.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(retry.body, answered.body);
        const ledger = await (second.engine.access as AccessService).store.calls({ principal: `key:${record.id}` });
        assert.deepEqual(ledger.map((c) => c.outcome), ["ok"]);
      } finally {
        await second.close();
      }
    });
  });

  describe("x402 payment identifier", () => {
    /** The real @x402/fetch client of the payer, adding this payment identifier to each payment it signs. */
    const payingWithId = (id: string) => {
      const client = chain.newClient();
      client.onBeforePaymentCreation(async ({ paymentRequired }) => void appendPaymentIdentifierToExtensions(paymentRequired.extensions!, id));
      return wrapFetchWithPayment(fetch, client);
    };

    it("is declared in every 402, optional, with its schema", async () => {
      const pr = decodePaymentRequiredHeader((await fetch(bankRate())).headers.get("payment-required")!);
      assert.deepEqual(pr.extensions?.["payment-identifier"], declarePaymentIdentifierExtension(false));
      assert.deepEqual((pr.extensions?.["payment-identifier"] as { info: unknown }).info, { required: false });
    });

    it("a retry with the same identifier (a new authorization) gets the stored answer; the payment settles once", async () => {
      const pay = payingWithId(generatePaymentId());
      const settled = chain.settleRequests();
      const before = await chain.balanceOf(chain.payer.address);
      const first = await pay(bankRate("2025-08-07"));
      assert.equal(first.status, 200);
      const firstBody = await first.json();
      const retry = await pay(bankRate("2025-08-07"));
      assert.equal(retry.status, 200);
      assert.equal(retry.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(await retry.json(), firstBody);
      assert.equal(retry.headers.get("payment-response"), first.headers.get("payment-response"));
      assert.equal(chain.settleRequests(), settled + 1, "the facilitator was asked to settle once");
      assert.equal(await chain.balanceOf(chain.payer.address), before - PRICE_ATOMIC);
      const paid = (await access.store.calls({ principal: `x402:${chain.payer.address.toLowerCase()}` })).filter((c) => c.outcome === "ok");
      assert.equal(paid.filter((c) => c.paymentTx === (firstBody as { meta: { payment_response: { transaction: string } } }).meta.payment_response.transaction).length, 1);
    });

    it("the same identifier with another payment is a 409 saying why, and nothing is settled", async () => {
      const id = generatePaymentId();
      assert.equal((await payingWithId(id)(bankRate("2025-08-08"))).status, 200);
      const settled = chain.settleRequests();
      const before = await chain.balanceOf(chain.payer.address);
      const other = await payingWithId(id)(bankRate("2025-08-09"));
      assert.equal(other.status, 409);
      const body = (await other.json()) as { code: string; detail: string };
      assert.equal(body.code, "payment_identifier_reused");
      assert.match(body.detail, /used in the last 24 hours with another payment/);
      assert.equal(chain.settleRequests(), settled);
      assert.equal(await chain.balanceOf(chain.payer.address), before);
    });

    it("keeps the identifier held while whether the first payment settled is not known: a retry is told so", async () => {
      const pay = payingWithId(generatePaymentId());
      chain.settleMode("drop");
      try {
        const lost = await pay(bankRate("2025-08-11"));
        assert.equal(lost.status, 502);
        assert.equal(((await lost.json()) as { code: string }).code, "settlement_unknown");
      } finally {
        chain.settleMode("normal");
      }
      const retry = await pay(bankRate("2025-08-11"));
      assert.equal(retry.status, 409);
      assert.equal(((await retry.json()) as { code: string }).code, "payment_identifier_in_use");
    });

    it("refuses an identifier that is not one with 400", async () => {
      const pr = decodePaymentRequiredHeader((await fetch(bankRate())).headers.get("payment-required")!) as PaymentRequired;
      const payload = await chain.createPaymentPayload(pr);
      (payload.extensions!["payment-identifier"] as { info: { id?: string } }).info.id = "too-short";
      const res = await getJson(bankRate(), { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "invalid_payment_identifier");
      assert.match(res.body.detail, /16 to 128 letters, digits, hyphens and underscores/);
    });

    it("without a key, an Idempotency-Key sent with an x402 payment stands for its payment identifier", async () => {
      const settled = chain.settleRequests();
      const init = { headers: { "Idempotency-Key": "keyless-x402-1" } };
      const first = await chain.payingFetch(bankRate("2025-08-10"), init);
      const retry = await chain.payingFetch(bankRate("2025-08-10"), init);
      assert.deepEqual([first.status, retry.status], [200, 200]);
      assert.equal(retry.headers.get("idempotent-replayed"), "true");
      assert.equal(chain.settleRequests(), settled + 1);
    });
  });
});
