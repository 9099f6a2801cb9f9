// The landing page in a real browser (Debian's chromium driven by playwright-core, as in test/access/browser.test.ts):
// typing in the filter box narrows the list, also while the page is still loading; a link leads to the group's full
// reference; without JavaScript the list is all there.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import type { Running } from "../../engine/http/server.ts";
import { freeAccess, startTestServer } from "../support/helpers.ts";


/** The endpoint lines and the number of groups a person sees (a string: the project compiles without the DOM's types). */
const visible = (page: Page): Promise<{ endpoints: string[]; groups: number }> => page.evaluate(`(() => {
  const shown = (el) => el.offsetParent !== null;
  return {
    endpoints: [...document.querySelectorAll("#groups ul > li")].filter(shown).map((li) => li.textContent),
    groups: [...document.querySelectorAll("#groups > li")].filter(shown).length,
  };
})()`);

describe("the landing page in headless Chromium", function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: Running;

  before(async function () {
    browser = (await launchChromium(this))!;
    server = await startTestServer({ access: freeAccess });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("typing in the filter box narrows the list, and emptying it brings everything back", async () => {
    const { registry } = server.engine;
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    const all = await visible(page);
    assert.equal(all.endpoints.length, registry.endpoints.size);
    assert.equal(all.groups, registry.groups.size);

    await page.fill("#filter", "iban");
    const iban = await visible(page);
    assert.ok(iban.endpoints.length >= 1 && iban.endpoints.length < 10, iban.endpoints.join(" | "));
    for (const line of iban.endpoints) assert.match(line, /iban/i);
    assert.ok(iban.endpoints.some((l) => l.startsWith("iban ")), "validators/iban is listed");
    assert.equal(await page.textContent("#shown"), `${iban.endpoints.length} endpoint${iban.endpoints.length === 1 ? "" : "s"}`);

    await page.fill("#filter", "bank of england sonia");
    assert.deepEqual((await visible(page)).endpoints.map((l) => l.split(" ")[0]), ["sonia"]);

    await page.fill("#filter", "zzzz-nothing-like-this");
    assert.deepEqual(await visible(page), { endpoints: [], groups: 0 });

    await page.fill("#filter", "");
    assert.deepEqual(await visible(page), all);
    await page.close();
  });

  it("a group's link leads to its full reference, and an endpoint's link to its own section", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.fill("#filter", "iban");
    await Promise.all([page.waitForURL(`${server.url}/groups/validators`), page.click('#groups a[href="/groups/validators"]')]);
    assert.match(await page.title(), /^Validators/);
    assert.equal(await page.locator("section.ep").count(), server.engine.registry.groups.get("validators")!.endpoints.length);

    await page.goBack();
    await Promise.all([page.waitForURL(/\/groups\/validators#validators__iban$/), page.click('#groups a[href="/groups/validators#validators__iban"]')]);
    const section = page.locator("#validators__iban");
    assert.match((await section.textContent())!, /GET \/v1\/validators\/iban[\s\S]*curl -H "X-API-Key: \$KEY"/);
    assert.ok(await section.isVisible());
    await page.close();
  });

  it("can be filtered while it is still loading, and what arrives later is filtered too", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const cut = html.indexOf(`<li><div class="gh">`, html.length / 2);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Sends the page up to the middle of the group list, then the rest when released.
    const slow = http.createServer(async (req, res) => {
      if (req.url !== "/") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.write(html.slice(0, cut));
      await held;
      res.end(html.slice(cut));
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    const page = await browser.newPage();
    try {
      await page.goto(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, { waitUntil: "commit" });
      await page.fill("#filter", "rate");
      const early = await visible(page);
      const arrived = (await page.evaluate(`document.querySelectorAll("#groups ul > li").length`)) as number;
      assert.ok(arrived < server.engine.registry.endpoints.size, `only part of the list is there (${arrived})`);
      assert.ok(early.endpoints.length > 0 && early.endpoints.length < arrived, `what has arrived is filtered already (${early.endpoints.length} of ${arrived})`);

      release();
      await page.waitForLoadState("domcontentloaded");
      const late = await visible(page);
      const whole = await browser.newPage();
      await whole.goto(`${server.url}/`);
      await whole.fill("#filter", "rate");
      assert.deepEqual(late, await visible(whole));
      assert.ok(late.endpoints.length > early.endpoints.length, "more matches came with the second half");
      await whole.close();
    } finally {
      release();
      await page.close();
      slow.close();
    }
  });

  it("every group page fits a 390 px phone screen without sideways scrolling", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    for (const name of server.engine.registry.groups.keys()) {
      await page.goto(`${server.url}/groups/${name}`);
      assert.equal(await page.evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`), 0, name);
    }
    await context.close();
  });

  it("without JavaScript, every group and endpoint is listed and no dead filter box is shown", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    const all = await visible(page);
    assert.equal(all.endpoints.length, server.engine.registry.endpoints.size);
    assert.equal(await page.isVisible("#filter"), false);
    await context.close();
  });
});
