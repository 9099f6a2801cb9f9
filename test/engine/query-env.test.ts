// A source's query_env: query parameters read from the environment (Crossref's mailto, NCBI's tool and email),
// sent when set or defaulted, left out otherwise, and never shown in the answer's URL.
import assert from "node:assert/strict";
import nock from "nock";
import { pino } from "pino";
import { UpstreamClient } from "../../engine/upstream/client.ts";
import type { Source } from "../../engine/upstream/sources.ts";
import { isolateNetwork } from "../support/helpers.ts";

const BASE = "https://contact.example";
function client(env: NodeJS.ProcessEnv): UpstreamClient {
  const source: Source = {
    name: "s", envVar: "UPSTREAM_S", base_url: BASE, public_base_url: BASE, publisher: "test",
    query_env: { email: { env: "CONTACT_EMAIL" }, tool: { env: "TOOL_NAME", default: "public-data-api" } },
  };
  return new UpstreamClient(new Map([["s", source]]), { timeoutMs: 2_000, retries: 0, cacheMaxEntries: 10, log: pino({ level: "silent" }), env });
}

describe("engine: a source's query_env", () => {
  before(isolateNetwork);
  afterEach(() => nock.cleanAll());

  it("sends the variables' values, and the default for an unset one; the public URL shows neither", async () => {
    const scope = nock(BASE).get("/f").query({ q: "x", email: "ops@example.org", tool: "public-data-api" }).reply(200, { ok: true });
    const got = await client({ CONTACT_EMAIL: "ops@example.org" }).fetch({ source: "s", path: "/f", query: { q: "x" } });
    assert.ok(scope.isDone());
    assert.equal(got.url, `${BASE}/f?q=x`);
  });

  it("leaves out a parameter whose variable is unset and has no default", async () => {
    const scope = nock(BASE).get("/f").query({ tool: "mine" }).reply(200, { ok: true });
    await client({ TOOL_NAME: "mine" }).fetch({ source: "s", path: "/f" });
    assert.ok(scope.isDone());
  });
});
