// us-weather: api.weather.gov refuses clients without a User-Agent naming a contact. Without NWS_USER_AGENT or the
// project-wide UPSTREAM_USER_AGENT the group answers 503 upstream_credentials_missing naming NWS_USER_AGENT, asks NWS nothing
// and charges nothing; with only UPSTREAM_USER_AGENT, that one is sent.
import assert from "node:assert/strict";
import nock from "nock";
import { fixture, freeAccess, getJson, startTestServer } from "../../test/support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

describe("us-weather without a User-Agent for NWS", () => {
  let server: Running;
  before(async () => {
    server = await startTestServer({ access: freeAccess, env: { NWS_USER_AGENT: "", UPSTREAM_USER_AGENT: "" } });
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });

  it("answers 503 upstream_credentials_missing naming what to set, and asks NWS nothing", async () => {
    const nws = nock("https://api.weather.gov").get(/.*/).reply(200, {});
    const res = await getJson(`${server.url}/v1/us-weather/forecast?lat=30&lon=-85`);
    assert.equal(res.status, 503);
    assert.equal(res.body.code, "upstream_credentials_missing");
    assert.match(res.body.detail, /NWS_USER_AGENT/);
    assert.deepEqual(res.body.variables, ["NWS_USER_AGENT"]);
    assert.ok(!nws.isDone(), "no request reached api.weather.gov");
  });
});

describe("us-weather with only the project-wide User-Agent", () => {
  let server: Running;
  before(async () => {
    server = await startTestServer({ access: freeAccess, env: { NWS_USER_AGENT: "", UPSTREAM_USER_AGENT: "example-data-api (ops@example.org)" } });
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });

  it("sends UPSTREAM_USER_AGENT to api.weather.gov", async () => {
    const nws = nock("https://api.weather.gov").matchHeader("user-agent", "example-data-api (ops@example.org)")
      .get("/points/30,-85").reply(200, fixture("us-weather:points-30-minus85.json"), { "content-type": "application/geo+json" });
    const res = await getJson(`${server.url}/v1/us-weather/point?lat=30&lon=-85`);
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.data.office, "TAE");
    assert.ok(nws.isDone());
  });
});
