// Endpoints served within the free allowance only (price 0: the upstream's terms forbid selling access), end to end
// through the real access layer: served from the allowance, then 429 allowance_exhausted until the UTC day ends;
// never a 402, never x402 or card credit, nothing ever charged. Shown as such in /openapi.json and search cards.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import { runCall } from "../../engine/call/pipeline.ts";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { endpointCard } from "../../engine/search/card.ts";
import { createToolbox } from "../../engine/mcp/tools.ts";
import { utcDay } from "../../engine/access/keys.ts";
import type { Problem } from "../../engine/basics/problem.ts";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { GROUP_ALLOWANCE, TESTNET_X402_ENV, mockBankOfEngland, smallAllowanceEndpoints } from "../support/x402-service.ts";
import { ROOT, getJson, startTestServer } from "../support/helpers.ts";

/** The small-allowance bank-of-england copy, with bank-rate made free-allowance-only (price 0, said in its description). */
function freeOnlyEndpoints(description = "Free allowance only: served within the daily free allowance, never sold."): string {
  const dir = smallAllowanceEndpoints();
  const file = path.join(dir, "bank-of-england", "bank-rate.yaml");
  const yaml = fs.readFileSync(file, "utf8")
    .replace(/^description: >-\n/m, `description: >-\n  ${description}\n`)
    .replace(/^operation: bank-rate$/m, "operation: bank-rate\nprice: 0");
  fs.writeFileSync(file, yaml);
  return dir;
}

describe("free-allowance-only endpoints (price 0)", function () {
  this.timeout(30_000);
  let server: Running;
  let access: AccessService;
  let n = 0;
  const newKey = async () => (await access.mintKey(`10.8.0.${++n}`))!.key;
  const bankRate = () => `${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`;

  before(async () => {
    mockBankOfEngland();
    // x402 is configured, so the refusals below show it is withheld on purpose, not missing.
    server = await startTestServer({
      env: TESTNET_X402_ENV,
      config: { endpointsDir: freeOnlyEndpoints() },
    });
    access = server.engine.access as AccessService;
  });
  after(async () => {
    await server?.close();
    nock.cleanAll();
  });

  it("says so in /openapi.json: x-price-usd 0, x-free-allowance-only, a 429 and no 402", async () => {
    const { body } = await getJson(`${server.url}/openapi.json`);
    const op = body.paths["/v1/bank-of-england/bank-rate"].get;
    assert.equal(op["x-price-usd"], 0);
    assert.equal(op["x-free-allowance-only"], true);
    assert.match(op.description, /free allowance only/i);
    assert.ok(op.responses["429"]);
    assert.equal(op.responses["402"], undefined);
    const paid = body.paths["/v1/bank-of-england/sonia"].get;
    assert.equal(paid["x-free-allowance-only"], undefined);
    assert.ok(paid.responses["402"]);
  });

  it("says so in search cards (what search_apis answers over MCP)", () => {
    const card = endpointCard(server.engine.registry.find("bank-of-england", "bank-rate")!);
    assert.equal(card.price_usd, 0);
    assert.equal(card.free_allowance_only, true);
    assert.equal(endpointCard(server.engine.registry.find("bank-of-england", "sonia")!).free_allowance_only, undefined);
  });

  it("says so in the MCP tool's description, never offering to sell calls past the allowance", () => {
    const tools = createToolbox(server.engine).list(["bank-of-england"]);
    const free = tools.find((t) => t.name === "bank-of-england__bank-rate")!;
    assert.match(free.description ?? "", /Free allowance only: \d+ calls a day/);
    assert.doesNotMatch(free.description ?? "", /Price: \$0/);
    assert.match(tools.find((t) => t.name === "bank-of-england__sonia")!.description ?? "", /Price: \$0\.001 a call after/);
  });

  it("asks for a free key over HTTP without one: 401 free_key_required, no PAYMENT-REQUIRED", async () => {
    const res = await getJson(bankRate());
    assert.equal(res.status, 401);
    assert.equal(res.body.code, "free_key_required");
    assert.equal(res.headers.get("payment-required"), null);
    assert.deepEqual(res.body.ways_forward.map((w: { way: string }) => w.way), ["free_key"]);
  });

  it("serves a key from its allowance, then answers 429 allowance_exhausted with Retry-After to the end of the UTC day", async () => {
    const key = await newKey();
    for (let i = 0; i < GROUP_ALLOWANCE.key; i++) {
      const ok = await getJson(bankRate(), { "X-API-Key": key });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.meta.paid_by, "allowance");
      assert.equal(ok.body.meta.price_usd, 0);
      assert.equal(ok.body.data.latest.value, 4);
    }
    const over = await getJson(bankRate(), { "X-API-Key": key });
    assert.equal(over.status, 429);
    assert.equal(over.body.code, "allowance_exhausted");
    assert.equal(over.body.free_allowance_only, true);
    assert.equal(over.headers.get("payment-required"), null);
    assert.equal(over.body.ways_forward, undefined);
    const retryAfter = Number(over.headers.get("retry-after"));
    const { secondsLeft } = utcDay();
    assert.ok(retryAfter > 0 && Math.abs(retryAfter - secondsLeft) <= 5, `Retry-After ${retryAfter} ≈ ${secondsLeft}`);
    assert.match(over.headers.get("ratelimit") ?? "", /r=0;/);
  });

  it("never takes card credit, even when the key has some", async () => {
    const key = await newKey();
    const record = await access.keyFor(key);
    await access.store.addCredit({ keyId: record.id, deltaMicro: 1_000_000, kind: "grant" });
    for (let i = 0; i < GROUP_ALLOWANCE.key; i++) assert.equal((await getJson(bankRate(), { "X-API-Key": key })).status, 200);
    const over = await getJson(bankRate(), { "X-API-Key": key });
    assert.equal(over.status, 429);
    assert.equal((await access.store.keyById(record.id))?.creditMicro, 1_000_000);
    assert.deepEqual((await access.store.creditEntries(record.id)).map((e) => e.kind), ["grant"]);
    const calls = await access.store.calls({ principal: `key:${record.id}` });
    assert.ok(calls.every((c) => c.priceMicro === 0 && c.paidBy === "allowance"), "every call in the ledger is a free one");
  });

  it("takes no x402 payment: a payment sent with the call is not used, the call is served from the allowance", async () => {
    const key = await newKey();
    const res = await getJson(bankRate(), { "X-API-Key": key, "PAYMENT-SIGNATURE": "bm90LWEtcGF5bWVudA" });
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.paid_by, "allowance");
    assert.equal(res.headers.get("payment-response"), null);
  });

  it("keeps the sold endpoints of the same group sold (sonia still answers 402 without a key)", async () => {
    const res = await getJson(`${server.url}/v1/bank-of-england/sonia?from=2025-08-01`);
    assert.equal(res.status, 402);
  });

  it("over MCP without a key: the anonymous allowance, then 429 allowance_exhausted (never 402)", async () => {
    const call = () => runCall(server.engine, {
      group: "bank-of-england", operation: "bank-rate", query: { from: "2025-08-01" }, channel: "mcp", clientId: "192.0.2.77",
      resourceUrl: "mcp://tool/bank-of-england__bank-rate",
    });
    for (let i = 0; i < GROUP_ALLOWANCE.anonymous; i++) assert.equal((await call()).body.meta.paid_by, "allowance");
    const refused = (await call().catch((e) => e)) as Problem;
    assert.equal(refused.status, 429);
    assert.equal(refused.code, "allowance_exhausted");
    assert.ok(Number(refused.headers["Retry-After"]) > 0);
    assert.match(refused.detail, /free key/);
  });

  it("refuses to load a price-0 endpoint whose description does not say it is free allowance only", async () => {
    const dir = freeOnlyEndpoints("Costs nothing.");
    await assert.rejects(loadRegistry({ rootDir: ROOT, endpointsDir: dir, env: {} }), /free allowance only/);
  });
});
