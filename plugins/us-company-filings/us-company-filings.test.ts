// SEC EDGAR refuses clients without a declared User-Agent: without SEC_USER_AGENT (or the project-wide
// UPSTREAM_USER_AGENT) the SEC groups answer 503 upstream_credentials_missing, naming what to set, before any call.
import assert from "node:assert/strict";
import nock from "nock";
import { freeAccess, getJson, fixture, startTestServer } from "../../test/support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

describe("us-company-filings: the SEC User-Agent", () => {
  let server: Running | undefined;
  afterEach(async () => {
    nock.cleanAll();
    await server?.close();
    server = undefined;
  });

  it("without SEC_USER_AGENT or UPSTREAM_USER_AGENT: 503 naming the variable, and no request to SEC", async () => {
    server = await startTestServer({ access: freeAccess, env: { SEC_USER_AGENT: "", UPSTREAM_USER_AGENT: "" } });
    const sec = nock("https://data.sec.gov").get(/.*/).reply(200, "{}");
    const res = await getJson(`${server.url}/v1/us-company-filings/company?cik=320193`);
    assert.equal(res.status, 503);
    assert.equal(res.body.code, "upstream_credentials_missing");
    assert.match(JSON.stringify(res.body), /SEC_USER_AGENT/);
    assert.equal(sec.isDone(), false);
  });

  it("falls back to UPSTREAM_USER_AGENT, sent as the User-Agent", async () => {
    server = await startTestServer({ access: freeAccess, env: { SEC_USER_AGENT: "", UPSTREAM_USER_AGENT: "Example Data ops@example.org" } });
    const sec = nock("https://data.sec.gov").matchHeader("user-agent", "Example Data ops@example.org")
      .get("/submissions/CIK0000320193.json").reply(200, fixture("us-company-filings:submissions-CIK0000320193.json"), { "content-type": "application/json" });
    const res = await getJson(`${server.url}/v1/us-company-filings/company?cik=320193`);
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.data.name, "Apple Inc.");
    assert.ok(sec.isDone());
  });
});
