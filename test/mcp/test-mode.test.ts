// Test mode over MCP (docs/test-mode.md): a test key in the connection's X-API-Key header makes call_api and the
// direct tools answer from the endpoints' examples, free and offline; search_apis answers as for anyone; an x402
// payment in _meta is answered with a test settlement. The SDK's own Client against the running service.
import assert from "node:assert/strict";
import nock from "nock";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { x402Client } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { mintTestKey } from "../../engine/testmode/keys.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";
import { pick, startTestServer } from "../support/helpers.ts";
import { watchNetwork } from "../support/network-watch.ts";
import { TESTNET_X402_ENV } from "../support/x402-service.ts";


describe("MCP test mode", function () {
  this.timeout(60_000);
  let server: Running;
  let access: AccessService;
  let testKey: string;
  let watch: ReturnType<typeof watchNetwork>;
  const clients: Client[] = [];
  const connect = async (path: string, headers: Record<string, string> = {}) => {
    const client = await connectMcp(`${server.url}${path}`, headers);
    clients.push(client);
    return client;
  };

  before(async () => {
    server = await startTestServer({ env: TESTNET_X402_ENV });
    access = server.engine.access as AccessService;
    testKey = (await mintTestKey(access, "203.0.113.9"))!.key;
    watch = watchNetwork(() => Number(new URL(server.url).port));
  });
  after(async () => {
    watch?.restore();
    for (const c of clients) await c.close();
    await server?.close();
    nock.cleanAll();
  });

  it("call_api answers from the example whose arguments match, marked test_mode", async () => {
    const client = await connect("/mcp", { "X-API-Key": testKey });
    const res = await callTool(client, "call_api", { tool: "bank-of-england__bank-rate", arguments: { from: "2025-08-01" } });
    assert.equal(res.isError, undefined, JSON.stringify(res.structuredContent).slice(0, 300));
    const body = res.structuredContent as any;
    assert.equal(body.meta.test_mode, true);
    assert.equal(body.meta.paid_by, "test");
    assert.equal(body.meta.test_mode_note, undefined, "the arguments are the example's");
    const example = server.engine.registry.find("bank-of-england", "bank-rate")!.examples[0];
    for (const [expr, value] of Object.entries(example.expect ?? {})) assert.deepEqual(await pick(body, expr), value, expr);
  });

  it("direct tools answer in test mode too; _meta.testExample picks an example (here the upstream's failure)", async () => {
    const client = await connect("/mcp?groups=uk-parliament-bills", { "X-API-Key": testKey });
    const ok = await callTool(client, "uk-parliament-bills__bill-types", {});
    assert.equal(ok.isError, undefined);
    assert.equal((ok.structuredContent as any).meta.test_mode, true);
    const failing = await callTool(client, "uk-parliament-bills__bill-types", {}, { testExample: 2 });
    assert.equal(failing.isError, true);
    assert.equal((failing.structuredContent as any).status, 502);
    assert.equal((failing.structuredContent as any).test_mode, true);
  });

  it("search_apis answers the same with a test key as without", async () => {
    const query = { query: "bank of england interest rate" };
    const tested = await callTool(await connect("/mcp", { "X-API-Key": testKey }), "search_apis", query);
    const plain = await callTool(await connect("/mcp"), "search_apis", query);
    assert.deepEqual(tested.structuredContent, plain.structuredContent);
  });

  it("an x402 payment in _meta gets a test settlement, and nothing is charged or sent anywhere", async () => {
    const endpoint = server.engine.registry.find("bank-of-england", "bank-rate")!;
    const pr = access.payments.paymentRequired(endpoint, "mcp://tool/bank-of-england__bank-rate", "Payment required")!;
    const payer = x402Client.fromConfig({ schemes: [{ network: TESTNET_X402_ENV.X402_NETWORK, client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }] });
    const payment = await payer.createPaymentPayload(pr);
    const client = await connect("/mcp", { "X-API-Key": testKey });
    const res = await callTool(client, "call_api", { tool: "bank-of-england__bank-rate", arguments: { from: "2025-08-01" } }, { "x402/payment": payment });
    assert.equal(res.isError, undefined, JSON.stringify(res.structuredContent).slice(0, 300));
    const settled = res._meta?.["x402/payment-response"] as { success: boolean; extra?: { test_mode?: boolean } };
    assert.equal(settled.success, true);
    assert.equal(settled.extra?.test_mode, true);
  });

  it("never opened an upstream connection, and wrote only price-0 rows of the test key", async () => {
    assert.deepEqual(watch.connections, []);
    const key = await access.keyFor(testKey);
    const rows = await access.store.calls();
    assert.ok(rows.length >= 4);
    assert.deepEqual(rows.filter((r) => r.principal !== `test:${key.id}` || r.priceMicro !== 0), []);
  });
});
