// A newcomer's first start: no dataset loaded, no key. Every call that cannot be served without a local dataset
// answers 503 dataset_not_loaded, never a 402 asking for money for an answer the server cannot give. Which calls
// need a dataset is found by running every example that loads one on a server where none is loaded (the plugins'
// declarations are what is checked, not what is trusted).
import assert from "node:assert/strict";
import path from "node:path";
import nock from "nock";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { type Endpoint, type Example } from "../../engine/endpoints/model.ts";
import type { Running } from "../../engine/http/server.ts";
import { ROOT, freeAccess, getJson, mockExample, queryString, resetClock, setClock, startTestServer } from "../support/helpers.ts";

const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
const withDatasets = [...registry.endpoints.values()].flatMap((endpoint) =>
  endpoint.examples.filter((ex) => ex.datasets?.length && (ex.status ?? 200) === 200).map((example) => ({ endpoint, example })));
const allowanceVar = (e: Endpoint, operation = "") => `ALLOWANCE_${e.group.toUpperCase().replace(/-/g, "_")}${operation && `__${operation.toUpperCase().replace(/-/g, "_")}`}`;

describe("a dataset that is not loaded comes before payment", function () {
  this.timeout(60_000);
  let free: Running;
  let paid: Running;
  before(async () => {
    free = await startTestServer({ access: freeAccess });
    // No free call anywhere: a call without a key that reaches the access decision is asked to pay (402).
    const noAllowance = Object.fromEntries(withDatasets.flatMap(({ endpoint: e }) => [[allowanceVar(e), "0/0"], [allowanceVar(e, e.operation), "0/0"]]));
    paid = await startTestServer({ env: { ...noAllowance, DATABASE_URL: "" } });
  });
  after(async () => {
    await free?.close();
    await paid?.close();
  });
  afterEach(() => {
    nock.cleanAll();
    resetClock();
  });

  it("has examples that load datasets to check", () => assert.ok(withDatasets.length > 30));

  for (const { endpoint, example } of withDatasets) {
    it(`${endpoint.key}: ${example.title ?? JSON.stringify(example.params)}`, async () => {
      setClock(example);
      const url = (s: Running) => `${s.url}${endpoint.path}${queryString(example.params)}`;
      mockExample(registry, endpoint.group, example as Example);
      const served = await getJson(url(free));
      nock.cleanAll();
      if (served.body.code !== "dataset_not_loaded") return; // this call does not need a dataset (a fallback served it)
      const res = await getJson(url(paid));
      assert.equal(res.status, 503, `status (body: ${JSON.stringify(res.body).slice(0, 300)})`);
      assert.equal(res.body.code, "dataset_not_loaded");
      assert.equal(res.body.dataset, served.body.dataset);
      assert.equal(res.headers.get("payment-required"), null);
    });
  }
});
