// Every endpoint against a hostile upstream. Each upstream host answers HTTP 200 with junk ({}, {"foo":1}, [], null,
// "str", an HTML maintenance page, an empty body, truncated JSON, XML and CSV), served with its own content type and
// with the endpoint's; each endpoint is called with its example's parameters. A bad body is the upstream's fault:
// a 502 (503 where a credential or dataset is missing), never charged. Wrong are: a 500; a 4xx, which asserts
// something about the caller's request or record ("not found"); a charged 200 that is empty or made of the junk.
// "Nothing found" is right only where the junk is exactly what the upstream answers for nothing, as a recorded
// answer of one of the endpoint's examples shows. And every upstream request states what a real answer looks
// like (`expect` on each step, or on each of the plugin's ctx.fetch requests), so no new endpoint forgets it.
//
// HOSTILE_UPSTREAM_SHOW=1 prints each wrong answer.
import assert from "node:assert/strict";
import path from "node:path";
import http from "node:http";
import nock from "nock";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import type { Endpoint } from "../../engine/endpoints/model.ts";
import type { Access } from "../../engine/access/types.ts";
import type { UpstreamRequest } from "../../engine/upstream/client.ts";
import type { Running } from "../../engine/http/server.ts";
import { ROOT, mockExample, queryString, resetClock, setClock, standInCredentials, startTestServer } from "../support/helpers.ts";
import { JUNK, hostileExample, hostileUpstreams, judgeFor, ownType, servedAs, type Serving } from "../support/hostile-upstream.ts";

const SHOW = process.env.HOSTILE_UPSTREAM_SHOW === "1";

const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
const endpoints = [...registry.endpoints.values()];

/** Records whether each call was charged: commit() runs only for an answer the caller pays for. */
let charged = false;
const chargeRecorder: Access = {
  authorize: async () => ({ paidBy: "free", headers: {}, commit: async () => ((charged = true), { headers: {}, meta: {} }), release: async () => {} }),
  close: async () => {},
};

/** The upstream requests made through the engine's client (a plugin's ctx.fetch, a step), as the test sees them. */
const requested: UpstreamRequest[] = [];

let server: Running;
describe("hostile upstreams", () => {
  before(async () => {
    server = await startTestServer({ access: chargeRecorder, env: standInCredentials(registry.sources.values()) });
    const fetch = server.engine.upstream.fetch.bind(server.engine.upstream);
    server.engine.upstream.fetch = (req) => (requested.push(req), fetch(req));
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });
  afterEach(() => {
    resetClock();
    server.engine.clearCaches();
  });

  /** A request states what a real answer looks like: a test of the parsed body, or a pattern of the raw one. */
  const states = (req: UpstreamRequest) => Boolean(req.expect?.test || req.expect?.match);

  describe("every upstream request states what a real answer looks like (expect)", () => {
    afterEach(() => nock.cleanAll());
    for (const endpoint of endpoints) {
      it(endpoint.key, async () => {
        let missing: boolean;
        if (endpoint.steps) missing = endpoint.steps.some((s) => !s.expectTest && !s.expect?.match);
        else {
          // A plugin's requests are seen as its examples replay their recorded upstream answers.
          requested.length = 0;
          for (const example of endpoint.examples.filter((e) => e.fixtures?.length)) {
            setClock(example);
            mockExample(registry, endpoint.group, example);
            if (example.datasets?.length) await server.engine.datasets.loadTestDatasets?.(example.datasets);
            await call(`${server.url}${endpoint.path}${queryString(example.params)}`);
            nock.cleanAll();
            server.engine.clearCaches();
          }
          missing = requested.some((r) => !states(r));
        }
        assert.ok(!missing, `${endpoint.key} makes an upstream request without \`expect\` (what a real answer looks like)`);
      });
    }
  });

  describe("every endpoint against upstreams that answer junk", () => {
    const serving: Serving = { body: "", type: "", requests: 0 };
    const ran = new Set<string>();
    const reaching = new Set<string>();
    before(() => hostileUpstreams(registry, serving));
    after(() => nock.cleanAll());

    for (const endpoint of endpoints) {
      it(endpoint.key, async function () {
        // An endpoint that falls back to a long computation when its upstream fails takes seconds per call.
        this.timeout(180_000);
        const failures = await junkRun(endpoint, serving);
        ran.add(endpoint.key);
        if (serving.requests) reaching.add(endpoint.key);
        const wrong = Object.entries(failures).map(([junk, what]) => `${junk}: ${what}`);
        assert.deepEqual(wrong, [], `${endpoint.key} (${endpoint.plugin ? `plugin ${endpoint.plugin.name}` : "upstream steps"}), junk answered wrongly:\n  ${wrong.join("\n  ")}`);
      });
    }

    // Only an endpoint that asks no upstream (a computation, a local dataset) is left out, and only because it asked none.
    it(`covers all ${endpoints.length} endpoints: those that ask an upstream, and the others only because they ask none`, () => {
      const computed = endpoints.filter((e) => ran.has(e.key) && !reaching.has(e.key));
      assert.equal(reaching.size + computed.length, registry.endpoints.size, `${reaching.size} endpoints asked an upstream and ${computed.length} none: ${registry.endpoints.size - ran.size} were not run`);
      const shouldAsk = computed.filter((e) => e.steps || e.examples.some((x) => x.fixtures?.length));
      assert.deepEqual(shouldAsk.map((e) => e.key), [], "these have upstream steps or recorded upstream answers, yet asked no upstream");
    });
  });
});

/** Calls the endpoint once per junk body and content type; what went wrong, by junk. */
async function junkRun(endpoint: Endpoint, serving: Serving): Promise<Record<string, string>> {
  const example = hostileExample(endpoint);
  setClock(example);
  if (example.datasets?.length) await server.engine.datasets.loadTestDatasets?.(example.datasets);
  const judge = judgeFor(endpoint, example);
  const failures: Record<string, string> = {};
  serving.requests = 0;
  for (const junk of JUNK) {
    for (const { label, type } of servedAs(junk, ownType(example))) {
      Object.assign(serving, { body: junk.body, type });
      charged = false;
      server.engine.clearCaches();
      const before = serving.requests;
      const res = await call(`${server.url}${endpoint.path}${queryString(example.params)}`);
      // An answer no upstream was asked for (a computation, a local dataset) is not this test's business.
      if (serving.requests === before) continue;
      const wrong = judge({ status: res.status, code: res.body?.code, data: res.body?.data, charged }, junk);
      if (!wrong) continue;
      failures[label] = wrong;
      if (SHOW) console.log(`${endpoint.key} given ${label}: ${wrong}\n  ${JSON.stringify(res.body).slice(0, 600)}`);
    }
  }
  return failures;
}

/**
 * A GET on a connection of its own: an endpoint that keeps the event loop busy for seconds (a long computation) must
 * not make the next call meet a kept-alive connection the server is closing.
 */
function call(url: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c)).on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    }).on("error", reject);
  });
}
