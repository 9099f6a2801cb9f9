// Auxiliary look-ups (`optional: true` steps: a code list, a "last updated" stamp) that fail leave the main answer
// standing: the part is null, meta.warnings says so, and neither the failed response nor that answer is cached.
// A step whose `when` is false is not requested at all (nock refuses any request it was not told of).
import assert from "node:assert/strict";
import nock from "nock";
import { fixture, freeAccess, getJson, useTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

const BILLS = "https://bills-api.parliament.uk/api/v1";
const ODS = "https://directory.spineservices.nhs.uk/ORD/2-0-0";
const POLICE = "https://data.police.uk/api";
const MAINTENANCE = "<!DOCTYPE html><html><body><h1>Service unavailable</h1><p>Back soon.</p></body></html>";
const json = { "content-type": "application/json" };

describe("optional steps and when", function () {
  this.timeout(20_000);
  let server: Running;
  const get = (pathAndQuery: string) => getJson(`${server.url}/v1/${pathAndQuery}`);
  useTestServer({ access: freeAccess }, (s) => (server = s));

  const bill = () => nock(BILLS).get("/Bills/4065").reply(200, fixture("uk-parliament-bills:bill-4065.json"), json);

  for (const [what, reply] of [
    ["answers HTTP 500", (s: nock.Interceptor) => s.reply(500, "Internal Server Error")],
    ["sends an HTML maintenance page", (s: nock.Interceptor) => s.reply(200, MAINTENANCE, { "content-type": "text/html" })],
    ["sends JSON without the list", (s: nock.Interceptor) => s.reply(200, "{}", json)],
  ] as const) {
    it(`answers a bill when the bill-types look-up ${what}: the type name is null and meta.warnings says why`, async () => {
      bill();
      reply(nock(BILLS).get("/BillTypes"));
      const res = await get("uk-parliament-bills/bill?id=4065");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.title, "Armed Forces Bill");
      assert.deepEqual(res.body.data.type, { id: 1, name: null, category: null });
      assert.equal(res.body.meta.warnings.length, 1);
      assert.equal(res.body.meta.warnings[0].part, "types");
      assert.equal(res.body.meta.warnings[0].source, "parliament-bills");
      assert.match(res.body.meta.warnings[0].detail, /parliament-bills .*; the answer is given without its types part/);

      // Neither the failed look-up nor the answer built without it is reused: the next call asks again.
      const types = nock(BILLS).get("/BillTypes").reply(200, fixture("uk-parliament-bills:bill-types.json"), json);
      const again = await get("uk-parliament-bills/bill?id=4065");
      assert.equal(again.status, 200);
      assert.ok(types.isDone(), "the bill types were asked for again");
      assert.equal(again.body.data.type.name, "Government Bill");
      assert.equal(again.body.meta.warnings, undefined);
    });
  }

  it("still fails the call when the main step fails", async () => {
    nock(BILLS).get("/Bills/4065").times(2).reply(500, "Internal Server Error");
    nock(BILLS).get("/BillTypes").optionally().reply(200, fixture("uk-parliament-bills:bill-types.json"), json);
    const res = await get("uk-parliament-bills/bill?id=4065");
    assert.equal(res.status, 502);
  });

  it("searches bills when the bill-types look-up fails", async () => {
    nock(BILLS).get("/BillTypes").times(2).reply(503, "busy");
    nock(BILLS).get("/Bills").query(true).reply(200, fixture("uk-parliament-bills:search-armed-forces.json"), json);
    const res = await get("uk-parliament-bills/search?q=armed%20forces");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.bills[0].id, 4065);
    assert.equal(res.body.data.bills[0].type.name, null);
    assert.equal(res.body.meta.warnings[0].part, "types");
  });

  it("answers an NHS organisation when the role list fails: role names are null", async () => {
    nock(ODS).get("/organisations/RWR").reply(200, fixture("nhs-organisations:organisation-RWR.json"), json);
    nock(ODS).get("/roles").reply(200, MAINTENANCE, { "content-type": "text/html" });
    const res = await get("nhs-organisations/organisation?code=RWR");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, "RWR");
    assert.equal(res.body.data.primary_role.code, "RO197");
    assert.equal(res.body.data.primary_role.name, null);
    assert.ok(res.body.data.relationships.every((r: { target: { primary_role: { name: unknown } } }) => r.target.primary_role.name === null));
    assert.equal(res.body.meta.warnings[0].part, "roles");
  });

  it("searches NHS organisations without a role without asking for the role list", async () => {
    const search = nock(ODS).get("/organisations").query({ Name: "hertfordshire", Status: "Active", Limit: "20" })
      .reply(200, fixture("nhs-organisations:search-hertfordshire-trusts.json"), json);
    const res = await get("nhs-organisations/search?name=hertfordshire");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.count, 2);
    assert.ok(search.isDone());
  });

  it("lists the police data months when the last-updated stamp fails", async () => {
    nock(POLICE).get("/crime-last-updated").times(2).reply(500, "oops");
    nock(POLICE).get("/crimes-street-dates").reply(200, fixture("uk-police:crimes-street-dates.json"), json);
    const res = await get("uk-police/months");
    assert.equal(res.status, 200);
    assert.ok(res.body.data.count > 0);
    assert.equal(res.body.data.updated_date, null);
    assert.equal(res.body.meta.warnings[0].part, "updated");
  });

  for (const [endpoint, upstreamPath, query] of [
    ["uk-police/crimes-near", "/crimes-street/all-crime", { lat: "52.629729", lng: "-1.131592", date: "2024-01" }],
    ["uk-police/stop-search-near", "/stops-street", { lat: "52.629729", lng: "-1.131592", date: "2024-01" }],
  ] as const) {
    it(`${endpoint} with a month does not ask for the last-updated stamp`, async () => {
      const data = nock(POLICE).get(upstreamPath).query(query).reply(200, "[]", json);
      const res = await get(`${endpoint}?lat=52.629729&lon=-1.131592&month=2024-01`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.month, "2024-01");
      assert.equal(res.body.data.latest_month, null);
      assert.deepEqual(res.body.meta.sources.map((s: { url: string }) => new URL(s.url).pathname), [`/api${upstreamPath}`]);
      assert.ok(data.isDone());
    });
  }
});
