// What /free says happens after the daily allowance must be what happens: on a server that sells nothing (no x402,
// no Stripe), credit the operator granted still pays for calls past the allowance, so the page must not say calls
// simply wait for the next day.
import assert from "node:assert/strict";
import nock from "nock";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { GROUP_ALLOWANCE, mockBankOfEngland, smallAllowanceEndpoints } from "../support/x402-service.ts";
import { getJson, startTestServer } from "../support/helpers.ts";

describe("/free on a server that takes neither x402 nor card payments", function () {
  this.timeout(20_000);
  let server: Running;
  before(async () => {
    mockBankOfEngland();
    const unset = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith("X402_") || k.startsWith("STRIPE_")).map((k) => [k, ""]));
    server = await startTestServer({ env: { ...unset, DATABASE_URL: "" }, config: { endpointsDir: smallAllowanceEndpoints() } });
  });
  after(async () => {
    await server?.close();
    nock.cleanAll();
  });

  it("says credit on the key pays past the allowance, and it does", async () => {
    const page = await (await fetch(`${server.url}/free`)).text();
    const text = page.replace(/<[^>]+>/g, "").replace(/\s+/g, " ");
    assert.match(text, /after that, card credit on your key, if it has any, pays the price of a call; otherwise calls wait for the next UTC day/);
    assert.doesNotMatch(text, /x402|checkout/, "it offers no way to pay this server does not take");

    const access = server.engine.access as AccessService;
    const { key, record } = (await access.mintKey("10.6.0.1"))!;
    await access.store.addCredit({ keyId: record.id, deltaMicro: 1_000_000, kind: "grant", note: "test" });
    const url = `${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`;
    for (let i = 0; i < GROUP_ALLOWANCE.key; i++) assert.equal((await getJson(url, { "X-API-Key": key })).body.meta.paid_by, "allowance");
    assert.equal((await getJson(url, { "X-API-Key": key })).body.meta.paid_by, "credit");
  });
});
