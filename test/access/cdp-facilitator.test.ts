// Real money, without a chain: the service against a stand-in of Coinbase's CDP facilitator (test/support/cdp-facilitator.ts)
// that checks every request's JWT as CDP does. Several networks in one 402 (Base Sepolia and Solana devnet), a
// Solana payment built and signed by the real @x402/svm client, verified and settled by the library's Solana
// facilitator and written to the ledger, and /health telling per network whether payments can be taken.
import assert from "node:assert/strict";
import nock from "nock";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { x402Client } from "@x402/core/client";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { appendPaymentIdentifierToExtensions, generatePaymentId } from "@x402/extensions/payment-identifier";
import type { PaymentRequired } from "@x402/core/types";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { CDP_PATH, startStandInFacilitator, type StandInFacilitator } from "../support/cdp-facilitator.ts";
import { mockBankOfEngland, smallAllowanceEndpoints } from "../support/x402-service.ts";
import { getJson, memoryLog, startTestServer } from "../support/helpers.ts";

const BASE_SEPOLIA = "eip155:84532";
const SOLANA_DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

describe("x402 through the CDP facilitator (a stand-in that checks CDP's JWT), on Base and Solana at once", function () {
  this.timeout(60_000);
  let facilitator: StandInFacilitator;
  let server: Running;
  let access: AccessService;
  let solanaPayTo: string;
  let payer: KeyPairSigner;
  const memory = memoryLog();
  const bankRate = (from = "2025-08-01") => `${server.url}/v1/bank-of-england/bank-rate?from=${from}`;
  const health = async () => (await getJson(`${server.url}/health`)).body.payments;
  const paymentRequired = async (url = bankRate()): Promise<PaymentRequired> => {
    const res = await getJson(url);
    assert.equal(res.status, 402);
    return decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  };

  before(async () => {
    facilitator = await startStandInFacilitator({ networks: [BASE_SEPOLIA, SOLANA_DEVNET] });
    solanaPayTo = (await generateKeyPairSigner()).address;
    payer = await generateKeyPairSigner();
    mockBankOfEngland();
    server = await startTestServer({
      env: {
        X402_NETWORKS: `${BASE_SEPOLIA},${SOLANA_DEVNET}`, X402_PAY_TO: PAY_TO, X402_PAY_TO_SOLANA: solanaPayTo,
        X402_FACILITATOR_URL: facilitator.url, CDP_API_KEY_ID: facilitator.keyId, CDP_API_KEY_SECRET: facilitator.keySecret,
        X402_SUPPORTED_REFRESH_MS: "3600000", X402_NETWORK: "", X402_ASSET: "",
      },
      log: memory.log,
      config: { endpointsDir: smallAllowanceEndpoints() },
    });
    access = server.engine.access as AccessService;
    await access.payments.facilitator.refresh();
  });
  after(async () => {
    await server?.close();
    await facilitator?.close();
    nock.cleanAll();
  });

  it("reads /supported at start-up with the CDP key's JWT, whose uris claim names the request's method, host and path", async () => {
    const first = facilitator.requests[0];
    assert.equal(first.status, 200, first.error);
    assert.equal(first.method, "GET");
    const host = new URL(facilitator.url).host;
    assert.deepEqual(first.claims!.uris, [`GET ${host}${CDP_PATH}/supported`]);
    assert.equal(first.claims!.iss, "cdp");
    assert.equal(first.claims!.sub, facilitator.keyId);
  });

  it("/health says, per network, that the facilitator settles it, with scheme and signer, and that it is offered", async () => {
    const p = await health();
    assert.equal(p.ready, true);
    assert.equal(p.facilitator.state, "reachable");
    assert.equal(p.facilitator.auth, "cdp");
    const byNetwork = Object.fromEntries(p.networks.map((n: { network: string }) => [n.network, n]));
    assert.deepEqual(byNetwork[SOLANA_DEVNET], { network: SOLANA_DEVNET, state: "supported", scheme: "exact", signers: [facilitator.feePayer], pay_to: solanaPayTo, offered: true });
    assert.equal(byNetwork[BASE_SEPOLIA].state, "supported");
    assert.equal(byNetwork[BASE_SEPOLIA].pay_to, PAY_TO);
  });

  it("puts one accepts entry per network in the 402, each with that network's USDC and its own pay-to", async () => {
    const pr = await paymentRequired();
    assert.deepEqual(pr.accepts, [
      { scheme: "exact", network: BASE_SEPOLIA, amount: "1000", asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: "USDC", version: "2" } },
      { scheme: "exact", network: SOLANA_DEVNET, amount: "1000", asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", payTo: solanaPayTo, maxTimeoutSeconds: 60, extra: { feePayer: facilitator.feePayer } },
    ]);
  });

  it("names every offered network in the 402's x402 way forward, not only the first", async () => {
    const res = await getJson(bankRate());
    const way = res.body.ways_forward.find((w: { way: string }) => w.way === "x402");
    assert.deepEqual(way.networks.map((n: { network: string }) => n.network), [BASE_SEPOLIA, SOLANA_DEVNET]);
    assert.ok(way.networks.every((n: { amount: string; asset: string }) => n.amount === "1000" && n.asset));
  });

  it("takes a Solana payment signed by the real @x402/svm client: verified and settled with CDP auth, recorded in the ledger with its network, never twice", async () => {
    const client = new x402Client().register(SOLANA_DEVNET, new ExactSvmScheme(payer, { rpcUrl: facilitator.rpcUrl }));
    const payload = await client.createPaymentPayload(await paymentRequired());
    assert.equal(payload.accepted.network, SOLANA_DEVNET);
    assert.match((payload.payload as { transaction: string }).transaction, /^[A-Za-z0-9+/]+=*$/);
    const before = facilitator.requests.length;

    const res = await getJson(bankRate(), { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    assert.equal(settlement.success, true);
    assert.equal(settlement.network, SOLANA_DEVNET);
    assert.equal(settlement.payer, payer.address);
    assert.equal(res.body.meta.paid_by, "x402");

    const host = new URL(facilitator.url).host;
    assert.deepEqual(facilitator.requests.slice(before).map((r) => [r.status, (r.claims?.uris as string[])[0]]),
      [[200, `POST ${host}${CDP_PATH}/verify`], [200, `POST ${host}${CDP_PATH}/settle`]]);

    const rows = await access.store.calls({ principal: `x402:${payer.address}` });
    assert.equal(rows.length, 1);
    assert.equal(rows[0].outcome, "ok");
    assert.equal(rows[0].paymentTx, settlement.transaction);
    assert.ok(rows[0].paymentRef!.startsWith(`${SOLANA_DEVNET}:4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU:`), rows[0].paymentRef);

    const again = await getJson(bankRate(), { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
    assert.equal(again.status, 402);
    assert.equal(again.body.x402_error, "payment_already_used");
  });

  it("refuses a Solana payment whose transaction pays someone else: the facilitator's check, nothing recorded as paid", async () => {
    const pr = await paymentRequired(bankRate("2025-08-02"));
    const elsewhere = { ...pr, accepts: pr.accepts.map((a) => (a.network === SOLANA_DEVNET ? { ...a, payTo: payer.address } : a)) };
    const client = new x402Client().register(SOLANA_DEVNET, new ExactSvmScheme(payer, { rpcUrl: facilitator.rpcUrl }));
    const payload = await client.createPaymentPayload(elsewhere);
    // The payload claims the offered terms; its signed transfer goes to another account.
    payload.accepted = pr.accepts.find((a) => a.network === SOLANA_DEVNET)!;
    const res = await getJson(bankRate("2025-08-02"), { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
    assert.equal(res.status, 402);
    assert.equal(res.body.code, "payment_invalid");
    assert.match(res.body.x402_error, /^invalid_exact_svm_/);
    assert.equal((await access.store.calls({ principal: `x402:${payer.address}` })).filter((c) => c.outcome === "ok").length, 1);
  });

  it("withholds the answer and charges nothing when a verified Solana payment cannot be settled (the facilitator's failure is final)", async () => {
    const signer = await generateKeyPairSigner();
    const client = new x402Client().register(SOLANA_DEVNET, new ExactSvmScheme(signer, { rpcUrl: facilitator.rpcUrl }));
    const url = bankRate("2025-08-04");
    const payload = await client.createPaymentPayload(await paymentRequired(url));
    facilitator.failSends(true);
    const error = console.error;
    console.error = () => undefined; // the library's Solana facilitator prints the failed send
    let res;
    try {
      res = await getJson(url, { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
    } finally {
      console.error = error;
      facilitator.failSends(false);
    }
    assert.equal(res.status, 402);
    assert.equal(res.body.code, "payment_invalid");
    assert.equal(res.body.x402_error, "invalid_exact_svm_transaction_failed");
    assert.equal(res.body.data, undefined);
    assert.equal(decodePaymentResponseHeader(res.headers.get("payment-response")!).success, false);
    assert.deepEqual((await access.store.calls({ principal: `x402:${signer.address}` })).map((c) => c.outcome), ["error"]);
  });

  it("pays once per Solana payer with a payment identifier: a retry gets the stored answer, another payer with the same id pays for itself", async () => {
    const id = generatePaymentId();
    const url = bankRate("2025-08-03");
    const settles = () => facilitator.requests.filter((r) => r.path === "/settle").length;
    const pay = async (signer: KeyPairSigner) => {
      const client = new x402Client().register(SOLANA_DEVNET, new ExactSvmScheme(signer, { rpcUrl: facilitator.rpcUrl }));
      client.onBeforePaymentCreation(async ({ paymentRequired }) => void appendPaymentIdentifierToExtensions(paymentRequired.extensions!, id));
      return getJson(url, { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(await client.createPaymentPayload(await paymentRequired(url))) });
    };
    const [one, two] = [await generateKeyPairSigner(), await generateKeyPairSigner()];
    const first = await pay(one);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const settled = settles();
    const retry = await pay(one);
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.equal(settles(), settled, "the retry is not settled again");
    const other = await pay(two);
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.equal(other.headers.get("idempotent-replayed"), null);
    assert.equal(settles(), settled + 1, "another payer's payment is its own");
    assert.equal((await access.store.calls({ principal: `x402:${two.address}` })).filter((c) => c.outcome === "ok").length, 1);
  });

  it("says \"unsupported\" plainly when the facilitator stops settling a network, stops offering it, and warns once", async () => {
    facilitator.settles([BASE_SEPOLIA]);
    await access.payments.facilitator.refresh();
    await access.payments.facilitator.refresh();
    const p = await health();
    assert.equal(p.ready, false);
    const solana = p.networks.find((n: { network: string }) => n.network === SOLANA_DEVNET);
    assert.equal(solana.state, "unsupported");
    assert.equal(solana.offered, false);
    assert.match(solana.detail, /does not settle exact payments on solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/);
    assert.deepEqual((await paymentRequired()).accepts.map((a) => a.network), [BASE_SEPOLIA]);
    const warnings = memory.text().split("\n").filter((l) => l.includes("does not settle payments on this network") && l.includes(SOLANA_DEVNET));
    assert.equal(warnings.length, 1);
    facilitator.settles([BASE_SEPOLIA, SOLANA_DEVNET]);
    await access.payments.facilitator.refresh();
    assert.deepEqual((await paymentRequired()).accepts.map((a) => a.network), [BASE_SEPOLIA, SOLANA_DEVNET]);
  });

  it("says \"unreachable\" when /supported cannot be read; free keys keep working, and the last known networks stay offered", async () => {
    facilitator.down(true);
    try {
      await access.payments.facilitator.refresh();
      const p = await health();
      assert.equal(p.facilitator.state, "unreachable");
      assert.match(p.facilitator.error, /503/);
      assert.deepEqual(p.networks.map((n: { state: string }) => n.state), ["unreachable", "unreachable"]);
      const key = (await access.mintKey("10.30.0.1"))!.key;
      assert.equal((await getJson(bankRate(), { "X-API-Key": key })).status, 200);
      assert.deepEqual((await paymentRequired()).accepts.map((a) => a.network), [BASE_SEPOLIA, SOLANA_DEVNET]);
    } finally {
      facilitator.down(false);
    }
    await access.payments.facilitator.refresh();
    assert.equal((await health()).facilitator.state, "reachable");
  });
});

describe("x402 with a CDP key the facilitator does not accept", () => {
  let facilitator: StandInFacilitator;
  let server: Running;
  before(async () => {
    facilitator = await startStandInFacilitator({ networks: [BASE_SEPOLIA] });
    const other = await startStandInFacilitator({ networks: [] });
    await other.close();
    mockBankOfEngland();
    server = await startTestServer({
      env: { X402_NETWORKS: BASE_SEPOLIA, X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url, CDP_API_KEY_ID: other.keyId, CDP_API_KEY_SECRET: other.keySecret, X402_NETWORK: "", X402_ASSET: "" },
      config: { endpointsDir: smallAllowanceEndpoints() },
    });
    await (server.engine.access as AccessService).payments.facilitator.refresh();
  });
  after(async () => {
    await server?.close();
    await facilitator?.close();
    nock.cleanAll();
  });

  it("is refused (401: the JWT is not signed by the key it names), and /health says the facilitator is unreachable", async () => {
    assert.ok(facilitator.requests.length > 0);
    assert.ok(facilitator.requests.every((r) => r.status === 401), JSON.stringify(facilitator.requests));
    const p = (await getJson(`${server.url}/health`)).body.payments;
    assert.equal(p.facilitator.state, "unreachable");
    assert.match(p.facilitator.error, /401/);
    assert.equal(p.networks[0].state, "unreachable");
  });
});
