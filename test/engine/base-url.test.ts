// UpstreamRequest.baseUrl: a plugin may send a source's request to a server it chose at run time (RDAP: the IANA
// bootstrap names each registry's server); the source still gives its headers, and provenance names the server.
import assert from "node:assert/strict";
import nock from "nock";
import { UpstreamClient } from "../../engine/upstream/client.ts";
import { createLogger } from "../../engine/basics/log.ts";
import { isolateNetwork } from "../support/helpers.ts";
import type { Source } from "../../engine/upstream/sources.ts";

describe("engine: a request's own base URL", () => {
  const source = { name: "rdap", publisher: "Registries", base_url: "https://rdap.org", public_base_url: "https://rdap.org", headers: { accept: "application/rdap+json" } } as unknown as Source;
  const client = new UpstreamClient(new Map([["rdap", source]]), { timeoutMs: 2000, retries: 0, cacheMaxEntries: 10, log: createLogger("silent") });
  before(isolateNetwork);
  afterEach(() => nock.cleanAll());

  it("calls the given server with the source's headers, and records that URL", async () => {
    const scope = nock("https://rdap.verisign.com").matchHeader("accept", "application/rdap+json").get("/com/v1/domain/example.com").reply(200, { ldhName: "EXAMPLE.COM" });
    const got = await client.fetch({ source: "rdap", baseUrl: "https://rdap.verisign.com/", path: "/com/v1/domain/example.com" });
    assert.deepEqual(got.body, { ldhName: "EXAMPLE.COM" });
    assert.equal(got.url, "https://rdap.verisign.com/com/v1/domain/example.com");
    assert.equal(got.source, "rdap");
    assert.ok(scope.isDone());
  });

  it("uses the source's base URL without one", async () => {
    const scope = nock("https://rdap.org").get("/domain/example.com").reply(200, { ldhName: "EXAMPLE.COM" });
    const got = await client.fetch({ source: "rdap", path: "/domain/example.com" });
    assert.equal(got.url, "https://rdap.org/domain/example.com");
    assert.ok(scope.isDone());
  });
});
