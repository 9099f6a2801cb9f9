// uk-vehicles: the offline plate decoder's known answers, and the DVLA/DVSA endpoints without credentials (503
// upstream_credentials_missing naming the variables, not charged).
import assert from "node:assert/strict";
import { decodePlate, agePeriod } from "./index.ts";
import { freeAccess, getJson, useTestServer } from "../../test/support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

describe("uk-vehicles plate decoder", () => {
  const today = new Date("2026-11-23T12:00:00Z");
  it("reads current age identifiers both halves of the year", () => {
    assert.deepEqual(agePeriod("19", today), ["2019-03", "2019-08"]);
    assert.deepEqual(agePeriod("69", today), ["2019-09", "2020-02"]);
    assert.deepEqual(agePeriod("51", today), ["2001-09", "2002-02"]);
    assert.deepEqual(agePeriod("02", today), ["2002-03", "2002-08"]);
    assert.deepEqual(agePeriod("76", today), ["2026-09", "2027-02"]);
  });
  it("refuses identifiers never issued or not issued yet", () => {
    for (const a of ["00", "01", "50", "27", "77"]) assert.equal(agePeriod(a, today), null, a);
  });
  it("names the region of a current plate and checks its letters", () => {
    const d = decodePlate("ln24 xyz", today);
    assert.equal(d.region, "London");
    assert.equal(d.formatted, "LN24 XYZ");
    assert.equal(d.valid, true);
    assert.equal(decodePlate("QA12ABC", today).valid, false);
    assert.equal(decodePlate("AB12ABI", today).valid, false);
  });
  it("dates prefix and suffix plates by their year letter", () => {
    assert.deepEqual([decodePlate("S1ABC", today).registered_from, decodePlate("S1ABC", today).registered_to], ["1998-08", "1999-02"]);
    assert.deepEqual([decodePlate("XYZ9A", today).format, decodePlate("XYZ9A", today).registered_from], ["suffix", "1963-01"]);
  });
  it("tells dateless and Northern Ireland plates apart", () => {
    assert.equal(decodePlate("A1", today).format, "dateless");
    assert.equal(decodePlate("1 ABC", today).format, "dateless");
    assert.equal(decodePlate("AIZ 1234", today).format, "northern-ireland");
    assert.equal(decodePlate("HELLO12X", today).valid, false);
  });
});

describe("uk-vehicles without credentials", () => {
  let server: Running;
  const env = { DVLA_API_KEY: "", DVSA_MOT_CLIENT_ID: "", DVSA_MOT_CLIENT_SECRET: "", DVSA_MOT_API_KEY: "" };
  useTestServer({ access: freeAccess, env }, (s) => (server = s));
  it("vehicle answers 503 upstream_credentials_missing naming DVLA_API_KEY", async () => {
    const res = await getJson(`${server.url}/v1/uk-vehicles/vehicle?registration=AB12CDE`);
    assert.equal(res.status, 503);
    assert.equal(res.body.code, "upstream_credentials_missing");
    assert.deepEqual(res.body.variables, ["DVLA_API_KEY"]);
  });
  it("mot-history and mot-status answer 503 naming every DVSA variable", async () => {
    for (const op of ["mot-history", "mot-status"]) {
      const res = await getJson(`${server.url}/v1/uk-vehicles/${op}?registration=AB12CDE`);
      assert.equal(res.status, 503, op);
      assert.deepEqual(res.body.variables, ["DVSA_MOT_CLIENT_ID", "DVSA_MOT_CLIENT_SECRET", "DVSA_MOT_API_KEY"]);
    }
  });
  it("plate needs no credential", async () => {
    const res = await getJson(`${server.url}/v1/uk-vehicles/plate?registration=AB19CDE`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.registered_from, "2019-03");
  });
});
