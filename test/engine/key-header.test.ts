// A source's auth may carry one more credential header besides its main credential (auth.key_header), e.g. an
// OAuth2 API that also wants an x-api-key: it is required with the main one and sent with every request.
import assert from "node:assert/strict";
import { authFor, credentialState, credentialVars, missingCredentials, redactSecrets, type Source } from "../../engine/upstream/sources.ts";

const source: Source = {
  name: "mot", envVar: "UPSTREAM_MOT", base_url: "https://example.test", public_base_url: "https://example.test", publisher: "test",
  auth: { type: "oauth2", env: "MOT_ID", secret_env: "MOT_SECRET", token_url: "https://login.example.test/token", key_header: { name: "X-API-Key", env: "MOT_KEY" } },
};

describe("auth.key_header", () => {
  it("is one of the source's credential variables", () => {
    assert.deepEqual(credentialVars(source), ["MOT_ID", "MOT_SECRET", "MOT_KEY"]);
  });
  it("is required: without it the credential is missing and named", () => {
    const env = { MOT_ID: "id", MOT_SECRET: "secret" };
    assert.equal(credentialState(source, env), "missing");
    assert.deepEqual(missingCredentials(source, env), ["MOT_KEY"]);
  });
  it("is sent as its header (lower-cased) beside the main credential", () => {
    const env = { MOT_ID: "id", MOT_SECRET: "secret", MOT_KEY: "k-123456" };
    assert.equal(credentialState(source, env), "set");
    assert.deepEqual(authFor(source, env), { headers: { "x-api-key": "k-123456" }, query: {} });
    const header: Source = { ...source, auth: { type: "header", env: "MAIN", name: "x-main", key_header: { name: "x-extra", env: "EXTRA" } } };
    assert.deepEqual(authFor(header, { MAIN: "m", EXTRA: "e" }).headers, { "x-main": "m", "x-extra": "e" });
  });
  it("is redacted from texts like the other credentials", () => {
    assert.equal(redactSecrets("key=k-123456", [source], { MOT_KEY: "k-123456" }), "key=[redacted]");
  });
});
