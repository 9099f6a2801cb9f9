// When settlement goes wrong: a facilitator that answers a failure full of its internals, one that settles on chain
// and then drops the connection, one that drops it without settling. The payer is told "nothing was charged" only
// when that is known; a settlement found on chain answers the call; the rest is `settlement_unknown` until
// `npm run payments -- reconcile` asks the chain. (The facilitator's behaviour: test/support/x402-chain.ts.)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import path from "node:path";
import nock from "nock";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { startX402Chain, type X402Chain } from "../support/x402-chain.ts";
import { startAccessServer } from "../support/x402-service.ts";
import { ROOT, getJson, tempDir } from "../support/helpers.ts";

const PRICE_ATOMIC = 1000n;

describe("x402 settlement failures and lost answers", function () {
  this.timeout(60_000);
  let chain: X402Chain;
  let withRpc: Running;
  let withoutRpc: Running;
  let dataDir: string;

  before(async () => {
    chain = await startX402Chain();
    dataDir = tempDir();
    withRpc = await startAccessServer(chain, { X402_RPC_URL: chain.rpcUrl });
    withoutRpc = await startAccessServer(chain, { DATA_DIR: dataDir });
  });
  afterEach(() => chain.settleMode("normal"));
  after(async () => {
    await withRpc?.close();
    await withoutRpc?.close();
    await chain?.close();
    nock.cleanAll();
  });

  const url = (server: Running, from: string) => `${server.url}/v1/bank-of-england/bank-rate?from=${from}`;
  const ledgerOf = async (server: Running) => (server.engine.access as AccessService).store.calls({ principal: `x402:${chain.payer.address.toLowerCase()}` });
  /** A payment signed for this URL's 402, and the URL called with it. */
  const payOnce = async (target: string) => {
    const pr = decodePaymentRequiredHeader((await fetch(target)).headers.get("payment-required")!);
    const payload = await chain.createPaymentPayload(pr);
    return { payload, res: await getJson(target, { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) }) };
  };

  it("tells the client a short reason code when settlement fails, never the facilitator's text, calldata or addresses", async () => {
    chain.settleMode("verbose-failure");
    const before = await chain.balanceOf(chain.payer.address);
    const { res } = await payOnce(url(withRpc, "2025-07-01"));
    assert.equal(res.status, 402);
    const header = res.headers.get("payment-response")!;
    assert.ok(header.length < 300, `PAYMENT-RESPONSE is ${header.length} bytes`);
    const settlement = decodePaymentResponseHeader(header);
    assert.deepEqual(settlement, { success: false, errorReason: "invalid_exact_evm_transaction_failed", transaction: "", network: chain.network, payer: chain.payer.address });
    assert.equal(res.body.x402_error, "invalid_exact_evm_transaction_failed");
    assert.doesNotMatch(JSON.stringify(res.body), /viem|calldata|ContractFunction|e3ee160e/);
    assert.match(res.body.detail, /nothing was charged/);
    assert.equal(await chain.balanceOf(chain.payer.address), before);
    assert.equal((await ledgerOf(withRpc)).at(-1)?.outcome, "error");
  });

  it("answers the call when the facilitator settled and then lost its answer, having read the settlement on chain (X402_RPC_URL)", async () => {
    chain.settleMode("settle-then-drop");
    const before = await chain.balanceOf(chain.payTo);
    const res = await chain.payingFetch(url(withRpc, "2025-07-02"));
    assert.equal(res.status, 200);
    const body: any = await res.json();
    assert.equal(body.data.latest.value, 4);
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    assert.equal(settlement.success, true);
    assert.match(settlement.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(await chain.balanceOf(chain.payTo), before + PRICE_ATOMIC);
    const row = (await ledgerOf(withRpc)).find((c) => c.paymentTx === settlement.transaction);
    assert.equal(row?.outcome, "ok");
  });

  it("says settlement_unknown (not \"nothing was charged\") when nobody can tell, and reconcile settles it later against the chain", async () => {
    chain.settleMode("drop");
    const { payload, res } = await payOnce(url(withoutRpc, "2025-07-03"));
    assert.equal(res.status, 502);
    assert.equal(res.body.code, "settlement_unknown");
    assert.doesNotMatch(res.body.detail, /nothing was charged/);
    assert.equal(decodePaymentResponseHeader(res.headers.get("payment-response")!).errorReason, "settlement_unknown");
    assert.equal((await ledgerOf(withoutRpc)).at(-1)?.outcome, "settlement_unknown");
    const replay = await getJson(url(withoutRpc, "2025-07-03"), { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });
    assert.equal(replay.body.x402_error, "payment_already_used", "its nonce stays claimed");

    // The transaction lands after all; the operator reconciles.
    const late = await chain.settle(payload);
    assert.equal(late.success, true);
    const env = { ...process.env, ...chain.env, DATA_DIR: dataDir, X402_RPC_URL: chain.rpcUrl, LOG_LEVEL: "silent" };
    const { stdout } = await promisify(execFile)(path.join(ROOT, "node_modules", ".bin", "node"), ["engine/cli.ts", "payments", "reconcile"], { cwd: ROOT, env });
    assert.deepEqual(JSON.parse(stdout), { settled: 1, not_settled: 0, still_unknown: 0 });
    const row = (await ledgerOf(withoutRpc)).at(-1)!;
    assert.deepEqual([row.outcome, row.paymentTx], ["ok", late.transaction]);
  });
});
