// A query value that is only {= expr} and gives a list repeats the parameter once per item
// (Rails-style APIs such as the Federal Register's fields[]=a&fields[]=b); an empty list leaves it out.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import { freeAccess, getJson, startTestServer, tempDir } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

const ONS = "https://api.beta.ons.gov.uk";

describe("engine: a query value that is a list", () => {
  let server: Running;
  before(async () => {
    const dir = tempDir("pda-query-lists-");
    fs.mkdirSync(path.join(dir, "demo"), { recursive: true });
    fs.writeFileSync(path.join(dir, "demo/_group.yaml"), "title: Demo\ndescription: Query lists\n");
    fs.writeFileSync(path.join(dir, "demo/lists.yaml"), `operation: lists
summary: Repeats a query parameter
description: Each field asked is one fields[] parameter.
price: 0.001
params:
  fields: { type: string, description: Comma-separated field names. }
upstream:
  source: ons
  path: /lists
  query:
    "fields[]": "{= $params.fields ? $split($params.fields, ',') : [] }"
    single: "{= 'one' }"
transform: "{ 'ok': ok }"
examples:
  - params: {}
`);
    server = await startTestServer({ access: freeAccess, config: { endpointsDir: dir } });
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });

  it("sends one parameter per item, in order", async () => {
    const scope = nock(ONS).get("/v1/lists").query((q) => JSON.stringify(q) === JSON.stringify({ "fields[]": ["title", "type"], single: "one" })).reply(200, { ok: true });
    const res = await getJson(`${server.url}/v1/demo/lists?fields=title,type`);
    assert.equal(res.status, 200);
    assert.ok(scope.isDone());
  });

  it("leaves the parameter out for an empty list", async () => {
    const scope = nock(ONS).get("/v1/lists").query({ single: "one" }).reply(200, { ok: true });
    const res = await getJson(`${server.url}/v1/demo/lists`);
    assert.equal(res.status, 200);
    assert.ok(scope.isDone());
  });
});
