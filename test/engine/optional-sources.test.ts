// Sources asked side by side as optional steps (product-recalls/search): the transform names a failed one with what
// went wrong ($failed) while the others answer, and when every source asked fails the call is a 502, not charged.
import assert from "node:assert/strict";
import nock from "nock";
import { fixture, freeAccess, getJson, useTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

const FSA = "https://data.food.gov.uk/food-alerts";
const CPSC = "https://www.saferproducts.gov";
const json = { "content-type": "application/json" };

describe("optional steps as sources side by side", function () {
  this.timeout(20_000);
  let server: Running;
  useTestServer({ access: freeAccess }, (s) => (server = s));
  afterEach(() => nock.cleanAll());
  const search = () => getJson(`${server.url}/v1/product-recalls/search?since=2026-07-01&limit=3&sources=uk-food,us-products`);

  it("answers from the sources that answered, naming the one that failed and why", async () => {
    nock(FSA).get("/id").query(true).reply(200, fixture("product-recalls:fsa-alerts-prin.json"), json);
    nock(CPSC).get("/RestWebServices/Recall").query(true).times(2).reply(500, "Internal Server Error");
    const res = await search();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.failures, [{ source: "us-products", error: "answered HTTP 500" }]);
    assert.ok(res.body.data.recalls.length > 0);
    assert.ok(res.body.data.recalls.every((r: { source: string }) => r.source === "uk-food"));
    assert.equal(res.body.meta.warnings[0].part, "us");
  });

  it("is a 502 when every source asked fails", async () => {
    nock(FSA).get("/id").query(true).times(2).reply(503, "busy");
    nock(CPSC).get("/RestWebServices/Recall").query(true).times(2).reply(500, "Internal Server Error");
    const res = await search();
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.code, "upstream_error");
    assert.match(res.body.detail, /Every upstream source asked failed \(food: answered HTTP 503; us: answered HTTP 500\)\. The call was not charged\./);
  });
});
