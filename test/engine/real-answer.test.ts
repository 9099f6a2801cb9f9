// An upstream body becomes a charged answer only when it is the real thing: each request states what a real answer
// looks like (`expect`), the engine refuses what never is one (an HTML page, a bare JSON scalar), and an error raised
// while reading an upstream's answer, by whatever code, is a 502 that costs the caller nothing, never a 500.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import { getJson, memoryLog, tempDir, useTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";
import type { Access } from "../../engine/access/types.ts";
import type { PluginFn, PluginRequest } from "../../engine/endpoints/plugin.ts";
import { compileTransform } from "../../engine/endpoints/transform.ts";

const ONS = "https://api.beta.ons.gov.uk";

/** Counts the calls charged: commit() runs only for an answer the caller pays for. */
const charged: string[] = [];
const countingAccess: Access = {
  authorize: async (call) => ({ paidBy: "free", headers: {}, commit: async () => (charged.push(call.endpoint.key), { headers: {}, meta: {} }), release: async () => {} }),
  close: async () => {},
};

async function chargedOnlyFor200(url: string): Promise<{ status: number; body: any }> {
  const res = await getJson(url);
  assert.equal(charged.length, res.status === 200 ? 1 : 0, `charged only for a 200 (status ${res.status})`);
  return res;
}

function demoEndpoints(): string {
  const dir = tempDir("pda-real-answer-");
  fs.mkdirSync(path.join(dir, "demo"));
  fs.writeFileSync(path.join(dir, "demo", "_group.yaml"), "title: Demo\ndescription: Upstream answers, real and not\n");
  const endpoint = (operation: string, step: string) => fs.writeFileSync(path.join(dir, "demo", `${operation}.yaml`), `operation: ${operation}
summary: A demo of upstream answers
description: Reads one upstream answer.
price: 0.001
upstream:
  source: ons
  path: /${operation}
${step}
transform: "$"
examples:
  - params: {}
`);
  endpoint("plain", "  cache: 1h");
  endpoint("tested", "  cache: 1h\n  expect: { test: \"$exists(items)\" }");
  endpoint("xml", "  format: xml");
  endpoint("xhtml", "  format: xml\n  expect: { match: \"<html xmlns=\" }");
  endpoint("csv", "  format: csv");
  return dir;
}

const MAINTENANCE = "<!DOCTYPE html>\n<html><head><title>Down</title></head><body><p>Down for maintenance</p></body></html>";

describe("engine: only a real upstream answer becomes a charged answer", () => {
  let server: Running;
  const logs = memoryLog();
  useTestServer({ access: countingAccess, log: logs.log, config: { endpointsDir: demoEndpoints(), upstreamRetries: 0 } }, (s) => (server = s));
  afterEach(() => (charged.length = 0));

  /** Adds a plugin endpoint demo/<operation> to the running server (a copy of demo/plain with the plugin instead of steps). */
  function pluginEndpoint(operation: string, fn: PluginFn, transform?: string): string {
    const base = server.engine.registry.find("demo", "plain")!;
    const key = `demo/${operation}`;
    server.engine.registry.endpoints.set(key, { ...base, operation, key, steps: undefined, transform: transform ? compileTransform(transform) : undefined, plugin: { name: `demo.${operation}`, fn } });
    return `${server.url}/v1/${key}`;
  }

  const call = (url: string) => chargedOnlyFor200(url);

  describe("an error while reading an upstream answer is a 502, whatever raised it", () => {
    it("a JSONata $error in a plugin endpoint's transform", async () => {
      const url = pluginEndpoint("transform-refuses", async (ctx) => ctx.fetch({ source: "ons", path: "/record" }), '$exists(record.id) ? record : $error("no record id")');
      nock(ONS).get("/v1/record").reply(200, { other: 1 });
      const res = await call(url);
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.match(res.body.detail, /The upstream source ons answered with a body that could not be read \(no record id\)\. The call was not charged\./);
    });

    it("a TypeError in a plugin after an upstream answered: a 502 for the caller, the stack in the log for the maintainer", async () => {
      const url = pluginEndpoint("reads-blindly", async (ctx) => {
        const body = (await ctx.fetch({ source: "ons", path: "/blind" })) as { items: { id: string }[] };
        return { first: body.items[0].id.toUpperCase() };
      });
      nock(ONS).get("/v1/blind").reply(200, { things: [] });
      const res = await call(url);
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.code, "upstream_bad_response");
      assert.equal(res.body.upstream, "ons");
      assert.doesNotMatch(JSON.stringify(res.body), /\n\s+at /, "no stack trace for the caller");
      const logged = logs.text().split("\n").filter((l) => l.includes('"demo/reads-blindly"')).map((l) => JSON.parse(l));
      assert.equal(logged.length, 1);
      assert.equal(logged[0].level, 50, "logged as an error");
      assert.match(logged[0].err.stack, /TypeError/);
      assert.equal(logged[0].upstream, "ons");
    });

    it("the same error before any upstream answered is the code's own: a 500", async () => {
      const url = pluginEndpoint("computes-badly", () => (undefined as unknown as { x: number }).x);
      const res = await call(url);
      assert.equal(res.status, 500);
      assert.equal(res.body.code, "internal_error");
    });

  });

  describe("a plugin states what a real answer looks like next to its request (ctx.fetch expect)", () => {
    const fetching = (expect: PluginRequest["expect"]): PluginFn => async (ctx) => ({ body: await ctx.fetch({ source: "ons", path: "/stated", expect }) });

    it("a JSONata test: a body without it is a 502, not charged", async () => {
      const url = pluginEndpoint("stated-jsonata", fetching({ test: "$exists(items) and $count(items) >= 0" }));
      nock(ONS).get("/v1/stated").reply(200, { foo: 1 });
      const refused = await call(url);
      assert.equal(refused.status, 502);
      assert.match(refused.body.detail, /lacks what a real answer has/);
      nock(ONS).get("/v1/stated").reply(200, { items: [] });
      const res = await call(url);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, { body: { items: [] } });
    });

    it("a predicate", async () => {
      const url = pluginEndpoint("stated-predicate", fetching({ test: (b) => Array.isArray(b) && b.length > 0 }));
      nock(ONS).get("/v1/stated").reply(200, []);
      assert.equal((await call(url)).status, 502);
    });

    it("a pattern of the raw body", async () => {
      const url = pluginEndpoint("stated-match", fetching({ match: /^\s*\{"items"/ }));
      nock(ONS).get("/v1/stated").reply(200, { other: [] });
      assert.equal((await call(url)).status, 502);
    });
  });

  describe("what is never a real answer, where the endpoint says nothing", () => {
    for (const body of ["null", '"str"', "42", "true"]) {
      it(`a JSON ${body} where an object or a list is read`, async () => {
        nock(ONS).get("/v1/plain").reply(200, body, { "content-type": "application/json" });
        const res = await call(`${server.url}/v1/demo/plain`);
        assert.equal(res.status, 502, JSON.stringify(res.body));
        assert.equal(res.body.code, "upstream_bad_response");
        assert.match(res.body.detail, /where a JSON object or list was expected/);
      });
    }

    for (const [operation, format] of [["xml", "XML"], ["csv", "CSV"]]) {
      it(`an HTML maintenance page where ${format} is read`, async () => {
        nock(ONS).get(`/v1/${operation}`).reply(200, MAINTENANCE, { "content-type": "text/html" });
        const res = await call(`${server.url}/v1/demo/${operation}`);
        assert.equal(res.status, 502, JSON.stringify(res.body));
        assert.match(res.body.detail, new RegExp(`an HTML page instead of ${format}`));
      });
    }

    it("an XHTML answer an endpoint states (expect.match) is read", async () => {
      nock(ONS).get("/v1/xhtml").reply(200, '<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><p>notice</p></body></html>');
      const res = await call(`${server.url}/v1/demo/xhtml`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.html.body.p, "notice");
    });
  });

  it("a body that fails a step's expect test is not cached: the next call asks again", async () => {
    nock(ONS).get("/v1/tested").reply(200, { foo: 1 });
    assert.equal((await call(`${server.url}/v1/demo/tested`)).status, 502);
    charged.length = 0;
    const scope = nock(ONS).get("/v1/tested").reply(200, { items: [1] });
    const res = await call(`${server.url}/v1/demo/tested`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { items: [1] });
    assert.ok(scope.isDone());
  });
});

describe("engine: real endpoints whose plugin read a bad upstream body answer 502, not 500", () => {
  let server: Running;
  useTestServer({ access: countingAccess, config: { upstreamRetries: 0 } }, (s) => (server = s));
  afterEach(() => (charged.length = 0));
  const call = (url: string) => chargedOnlyFor200(url);

    it("doi/work given {}", async () => {
      nock("https://api.crossref.org").get("/works/10.1038%2Fnnano.2014.279").query(true).reply(200, {});
      const res = await call(`${server.url}/v1/doi/work?doi=10.1038/nnano.2014.279`);
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.code, "upstream_bad_response");
      assert.equal(res.body.upstream, "crossref");
    });

    it("uk-postcodes/lookup given a JSON body that is not postcodes.io's", async () => {
      nock("https://api.postcodes.io").get("/postcodes/NW52AH").reply(200, { foo: 1 });
      const res = await call(`${server.url}/v1/uk-postcodes/lookup?postcode=NW5 2AH`);
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.code, "upstream_bad_response");
    });

    it("a caller's page that breaks the reader (web-reader/read given {} as text/html)", async () => {
      nock("https://www.example.org").get("/robots.txt").reply(404).get("/article").reply(200, "{}", { "content-type": "text/html" });
      const res = await call(`${server.url}/v1/web-reader/read?url=${encodeURIComponent("https://www.example.org/article")}`);
      assert.equal(res.status, 502, JSON.stringify(res.body));
    });
  });
