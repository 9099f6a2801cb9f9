// What the examples cannot show: without `from`/`at`/`date`, gb-grid asks its upstreams about NOW (Carbon
// Intensity at the current half-hour, Elexon up to the current minute), in the formats the upstreams take.
import assert from "node:assert/strict";
import nock from "nock";
import type { Running } from "../../engine/http/server.ts";
import { freeAccess, getJson, useTestServer, fixture } from "../support/helpers.ts";

const CI = "https://api.carbonintensity.org.uk";
const ELEXON = "https://data.elexon.co.uk";
const HALF_HOUR = /^\d{4}-\d{2}-\d{2}T\d{2}:(00|30)Z$/;

describe("gb-grid defaults to now", () => {
  let server: Running;
  useTestServer({ access: freeAccess }, (s) => (server = s));

  it("intensity-forecast asks for the forecast from the current half-hour", async () => {
    let asked = "";
    nock(CI).get((p: string) => { asked = p; return /^\/intensity\/.+\/fw48h$/.test(p); }).reply(200, fixture("gb-grid:intensity-fw48h.json"), { "content-type": "application/json" });
    const res = await getJson(`${server.url}/v1/gb-grid/intensity-forecast`);
    assert.equal(res.status, 200);
    const from = asked.split("/")[2];
    assert.match(from, HALF_HOUR);
    assert.ok(Math.abs(Date.parse(from) - Date.now()) <= 30 * 60_000);
  });

  it("greenest-window for a full postcode asks the regional route with its outward code, from now", async () => {
    let asked = "";
    nock(CI).get((p: string) => { asked = p; return /^\/regional\/intensity\/.+\/fw48h\/postcode\/BS16$/.test(p); }).reply(200, fixture("gb-grid:regional-fw48h-bs16.json"), { "content-type": "application/json" });
    const res = await getJson(`${server.url}/v1/gb-grid/greenest-window?duration_minutes=30&postcode=BS16%205HD`);
    assert.equal(res.status, 200);
    assert.match(asked.split("/")[3], HALF_HOUR);
  });

  it("frequency asks Elexon for the last minutes up to now", async () => {
    let query: Record<string, string> = {};
    nock(ELEXON).get("/bmrs/api/v1/datasets/FREQ").query((q) => { query = q as Record<string, string>; return true; })
      .reply(200, fixture("gb-grid:freq-2026-05-08.json"), { "content-type": "application/json" });
    const res = await getJson(`${server.url}/v1/gb-grid/frequency?minutes=5`);
    assert.equal(res.status, 200);
    assert.equal(query.format, "json");
    const from = Date.parse(query.measurementDateTimeFrom), to = Date.parse(query.measurementDateTimeTo);
    assert.equal(to - from, 5 * 60_000);
    assert.ok(Math.abs(to - Date.now()) <= 2 * 60_000);
  });
});
