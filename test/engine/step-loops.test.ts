// Steps that loop and page, declared in an endpoint file: `for_each` asks once per item of a list (at most `max`,
// refused or cut, at most `concurrency` at a time), `paginate` follows the upstream's next link (which must stay on
// the source) or counts a page number or an offset, up to `max_pages`; `check` tests a step's body once it is in;
// a step's headers are templates; and steps that read no earlier body are asked side by side.
// The demo endpoints ask the ons source (https://api.beta.ons.gov.uk/v1: a base URL with a path).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { ROOT, freeAccess, getJson, startTestServer, tempDir } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";
import type { Access } from "../../engine/access/types.ts";

const ONS = "https://api.beta.ons.gov.uk";
const json = { "content-type": "application/json" };

const endpoint = (operation: string, body: string) => `operation: ${operation}
summary: A demo of ${operation}
description: A demo of ${operation}.
price: 0.001
${body}
examples:
  - params: {}
`;

const ENDPOINTS: Record<string, string> = {
  together: endpoint("together", `upstream:
  - as: a
    source: ons
    path: /a
    expect: { test: "$exists(v)" }
  - as: b
    source: ons
    path: /b
    expect: { test: "$exists(v)" }
  - as: c
    source: ons
    path: "/c/{= $steps.a.v }"
    expect: { test: "$exists(v)" }
transform: "{ 'v': [a.v, b.v, c.v] }"`),
  items: endpoint("items", `params:
  ids: { type: string, required: true, description: Comma-separated ids. }
  lang: { type: string, description: A language for the accept-language header. }
upstream:
  source: ons
  path: "/items/{= $item }"
  headers: { accept-language: "{lang}", x-position: "{= $string($index) }" }
  for_each: { items: "$split($params.ids, ',')", max: 5, param: ids, concurrency: 2 }
  expect: { test: "id = $item" }
transform: "{ 'names': $.name }"`),
  cut: endpoint("cut", `upstream:
  - as: list
    source: ons
    path: /list
    cache: 1h
    expect: { test: "$exists(ids)" }
  - as: each
    source: ons
    path: "/items/{= $item }"
    for_each: { items: "$steps.list.ids", max: 3, beyond_max: cut }
    cache: 1h
    expect: { test: "$exists(id)" }
transform: "{ 'ids': each.id }"`),
  refused: endpoint("refused", `upstream:
  - as: list
    source: ons
    path: /list
    expect: { test: "$exists(ids)" }
  - as: each
    source: ons
    path: "/items/{= $item }"
    for_each: { items: "$steps.list.ids", max: 3 }
    expect: { test: "$exists(id)" }
transform: "{ 'ids': each.id }"`),
  checked: endpoint("checked", `params:
  ids: { type: string, required: true, description: Comma-separated ids. }
upstream:
  source: ons
  path: "/known/{= $item }"
  for_each: { items: "$split($params.ids, ',')", max: 3, param: ids }
  expect: { test: "$type(known) = 'boolean'" }
  check: { test: "$count($[known]) > 0", status: 404, param: ids, detail: "None of {ids} is known." }
transform: "{ 'known': $[known].id }"`),
  linked: endpoint("linked", `upstream:
  source: ons
  path: /pages
  query: { size: "2" }
  paginate: { next: "links.next", max_pages: 3 }
  expect: { test: "$type(items) = 'array'" }
transform: "{ 'items': [$.items], 'pages': $count($) }"`),
  numbered: endpoint("numbered", `upstream:
  source: ons
  path: /numbered
  query: { size: "2" }
  paginate: { page: _page, first: 0, more: "$count(items) = 2", max_pages: 3 }
  expect: { test: "$type(items) = 'array'" }
transform: "{ 'items': [$.items] }"`),
  offset: endpoint("offset", `upstream:
  source: ons
  path: /offset
  query: { limit: "2" }
  paginate: { offset: start, per_page: 2, more: "$count(items) = 2 and $pages < 2", max_pages: 5 }
  expect: { test: "$type(items) = 'array'" }
transform: "{ 'items': [$.items] }"`),
};

describe("engine: steps that loop and page", function () {
  this.timeout(20_000);
  let server: Running;
  const get = (pathAndQuery: string) => getJson(`${server.url}/v1/demo/${pathAndQuery}`);
  /** How many calls reached the access decision (where payment is asked for). */
  let decided = 0;
  const access: Access = { ...freeAccess, authorize: (req) => (decided++, freeAccess.authorize(req)) };
  before(async () => {
    const dir = tempDir("pda-step-loops-");
    fs.mkdirSync(path.join(dir, "demo"), { recursive: true });
    fs.writeFileSync(path.join(dir, "demo/_group.yaml"), "title: Demo\ndescription: Loops and pages\n");
    for (const [name, text] of Object.entries(ENDPOINTS)) fs.writeFileSync(path.join(dir, `demo/${name}.yaml`), text);
    server = await startTestServer({ access, config: { endpointsDir: dir } });
  });
  afterEach(() => {
    nock.cleanAll();
    server.engine.clearCaches();
  });
  after(() => server?.close());

  describe("steps side by side", () => {
    it("asks steps that read no earlier body together, a step naming $steps after them, and answers in the file's order", async () => {
      const log: string[] = [];
      let inFlight = 0;
      let most = 0;
      // a answers last of the two: the order of meta.sources is still the file's.
      for (const [p, wait] of [["/v1/a", 400], ["/v1/b", 50], ["/v1/c/A", 0]] as const) {
        nock(ONS).get(p).reply(async () => {
          log.push(`start ${p}`);
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, wait));
          inFlight--;
          log.push(`end ${p}`);
          return [200, { v: p === "/v1/a" ? "A" : p.at(-1)!.toUpperCase() }, json];
        });
      }
      const res = await get("together");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.v, ["A", "B", "A"]);
      assert.equal(most, 2, "a and b in flight together");
      assert.ok(log.indexOf("start /v1/c/A") > log.indexOf("end /v1/a"), `c waits for a: ${log.join(", ")}`);
      assert.deepEqual(res.body.meta.sources.map((s: { url: string }) => new URL(s.url).pathname), ["/v1/a", "/v1/b", "/v1/c/A"]);
    });
  });

  describe("for_each", () => {
    it("asks once per item, at most `concurrency` at a time, and answers the bodies in the items' order", async () => {
      let inFlight = 0;
      let most = 0;
      const headers: Record<string, string | undefined>[] = [];
      // nock hands a reply function the request as a fetch Request.
      nock(ONS).get(/^\/v1\/items\/[a-e]$/).times(5).reply(async (req: Request) => {
        headers.push({ lang: req.headers.get("accept-language") ?? undefined, position: req.headers.get("x-position") ?? undefined });
        most = Math.max(most, ++inFlight);
        const id = req.url.split("/").at(-1)!;
        // Later items answer sooner (and ons spaces its requests 100 ms apart): the order of the answer is the items', not the replies'.
        await new Promise((r) => setTimeout(r, 300 - 50 * "abcde".indexOf(id)));
        inFlight--;
        return [200, { id, name: id.toUpperCase() }, json];
      });
      const res = await get("items?ids=a,b,c,d,e&lang=cy");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.names, ["A", "B", "C", "D", "E"]);
      assert.equal(most, 2, "at most 2 requests in flight");
      assert.deepEqual(headers.map((h) => h.lang), ["cy", "cy", "cy", "cy", "cy"]);
      assert.deepEqual(headers.map((h) => h.position).sort(), ["0", "1", "2", "3", "4"]);
      assert.deepEqual(res.body.meta.sources.map((s: { url: string }) => s.url.split("/").at(-1)), ["a", "b", "c", "d", "e"]);
    });

    it("sends no header whose template renders empty", async () => {
      let sent: unknown = "unset";
      nock(ONS).get("/v1/items/a").reply((req: Request) => {
        sent = req.headers.get("accept-language");
        return [200, { id: "a", name: "A" }, json];
      });
      const res = await get("items?ids=a");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(sent, null);
    });

    it("refuses more items than max from a parameter: a 400 naming it, before any request or payment", async () => {
      const before = decided;
      const res = await get("items?ids=a,b,c,d,e,f");
      assert.equal(res.status, 400);
      assert.equal(decided, before, "refused before the access decision");
      assert.equal(res.body.param, "ids");
      assert.match(res.body.detail, /ids gives 6 .*at most 5/);
    });

    it("fails the call when one item's answer is not a real answer (its expect sees $item)", async () => {
      nock(ONS).get("/v1/items/a").reply(200, { id: "a", name: "A" }, json);
      nock(ONS).get("/v1/items/b").reply(200, { id: "not-b", name: "B" }, json);
      const res = await get("items?ids=a,b");
      assert.equal(res.status, 502);
      assert.equal(res.body.code, "upstream_bad_response");
    });

    it("cuts a longer list from an upstream to max, says so in meta.warnings, and keeps the answer", async () => {
      nock(ONS).get("/v1/list").reply(200, { ids: [1, 2, 3, 4, 5] }, json);
      for (const id of [1, 2, 3]) nock(ONS).get(`/v1/items/${id}`).reply(200, { id }, json);
      const res = await get("cut");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.ids, [1, 2, 3]);
      assert.equal(res.body.meta.warnings.length, 1);
      assert.equal(res.body.meta.warnings[0].part, "each");
      assert.match(res.body.meta.warnings[0].detail, /Only the first 3 of 5 each were looked up/);
      // Cut the same way every time: the answer is reused, warning and all (nock would refuse a second request).
      const again = await get("cut");
      assert.equal(again.status, 200);
      assert.equal(again.headers.get("x-cache"), "HIT");
      assert.equal(again.body.meta.warnings.length, 1);
    });

    it("refuses a longer list from an upstream without a param to blame: a 502, not charged", async () => {
      nock(ONS).get("/v1/list").reply(200, { ids: [1, 2, 3, 4] }, json);
      const res = await get("refused");
      assert.equal(res.status, 502);
      assert.equal(res.body.code, "upstream_bad_response");
      assert.match(res.body.detail, /listed 4 each to look up, more than the 3/);
    });

    it("checks the list of bodies once it is in (check): a 404 when none is known", async () => {
      for (const id of ["a", "b"]) nock(ONS).get(`/v1/known/${id}`).reply(200, { id, known: false }, json);
      const res = await get("checked?ids=a,b");
      assert.equal(res.status, 404);
      assert.equal(res.body.param, "ids");
      assert.equal(res.body.detail, "None of a,b is known.");
      for (const id of ["a", "b"]) nock(ONS).get(`/v1/known/${id}`).reply(200, { id, known: id === "b" }, json);
      const found = await get("checked?ids=a,b");
      assert.equal(found.status, 200);
      assert.deepEqual(found.body.data, { known: "b" });
    });

    it("answers an empty list for no items, asking nothing", async () => {
      nock(ONS).get("/v1/list").reply(200, { ids: [] }, json);
      const res = await get("cut");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.ids, undefined);
    });
  });

  describe("paginate", () => {
    it("follows the next link (absolute, or a path) and answers the list of pages", async () => {
      nock(ONS).get("/v1/pages").query({ size: "2" }).reply(200, { items: [1, 2], links: { next: `${ONS}/v1/pages?size=2&after=2` } }, json);
      nock(ONS).get("/v1/pages").query({ size: "2", after: "2" }).reply(200, { items: [3, 4], links: { next: "/v1/pages?size=2&after=4" } }, json);
      nock(ONS).get("/v1/pages").query({ size: "2", after: "4" }).reply(200, { items: [5], links: {} }, json);
      const res = await get("linked");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data, { items: [1, 2, 3, 4, 5], pages: 3 });
      assert.equal(res.body.meta.sources.length, 3);
      assert.equal(res.body.meta.warnings, undefined);
    });

    it("stops at max_pages and says that pages were left unread", async () => {
      for (let i = 0; i < 3; i++) nock(ONS).get("/v1/pages").query(i ? { size: "2", after: String(i) } : { size: "2" }).reply(200, { items: [i], links: { next: `${ONS}/v1/pages?size=2&after=${i + 1}` } }, json);
      const res = await get("linked");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data, { items: [0, 1, 2], pages: 3 });
      assert.match(res.body.meta.warnings[0].detail, /Only the first 3 pages/);
    });

    for (const [what, link] of [
      ["another host", "https://evil.example/v1/pages?after=2"],
      ["the source's host through a user name", "https://api.beta.ons.gov.uk@evil.example/v1/pages"],
      ["plain http", "http://api.beta.ons.gov.uk/v1/pages?after=2"],
      ["a path outside the source's base path", "/other/pages?after=2"],
    ]) {
      it(`refuses a next link to ${what}: a 502 upstream_bad_response, and nothing is asked of it`, async () => {
        nock(ONS).get("/v1/pages").query({ size: "2" }).reply(200, { items: [1, 2], links: { next: link } }, json);
        const evil = nock("https://evil.example").get(/.*/).reply(200, { items: [666] }, json);
        const res = await get("linked");
        assert.equal(res.status, 502, JSON.stringify(res.body));
        assert.equal(res.body.code, "upstream_bad_response");
        assert.match(res.body.detail, /gave a next-page link .*not on its own server https:\/\/api\.beta\.ons\.gov\.uk\/v1; it was not called\. The call was not charged/);
        assert.ok(!evil.isDone());
      });
    }

    it("counts a page number from `first` while `more` holds", async () => {
      nock(ONS).get("/v1/numbered").query({ size: "2", _page: "0" }).reply(200, { items: ["a", "b"] }, json);
      nock(ONS).get("/v1/numbered").query({ size: "2", _page: "1" }).reply(200, { items: ["c"] }, json);
      const res = await get("numbered");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.items, ["a", "b", "c"]);
    });

    it("counts an offset by per_page, and `more` sees the pages read so far", async () => {
      nock(ONS).get("/v1/offset").query({ limit: "2", start: "0" }).reply(200, { items: ["a", "b"] }, json);
      nock(ONS).get("/v1/offset").query({ limit: "2", start: "2" }).reply(200, { items: ["c", "d"] }, json);
      const res = await get("offset");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.items, ["a", "b", "c", "d"]);
    });

    it("fails the call when a later page is not a real answer", async () => {
      nock(ONS).get("/v1/numbered").query({ size: "2", _page: "0" }).reply(200, { items: ["a", "b"] }, json);
      nock(ONS).get("/v1/numbered").query({ size: "2", _page: "1" }).reply(200, "<html>busy</html>", { "content-type": "text/html" });
      const res = await get("numbered");
      assert.equal(res.status, 502);
    });
  });

  describe("start-up checks", () => {
    async function loadError(text: string): Promise<string> {
      const dir = tempDir("pda-step-loops-bad-");
      fs.mkdirSync(path.join(dir, "demo"));
      fs.writeFileSync(path.join(dir, "demo/_group.yaml"), "title: Demo\ndescription: Bad loops\n");
      fs.writeFileSync(path.join(dir, "demo/thing.yaml"), endpoint("thing", text));
      try {
        await loadRegistry({ rootDir: ROOT, endpointsDir: dir });
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    }
    const step = (extra: string) => `upstream:\n  - as: one\n    source: ons\n    path: /x\n    expect: { test: "true" }\n${extra}`;

    it("names the file and key path of a bad for_each or paginate key", async () => {
      assert.match(await loadError(step("    for_each: { items: \"[1]\", max: 3, conncurrency: 2 }")), /demo\/thing\.yaml: upstream\.0\.for_each has an unknown key "conncurrency"/);
      assert.match(await loadError(step("    for_each: { items: \"[1]\" }")), /demo\/thing\.yaml: upstream\.0\.for_each must have required property 'max'/);
      assert.match(await loadError(step("    paginate: { page: p, max_pages: 3 }")), /demo\/thing\.yaml: upstream\[0\]\.paginate: page or offset needs `more`/);
      assert.match(await loadError(step("    paginate: { offset: o, more: \"true\", max_pages: 3 }")), /upstream\[0\]\.paginate: offset needs `per_page`/);
      assert.match(await loadError(step("    paginate: { next: \"links.next\", max_pages: 3 }\n    for_each: { items: \"[1]\", max: 2 }")), /upstream\[0\]\.for_each: a step with for_each cannot also paginate/);
      assert.match(await loadError(step("    for_each: { items: \"[1]\", max: 2, param: nope }")), /for_each\.param names nope, which is not a parameter/);
      assert.match(await loadError(step("    headers: { x-id: \"{nope}\" }")), /template "\{nope\}" uses \{nope\}, which is neither a param nor a var/);
    });

    it("loads a good one", async () => {
      assert.equal(await loadError(step("    paginate: { next: \"links.next\", max_pages: 3 }")), "");
    });
  });
});
