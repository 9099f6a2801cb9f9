// The pages a person opens, on the real registry: / is small enough to load quickly (at most 150 KB as sent
// compressed) and lists every group, sorted by the title shown, with its endpoints; each group's full reference
// (price, parameters, example call of every endpoint) is its own page at /groups/<group>.
import assert from "node:assert/strict";
import { PROBLEM_TITLES } from "../../engine/basics/problem.ts";
import { freeAccess, startTestServer } from "../support/helpers.ts";
import { rawRequest } from "./raw-request.ts";
import type { Running } from "../../engine/http/server.ts";

describe("the landing page and the group pages", function () {
  this.timeout(60_000);
  let server: Running;
  let home: string;
  before(async () => {
    server = await startTestServer({ access: freeAccess });
    home = await (await fetch(`${server.url}/`)).text();
  });
  after(async () => server?.close());

  for (const encoding of ["br", "gzip"]) {
    it(`/ is at most 150 KB as sent with ${encoding}`, async () => {
      const res = await rawRequest(`${server.url}/`, { headers: { "accept-encoding": encoding } });
      assert.equal(res.headers["content-encoding"], encoding);
      assert.ok(res.raw.length <= 150 * 1024, `${res.raw.length} bytes`);
      assert.equal(res.text(), home);
    });
  }

  it("/ lists every group by its title, sorted, each linking to its page, with every endpoint", () => {
    const groups = [...server.engine.registry.groups.values()];
    const shown = [...home.matchAll(/<div class="gh"><a href="\/groups\/([a-z0-9-]+)"><b>([^<]+)<\/b>/g)].map((m) => ({ name: m[1], title: m[2] }));
    assert.deepEqual(shown.map((g) => g.name).sort(), groups.map((g) => g.name).sort());
    const titles = shown.map((g) => g.title);
    assert.deepEqual(titles, [...titles].sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" })));
    for (const e of server.engine.registry.endpoints.values()) assert.ok(home.includes(`href="/groups/${e.group}#${e.toolName}"`), `${e.key} listed`);
  });

  it("/ has a filter box, a 'For agents' block and the error codes that problem types point to", () => {
    assert.match(home, /<input id="filter" type="search"/);
    assert.match(home, /<section id="for-agents"><h2>For agents<\/h2>[\s\S]*href="\/openapi.json"/);
    for (const code of Object.keys(PROBLEM_TITLES)) assert.ok(home.includes(`<li id="${code}">`), code);
  });

  it("every group has its page with every endpoint's price, parameters and example call", async () => {
    for (const g of server.engine.registry.groups.values()) {
      const res = await fetch(`${server.url}/groups/${g.name}`);
      assert.equal(res.status, 200, g.name);
      assert.match(res.headers.get("content-type")!, /^text\/html/);
      const html = await res.text();
      assert.ok(html.includes(`<title>${g.title.replaceAll("&", "&amp;").replaceAll("'", "&#39;")}:`), `${g.name} title`);
      for (const e of g.endpoints) {
        const section = html.slice(html.indexOf(`<section class="ep" id="${e.toolName}">`));
        assert.ok(section.length < html.length, `${e.key} has its section`);
        const own = section.slice(0, section.indexOf("</section>"));
        assert.ok(own.includes(`GET ${e.path}`), `${e.key} path`);
        assert.ok(own.includes(e.freeOnly ? "free allowance only" : `$${e.price} a call`), `${e.key} price`);
        for (const p of Object.keys(e.params)) assert.ok(own.includes(`<code>${p}</code>`), `${e.key} parameter ${p}`);
        assert.ok(own.includes(`curl -H "X-API-Key: $KEY" '${server.engine.config.baseUrl}${e.path}`), `${e.key} example`);
      }
    }
    const bankRate = await (await fetch(`${server.url}/groups/bank-of-england`)).text();
    assert.match(bankRate, /curl -H "X-API-Key: \$KEY" '[^']*\/v1\/bank-of-england\/bank-rate\?from=2025-08-01'/);
  });

  it("an unknown group answers 404 problem details", async () => {
    const res = await fetch(`${server.url}/groups/no-such-group`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: string }).code, "not_found");
  });
});
