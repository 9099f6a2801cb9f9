// scholarly: OpenAlex needs an API key since February 2026. Without OPENALEX_API_KEY the call is a 503
// upstream_credentials_missing, made without any upstream request and not charged.
import assert from "node:assert/strict";
import nock from "nock";
import { freeAccess, getJson, startTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

describe("scholarly without OPENALEX_API_KEY", () => {
  let server: Running;
  before(async () => {
    server = await startTestServer({ access: freeAccess, env: { OPENALEX_API_KEY: "" } });
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });

  it("answers 503 upstream_credentials_missing naming the variable, and asks OpenAlex nothing", async () => {
    const openalex = nock("https://api.openalex.org").get(/.*/).reply(200, {});
    const res = await getJson(`${server.url}/v1/scholarly/work?id=W2741809807`);
    assert.equal(res.status, 503);
    assert.equal(res.body.code, "upstream_credentials_missing");
    assert.deepEqual(res.body.variables, ["OPENALEX_API_KEY"]);
    assert.ok(!openalex.isDone(), "no request reached OpenAlex");
  });
});
