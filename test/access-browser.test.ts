// The /free page in a real browser (Debian's chromium driven by playwright-core): a person gets a key and uses it.
import assert from "node:assert/strict";
import fs from "node:fs";
import nock from "nock";
import { chromium, type Browser } from "playwright-core";
import type { Running } from "../engine/server.ts";
import { mockBankOfEngland, smallAllowanceEndpoints } from "./support/x402-service.ts";
import { startTestServer } from "./helpers.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

describe("the /free page in headless Chromium", function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: Running;

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.warn(`    (skipped: no Chromium at ${CHROMIUM}; apt-get install chromium)`);
      this.skip();
    }
    mockBankOfEngland();
    server = await startTestServer({ config: { endpointsDir: smallAllowanceEndpoints() } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true, // playwright also gives it a new empty user-data-dir
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    nock.cleanAll();
  });

  it("gets a key with one click, shows it once, and the key works for a call and for /account", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/free`);
    assert.equal(await page.title(), "Get a free API key");
    await page.click("#get-key");
    await page.waitForSelector("#result:not([hidden])");
    const key = (await page.textContent("#key"))!.trim();
    assert.match(key, /^pda_/);
    assert.match((await page.textContent("#example"))!, new RegExp(`X-API-Key: ${key}`));

    const call = await page.evaluate(async (k) => {
      const res = await fetch("/v1/bank-of-england/bank-rate?from=2025-08-01", { headers: { "X-API-Key": k } });
      return { status: res.status, body: (await res.json()) as any };
    }, key);
    assert.equal(call.status, 200);
    assert.equal(call.body.meta.paid_by, "allowance");
    assert.equal(call.body.data.latest.value, 4);

    const account: any = await page.evaluate(async (k) => (await fetch("/account", { headers: { "X-API-Key": k } })).json(), key);
    assert.equal(account.recent_calls[0].endpoint, "bank-of-england/bank-rate");
    await page.close();
  });

  it("works without JavaScript too (the form posts and the answer page shows the key)", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/free`);
    await Promise.all([page.waitForURL(`${server.url}/free`), page.click("#get-key")]);
    await page.waitForSelector("#key");
    const key = (await page.textContent("#key"))!.trim();
    const res = await fetch(`${server.url}/account`, { headers: { "X-API-Key": key } });
    assert.equal(res.status, 200);
    await context.close();
  });
});
