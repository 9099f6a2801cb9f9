// A status rule's detail may quote the upstream's error body ({= $reply… }), so the caller reads the upstream's
// own reason (openFDA's "Search not supported: …") rather than a generic one.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import { freeAccess, getJson, startTestServer, tempDir } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

describe("engine: upstream error bodies in a status rule's detail", () => {
  let server: Running;
  before(async () => {
    const dir = tempDir("pda-reply-");
    fs.mkdirSync(path.join(dir, "demo"));
    fs.writeFileSync(path.join(dir, "demo", "_group.yaml"), "title: Demo\ndescription: Quotes upstream errors\n");
    fs.writeFileSync(path.join(dir, "demo", "find.yaml"), `operation: find
summary: Finds things
description: Refusals quote the upstream's message.
price: 0.001
params:
  q: { type: string, required: true, description: A query. }
upstream:
  source: ons
  path: /find
  query: { q: "{q}" }
  statuses:
    "400": { status: 400, param: q, detail: "Refused: {= $reply.error.message }" }
    "422": { status: 400, param: q, detail: "Refused ({q}): {= $reply }" }
transform: "{ 'n': n }"
examples:
  - params: { q: x }
`);
    server = await startTestServer({ access: freeAccess, config: { endpointsDir: dir } });
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });

  it("reads a JSON error body", async () => {
    nock("https://api.beta.ons.gov.uk").get("/v1/find").query({ q: "a:[" }).reply(400, { error: { code: "BAD_REQUEST", message: "Search not supported: a:[" } });
    const res = await getJson(`${server.url}/v1/demo/find?q=${encodeURIComponent("a:[")}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.param, "q");
    assert.equal(res.body.detail, "Refused: Search not supported: a:[");
  });

  it("quotes a body that is not JSON as text", async () => {
    nock("https://api.beta.ons.gov.uk").get("/v1/find").query({ q: "b" }).reply(422, "bad query", { "content-type": "text/plain" });
    const res = await getJson(`${server.url}/v1/demo/find?q=b`);
    assert.equal(res.status, 400);
    assert.equal(res.body.detail, "Refused (b): bad query");
  });
});
