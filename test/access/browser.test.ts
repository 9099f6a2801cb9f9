// The pages a person opens, in a real browser (Debian's chromium driven by playwright-core): a person gets a key on
// /free and uses it (a test key too); / and /free fit a 390 px phone screen and a 1280 px desktop without sideways scrolling.
import assert from "node:assert/strict";
import nock from "nock";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import type { Running } from "../../engine/http/server.ts";
import { mockBankOfEngland, smallAllowanceEndpoints } from "../support/x402-service.ts";
import { startTestServer } from "../support/helpers.ts";


describe("the /free page in headless Chromium", function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: Running;

  before(async function () {
    browser = (await launchChromium(this))!;
    mockBankOfEngland();
    server = await startTestServer({ config: { endpointsDir: smallAllowanceEndpoints() } });
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
    const example = (await page.textContent("#example"))!;
    assert.match(example, new RegExp(`X-API-Key: ${key}`));
    assert.match(example, /'http:\/\/[^' ]+\/v1\/[a-z-]+\/[a-z-]+[^']*'/, `a real /v1 call, whole: ${example}`);

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

  it("gets a test key with the other button, with and without JavaScript, and it answers in test mode", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/free`);
    await page.click("#get-test-key");
    await page.waitForSelector("#result:not([hidden])");
    assert.equal((await page.textContent("#mode"))!.trim(), "test key");
    const key = (await page.textContent("#key"))!.trim();
    assert.match(key, /^pda_test_/);
    const call = await page.evaluate(async (k) => (await fetch("/v1/bank-of-england/bank-rate?from=2025-08-01", { headers: { "X-API-Key": k } })).json() as any, key);
    assert.equal(call.meta.test_mode, true);
    await page.close();

    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    await plain.goto(`${server.url}/free`);
    await Promise.all([plain.waitForURL(`${server.url}/free?mode=test`), plain.click("#get-test-key")]);
    assert.match((await plain.textContent("#key"))!.trim(), /^pda_test_/);
    await context.close();
  });

  /** How much wider than the window the page is (0: no sideways scrolling), and the widest offenders. */
  const overflow = (page: Page): Promise<{ by: number; offenders: string[] }> => page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const offenders = [...document.querySelectorAll("body *")].filter((el) => el.getBoundingClientRect().right > width + 1)
      .slice(0, 5).map((el) => el.tagName.toLowerCase() + "." + el.className + ": " + (el.textContent || "").slice(0, 60));
    return { by: document.documentElement.scrollWidth - width, offenders };
  })()`);

  for (const width of [390, 1280]) {
    it(`/ and /free fit a ${width} px wide window, before and after getting a key`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      for (const path of ["/", "/free"]) {
        await page.goto(`${server.url}${path}`);
        const o = await overflow(page);
        assert.equal(o.by, 0, `${path} at ${width} px: ${o.offenders.join(" | ")}`);
      }
      await page.click("#get-key");
      await page.waitForSelector("#result:not([hidden])");
      const o = await overflow(page);
      assert.equal(o.by, 0, `/free with a key at ${width} px: ${o.offenders.join(" | ")}`);
      await context.close();
    });
  }

  it("has an icon: /favicon.ico answers an image", async () => {
    const res = await fetch(`${server.url}/favicon.ico`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^image\//);
  });

  describe("after the day's keys, on a server that takes no x402 payments", () => {
    let limited: Running;
    before(async () => {
      limited = await startTestServer({ env: { FREE_KEYS_PER_DAY: "1", X402_PAY_TO: "" } });
      await fetch(`${limited.url}/free`, { method: "POST" });
    });
    after(async () => limited?.close());

    it("says so on the page, offering no x402", async () => {
      const page = await browser.newPage();
      await page.goto(`${limited.url}/free`);
      await page.click("#get-key");
      await page.waitForFunction(`document.getElementById("error").textContent !== ""`);
      const said = (await page.textContent("#error"))!;
      assert.match(said, /already got 1 free keys today/);
      assert.doesNotMatch(said + (await page.textContent("body")), /x402/);
      await page.close();
    });

    it("without JavaScript, answers a readable 429 page, not JSON", async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(`${limited.url}/free`);
      const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.click("#get-key")]);
      assert.equal(res.status(), 429);
      assert.match(res.headers()["content-type"], /^text\/html/);
      assert.equal(await page.title(), "No more free keys today");
      assert.match((await page.textContent("#error"))!, /already got 1 free keys today/);
      await context.close();
    });
  });
});
