// Every endpoint file's examples, replayed (engine/cli/example-replay.ts): a new YAML file without a working example
// fails here, and so does an answer schema that is no longer what the examples give (`npm run answers` writes them).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import type { Registry } from "../../engine/endpoints/model.ts";
import { fixtureFile, ROOT, freeAccess, getJson, pick, queryString, resetClock, setClock, standInCredentials, useTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";
import type { Access } from "../../engine/access/types.ts";
import { Problem } from "../../engine/basics/problem.ts";
import { Ajv2020 } from "ajv/dist/2020.js";
import { derivedAnswerSchema } from "../../engine/endpoints/answer-schema.ts";
import { replayExample } from "../../engine/cli/example-replay.ts";

const ajv = new Ajv2020({ allErrors: true, strict: false });

// Loaded before the tests are declared, so that each example is a test of its own; a load error is a failing test.
let registry: Registry | undefined;
let loadError: unknown;
try {
  registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
} catch (e) {
  loadError = e;
}

// An example that states `today` or `now` runs with the engine's clock on that day or at that instant (setClock);
// each describe below puts the real clock back after every test.
describe("every endpoint file", () => {
  afterEach(resetClock);
  it("loads and validates", () => {
    if (loadError) throw loadError;
  });
  let server: Running;
  // Every credential a source names is set to a stand-in ("test-<variable>"), so examples can state the request
  // headers and query the credential becomes; a test of a missing credential starts its own server.
  // An OAuth2 source's token request is mocked by the replay, granting "test-<source>-token".
  const credentials = standInCredentials(registry?.sources.values() ?? []);
  useTestServer({ access: freeAccess, env: credentials }, (s) => (server = s));

  for (const endpoint of registry?.endpoints.values() ?? []) {
    describe(endpoint.key, () => {
      const answers: unknown[] = [];
      // A declared `output:` is checked answer by answer; a derived one must be what these answers give.
      const validate = endpoint.output && !endpoint.outputFile ? ajv.compile(endpoint.output) : undefined;
      it("has a typed answer (its output schema)", () => {
        assert.ok(endpoint.output, `${endpoint.key} has no answer schema: declare \`output:\` or run \`npm run answers\``);
      });
      it("has an example, a summary, a description and a price", () => {
        assert.ok(endpoint.examples.length >= 1);
        // Price 0 only for an endpoint served within the free allowance only, which its description must say.
        assert.ok(endpoint.price > 0 || (endpoint.price === 0 && /free allowance only/i.test(endpoint.description)), "price > 0, or 0 with \"free allowance only\" in the description");
        for (const ex of endpoint.examples) {
          for (const f of ex.fixtures ?? []) assert.ok(fs.existsSync(fixtureFile(f.file, endpoint.group)), `fixture ${f.file} exists`);
        }
      });
      for (const [i, example] of endpoint.examples.entries()) {
        it(example.title ?? `example ${i + 1}: ${JSON.stringify(example.params)}`, async () => {
          const { res, unused } = await replayExample(server, endpoint, example);
          assert.equal(res.status, example.status ?? 200, `status (body: ${JSON.stringify(res.body).slice(0, 400)})`);
          if ((example.status ?? 200) === 200) {
            assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
            assert.equal(res.body.meta.endpoint, endpoint.key);
            assert.equal(res.body.meta.price_usd, endpoint.price);
            answers.push(res.body.data);
            if (validate && !validate(res.body.data)) {
              assert.fail(`the answer does not match ${endpoint.key}'s answer schema: ${ajv.errorsText(validate.errors, { dataVar: "data" })}`);
            }
          } else {
            assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
          }
          for (const [expr, expected] of Object.entries(example.expect ?? {})) {
            assert.deepEqual(await pick(res.body, expr), expected, `${expr} in ${JSON.stringify(res.body).slice(0, 300)}`);
          }
          assert.deepEqual(unused, [], "every recorded upstream call was made");
        });
      }
      if (endpoint.outputFile) {
        it(`has a current answer schema (${endpoint.outputFile})`, () => {
          assert.equal(answers.length, endpoint.examples.filter((ex) => (ex.status ?? 200) === 200).length, "every example answered");
          assert.deepEqual(endpoint.output, derivedAnswerSchema(answers), `the examples' answers have changed shape: if that is meant, run \`npm run answers -- ${endpoint.group}\``);
        });
      }
    });
  }
});

/** An access layer that asks every call for payment: what a caller without a key or credit meets. */
const paymentAlways: Access = {
  authorize: async () => {
    throw new Problem({ status: 402, code: "payment_required", detail: "stand-in: payment required" });
  },
  close: async () => {},
};

// Bad input is refused before any payment is asked for: every check an example expects a 400 from is made by
// the endpoint file (pattern, length, bounds, param_sets, preconditions on the parameters), not by a plugin or an
// upstream step after the payment decision.
describe("every refused example is refused before payment", () => {
  let server: Running;
  useTestServer({ access: paymentAlways }, (s) => (server = s));
  afterEach(resetClock);
  for (const endpoint of registry?.endpoints.values() ?? []) {
    // Those the upstream itself refuses (the example replays its answer) can only be known after asking it.
    for (const example of endpoint.examples.filter((ex) => ex.status === 400 && !ex.fixtures?.length)) {
      it(`${endpoint.key}: ${example.title ?? JSON.stringify(example.params)}`, async () => {
        setClock(example);
        const res = await getJson(`${server.url}${endpoint.path}${queryString(example.params)}`);
        assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
      });
    }
  }
  it("imei/validate?imei=abc is a 400 without a key", async () => {
    const res = await getJson(`${server.url}/v1/imei/validate?imei=abc`);
    assert.equal(res.status, 400);
    assert.equal(res.body.param, "imei");
    assert.match(res.body.detail, /15 digits/);
  });
});
