// Allowances and x402 payments over MCP, with the SDK's Client against the running service and its real access
// layer; payments are signed by the real @x402 client and settled on a local chain (test/support/x402-chain.ts).
// The service runs a copy of the bank-of-england group with small allowances (test/support/x402-service.ts).
// Clients are told apart by address: the server trusts X-Forwarded-For from loopback, so each test client sends its own.
import assert from "node:assert/strict";
import nock from "nock";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { startX402Chain, type X402Chain } from "../support/x402-chain.ts";
import { GROUP_ALLOWANCE, startAccessServer } from "../support/x402-service.ts";
import { callTool, connectMcp, textJson } from "../support/mcp-client.ts";
import { appendPaymentIdentifierToExtensions, generatePaymentId } from "@x402/extensions/payment-identifier";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { utcDay } from "../../engine/access/keys.ts";

const PRICE_ATOMIC = 1000n; // bank-of-england endpoints cost $0.001

describe("MCP allowances and x402 payments", function () {
  this.timeout(60_000);
  let chain: X402Chain;
  let server: Running;
  const clients: Client[] = [];

  const connect = async (address: string, headers: Record<string, string> = {}) => {
    const client = await connectMcp(`${server.url}/mcp`, { "X-Forwarded-For": address, ...headers });
    clients.push(client);
    return client;
  };
  const bankRate = (client: Client, from = "2025-08-01", meta?: Record<string, unknown>) =>
    callTool(client, "call_api", { tool: "bank-of-england__bank-rate", arguments: { from } }, meta);
  /** Spends a client's free calls; returns the payment-required result that follows. */
  const exhaust = async (client: Client, free: number): Promise<CallToolResult> => {
    for (let i = 0; i < free; i++) {
      const ok = await bankRate(client);
      assert.equal(ok.isError, undefined, `free call ${i + 1}: ${JSON.stringify(ok.structuredContent)}`);
      assert.equal((ok.structuredContent as any).meta.paid_by, "allowance");
    }
    return bankRate(client);
  };

  before(async () => {
    chain = await startX402Chain();
    server = await startAccessServer(chain);
  });
  after(async () => {
    for (const c of clients) await c.close();
    await server?.close();
    await chain?.close();
    nock.cleanAll();
  });

  it("without a key, a client's free calls run out; then the tool answers with x402 payment requirements", async () => {
    const refused = await exhaust(await connect("198.51.100.1"), GROUP_ALLOWANCE.anonymous);
    assert.equal(refused.isError, true);
    const pr = refused.structuredContent as unknown as PaymentRequired;
    assert.equal(pr.x402Version, 2);
    assert.equal(pr.resource.url, "mcp://tool/bank-of-england__bank-rate");
    assert.deepEqual(
      { network: pr.accepts[0].network, asset: pr.accepts[0].asset, amount: pr.accepts[0].amount, payTo: pr.accepts[0].payTo },
      { network: chain.network, asset: chain.asset, amount: String(PRICE_ATOMIC), payTo: chain.payTo },
    );
    assert.deepEqual(textJson(refused, 0), pr, "content[0].text is the PaymentRequired (x402 MCP transport)");
    const problem = textJson(refused, 1);
    assert.equal(problem.code, "payment_required");
    assert.match(problem.detail, /free allowance of this client is used up/);
    assert.deepEqual(problem.ways_forward.map((w: { way: string }) => w.way), ["x402", "free_key", "credit"]);

    const other = await bankRate(await connect("198.51.100.2"));
    assert.equal(other.isError, undefined, "another client has its own allowance");
  });

  it("a free key sent as X-API-Key on the MCP connection gives the key's larger allowance", async () => {
    const { key } = (await (server.engine.access as AccessService).mintKey("198.51.100.3"))!;
    const keyed = await connect("198.51.100.1", { "X-API-Key": key });
    const refused = await exhaust(keyed, GROUP_ALLOWANCE.key);
    assert.equal(refused.isError, true);
    assert.match(textJson(refused, 1).detail, /free allowance of this key is used up/);
  });

  describe("a paid retry", () => {
    let payment: PaymentPayload;
    let client: Client;

    before(async () => {
      client = await connect("198.51.100.4");
      const refused = await exhaust(client, GROUP_ALLOWANCE.anonymous);
      payment = await chain.createPaymentPayload(refused.structuredContent as unknown as PaymentRequired);
    });

    it("is verified and settled on chain; the settlement comes back in _meta[\"x402/payment-response\"]", async () => {
      const before = await chain.balanceOf(chain.payTo);
      const paid = await bankRate(client, "2025-08-01", { "x402/payment": payment });
      assert.equal(paid.isError, undefined, JSON.stringify(paid.structuredContent));
      const body = paid.structuredContent as any;
      assert.equal(body.data.latest.value, 4);
      assert.equal(body.meta.paid_by, "x402");
      const settlement = paid._meta?.["x402/payment-response"] as { success: boolean; transaction: string; network: string; payer: string };
      assert.equal(settlement.success, true);
      assert.match(settlement.transaction, /^0x[0-9a-f]{64}$/);
      assert.equal(settlement.network, chain.network);
      assert.equal(settlement.payer.toLowerCase(), chain.payer.address.toLowerCase());
      assert.equal(await chain.balanceOf(chain.payTo), before + PRICE_ATOMIC);
    });

    it("cannot use the same payment twice", async () => {
      const replay = await bankRate(client, "2025-08-01", { "x402/payment": payment });
      assert.equal(replay.isError, true);
      assert.equal((replay.structuredContent as any).x402Version, 2);
      assert.equal(textJson(replay, 1).code, "payment_invalid");
    });

    it("is not settled when the call fails upstream", async () => {
      const pr = (await bankRate(client)).structuredContent as unknown as PaymentRequired;
      const fresh = await chain.createPaymentPayload(pr);
      const before = await chain.balanceOf(chain.payTo);
      const failed = await bankRate(client, "1999-01-01", { "x402/payment": fresh });
      assert.equal(failed.isError, true);
      assert.equal((failed.structuredContent as any).status, 502);
      assert.equal(failed._meta?.["x402/payment-response"], undefined);
      assert.equal(await chain.balanceOf(chain.payTo), before);
    });
  });

  describe("pay once (_meta.idempotencyKey, and the payment identifier in _meta[\"x402/payment\"])", () => {
    const store = () => (server.engine.access as AccessService).store;
    const used = async (principal: string) => (await store().usage(principal, utcDay().day)).get("group:bank-of-england") ?? 0;

    it("an allowance call sent twice with one key is counted once; the retry gets the first answer", async () => {
      const client = await connect("198.51.100.20");
      const first = await bankRate(client, "2025-08-01", { idempotencyKey: "mcp-once-1" });
      const retry = await bankRate(client, "2025-08-01", { idempotencyKey: "mcp-once-1" });
      assert.equal(first.isError, undefined);
      assert.equal(first._meta?.idempotentReplayed, undefined);
      assert.equal(retry._meta?.idempotentReplayed, true);
      assert.deepEqual(retry.structuredContent, first.structuredContent);
      assert.equal(await used("mcp:198.51.100.20"), 1);
      assert.equal((await store().calls({ principal: "mcp:198.51.100.20" })).length, 1);
    });

    it("a credit-paid call sent twice with one key is debited once", async () => {
      const access = server.engine.access as AccessService;
      const { key, record } = (await access.mintKey("198.51.100.21"))!;
      const client = await connect("198.51.100.21", { "X-API-Key": key });
      await exhaust(client, GROUP_ALLOWANCE.key);
      await access.store.addCredit({ keyId: record.id, deltaMicro: 2000, kind: "grant" });
      const first = await bankRate(client, "2025-08-02", { idempotencyKey: "mcp-credit-1" });
      const retry = await bankRate(client, "2025-08-02", { idempotencyKey: "mcp-credit-1" });
      assert.equal((first.structuredContent as any).meta.paid_by, "credit");
      assert.equal(retry._meta?.idempotentReplayed, true);
      assert.deepEqual(retry.structuredContent, first.structuredContent);
      assert.equal((await access.store.keyById(record.id))?.creditMicro, 1000);
      assert.equal((await access.store.calls({ principal: `key:${record.id}` })).filter((c) => c.paidBy === "credit").length, 1);
    });

    it("refuses the key with other arguments (422), and a key that is not a string (400)", async () => {
      const client = await connect("198.51.100.22");
      assert.equal((await bankRate(client, "2025-08-01", { idempotencyKey: "mcp-once-2" })).isError, undefined);
      const other = await bankRate(client, "2025-08-03", { idempotencyKey: "mcp-once-2" });
      assert.equal(other.isError, true);
      assert.deepEqual([textJson(other).status, textJson(other).code], [422, "idempotency_key_reused"]);
      const bad = await bankRate(client, "2025-08-01", { idempotencyKey: 42 });
      assert.deepEqual([textJson(bad).status, textJson(bad).code], [400, "invalid_idempotency_key"]);
      assert.equal(await used("mcp:198.51.100.22"), 1);
    });

    it("a payment retried with the same payment identifier is settled once", async () => {
      const client = await connect("198.51.100.23");
      const refused = await exhaust(client, GROUP_ALLOWANCE.anonymous);
      const x402 = chain.newClient();
      const id = generatePaymentId();
      x402.onBeforePaymentCreation(async ({ paymentRequired }) => void appendPaymentIdentifierToExtensions(paymentRequired.extensions!, id));
      const pr = () => structuredClone(refused.structuredContent) as unknown as PaymentRequired;
      const settled = chain.settleRequests();
      const before = await chain.balanceOf(chain.payTo);
      const paid = await bankRate(client, "2025-08-01", { "x402/payment": await x402.createPaymentPayload(pr()) });
      const retry = await bankRate(client, "2025-08-01", { "x402/payment": await x402.createPaymentPayload(pr()) });
      assert.equal((paid.structuredContent as any).meta.paid_by, "x402");
      assert.equal(retry._meta?.idempotentReplayed, true);
      assert.deepEqual(retry._meta?.["x402/payment-response"], paid._meta?.["x402/payment-response"]);
      assert.equal(chain.settleRequests(), settled + 1);
      assert.equal(await chain.balanceOf(chain.payTo), before + PRICE_ATOMIC);
      const other = await bankRate(client, "2025-08-04", { "x402/payment": await x402.createPaymentPayload(pr()) });
      assert.deepEqual([textJson(other).status, textJson(other).code], [409, "payment_identifier_reused"], "the same identifier for other arguments");
    });
  });
});
