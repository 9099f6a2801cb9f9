// Several instances behind a load balancer: two servers on one PostgreSQL schema share keys, allowances, credit
// and the x402 replay guard. (PostgreSQL at 127.0.0.1:5432, database test; a schema of this run, dropped after.)
import assert from "node:assert/strict";
import nock from "nock";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { Running } from "../engine/server.ts";
import type { AccessService } from "../engine/access/index.ts";
import { startX402Chain, type X402Chain } from "./support/x402-chain.ts";
import { GROUP_ALLOWANCE, startAccessServer } from "./support/x402-service.ts";
import { TEST_DATABASE_URL, testSchema } from "./support/x402-postgres.ts";
import { getJson } from "./helpers.ts";

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
    const { key } = (await (one.engine.access as AccessService).mintKey("10.7.0.1"))!;
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => getJson(bankRate(i % 2 ? one : two), { "X-API-Key": key })));
    assert.equal(results.filter((r) => r.status === 200).length, GROUP_ALLOWANCE.key);
    const account = await getJson(`${two.url}/account`, { "X-API-Key": key });
    assert.equal(account.body.allowance.find((b: { bucket: string }) => b.bucket === "group:bank-of-england").used, GROUP_ALLOWANCE.key);
  });

  it("runs one x402 signature once even when it reaches both instances at the same time", async () => {
    const pr = decodePaymentRequiredHeader((await fetch(bankRate(one))).headers.get("payment-required")!);
    const header = encodePaymentSignatureHeader(await chain.createPaymentPayload(pr));
    const before = await chain.balanceOf(chain.payTo);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => getJson(bankRate(i % 2 ? one : two), { "PAYMENT-SIGNATURE": header })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 402, 402, 402, 402, 402]);
    assert.equal(await chain.balanceOf(chain.payTo), before + 1000n);
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
