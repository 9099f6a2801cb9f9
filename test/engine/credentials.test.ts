// Upstream credentials: a missing one is a 503 that costs nothing; HTTP Basic for Companies House; OAuth2 client
// credentials for the trade tariff (token fetched once, cached, refreshed before expiry, one retry on a 401, and
// the public host while unset, unless UPSTREAM_<NAME> says otherwise; UPSTREAM_<NAME>_TOKEN_URL); and no secret in
// an answer, a provenance URL or a log line.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import { pino } from "pino";
import type { Running } from "../../engine/http/server.ts";
import type { Logger } from "../../engine/basics/log.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { UpstreamClient } from "../../engine/upstream/client.ts";
import { Problem } from "../../engine/basics/problem.ts";
import { readSources, type Source } from "../../engine/upstream/sources.ts";
import { ROOT, freeAccess, getJson, isolateNetwork, memoryLog, startTestServer, tempDir } from "../support/helpers.ts";

const CH = "https://api.company-information.service.gov.uk";
const TARIFF = "https://api.trade-tariff.service.gov.uk";
const TARIFF_PUBLIC = "https://www.trade-tariff.service.gov.uk";
const SOURCES = readSources(path.join(ROOT, "sources.yaml"), {});
const tariff = SOURCES.get("trade-tariff")!;

const SECRETS = { COMPANIES_HOUSE_API_KEY: "ch-secret-key-4711", TRADE_TARIFF_CLIENT_ID: "tt-client-id-0815", TRADE_TARIFF_CLIENT_SECRET: "tt-client-secret-9999" };
const UNSET = { COMPANIES_HOUSE_API_KEY: "", TRADE_TARIFF_CLIENT_ID: "", TRADE_TARIFF_CLIENT_SECRET: "", DATABASE_URL: "" };

/** Two endpoints of a test-only group: one on each credentialed source. */
function credentialEndpoints(): string {
  const dir = path.join(tempDir("pda-credentials-"), "cred-test");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "_group.yaml"), "title: Credentials test\ndescription: Endpoints on credentialed sources.\nallowance: { anonymous: 5, key: 5 }\n");
  const endpoint = (operation: string, source: string, upstreamPath: string) => `operation: ${operation}
summary: ${operation}
description: ${operation} through ${source}.
price: 0.003
params:
  id: { type: string, required: true, pattern: "^[0-9A-Z]+$", description: An id. }
upstream: { source: ${source}, path: "${upstreamPath}" }
transform: "{ 'id': id }"
examples:
  - params: { id: "1" }
`;
  fs.writeFileSync(path.join(dir, "company.yaml"), endpoint("company", "companies-house", "/company/{id}"));
  fs.writeFileSync(path.join(dir, "quota.yaml"), endpoint("quota", "trade-tariff", "/uk/api/quotas/{id}"));
  return path.dirname(dir);
}

/** A logger at debug level whose lines are kept in memory. */
function assertNoSecret(text: string, where: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    assert.ok(!text.includes(value), `${name} appears in ${where}`);
    assert.ok(!text.includes(Buffer.from(`${value}:`).toString("base64")), `${name} (base64) appears in ${where}`);
  }
}

describe("upstream credentials", function () {
  this.timeout(20_000);
  afterEach(() => nock.cleanAll());

  describe("without them", () => {
    let server: Running;
    before(async () => {
      server = await startTestServer({ env: UNSET, config: { endpointsDir: credentialEndpoints() } });
    });
    after(async () => server?.close());

    it("answers 503 upstream_credentials_missing naming the variable, and does not charge the call", async () => {
      const access = server.engine.access as AccessService;
      const key = (await access.mintKey("10.7.0.1"))!.key;
      const res = await getJson(`${server.url}/v1/cred-test/company?id=1`, { "X-API-Key": key });
      assert.equal(res.status, 503);
      assert.equal(res.body.code, "upstream_credentials_missing");
      assert.deepEqual(res.body.variables, ["COMPANIES_HOUSE_API_KEY"]);
      assert.match(res.body.detail, /set COMPANIES_HOUSE_API_KEY\b.*not charged/);
      const account = await getJson(`${server.url}/account`, { "X-API-Key": key });
      assert.equal(account.body.allowance.find((b: { bucket: string }) => b.bucket === "group:cred-test").used, 0);
      assert.deepEqual(account.body.recent_calls.map((c: { outcome: string }) => c.outcome), ["error"]);
    });

    it("lists the sources whose credentials are missing in /health, with what that does", async () => {
      const res = await getJson(`${server.url}/health`);
      const missing = res.body.credentials_missing as { source: string; variables: string[]; effect: string }[];
      assert.deepEqual(missing.find((m) => m.source === "companies-house"),
        { source: "companies-house", variables: ["COMPANIES_HOUSE_API_KEY"], effect: "calls answer 503 upstream_credentials_missing" });
      const t = missing.find((m) => m.source === "trade-tariff")!;
      assert.deepEqual(t.variables, ["TRADE_TARIFF_CLIENT_ID", "TRADE_TARIFF_CLIENT_SECRET"]);
      assert.match(t.effect, /public host https:\/\/www\.trade-tariff\.service\.gov\.uk/);
      assert.equal(missing.find((m) => m.source === "tfl"), undefined, "an optional credential is not missing");
    });

    it("sends an OAuth2 source with a public fallback host there, anonymously, and says so in the provenance", async () => {
      const api = nock(TARIFF_PUBLIC, { badheaders: ["authorization"] }).get("/uk/api/quotas/7").reply(200, { id: "7" });
      const res = await getJson(`${server.url}/v1/cred-test/quota?id=7`, { "X-API-Key": (await (server.engine.access as AccessService).mintKey("10.7.0.2"))!.key });
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.sources[0].url, `${TARIFF_PUBLIC}/uk/api/quotas/7`);
      assert.ok(api.isDone());
    });

    it("names every unset variable of a two-part credential", async () => {
      isolateNetwork();
      const noFallback: Source = { ...tariff, auth: { ...tariff.auth!, fallback_base_url: undefined } };
      const client = new UpstreamClient(new Map([["trade-tariff", noFallback]]), { timeoutMs: 1000, retries: 0, cacheMaxEntries: 10, log: pino({ level: "silent" }), env: { TRADE_TARIFF_CLIENT_ID: "x-id" } });
      await assert.rejects(client.fetch({ source: "trade-tariff", path: "/uk/api/quotas/1" }), (e: Problem) => {
        assert.equal(e.status, 503);
        assert.deepEqual(e.extra.variables, ["TRADE_TARIFF_CLIENT_SECRET"]);
        return true;
      });
    });
  });

  describe("with them", () => {
    let server: Running;
    const logs = memoryLog();
    before(async () => {
      server = await startTestServer({ access: freeAccess, log: logs.log, env: { ...SECRETS, DATABASE_URL: "" }, config: { endpointsDir: credentialEndpoints() } });
    });
    afterEach(() => server.engine.clearCaches());
    after(async () => server?.close());

    const tokenRequest = (reply: { access_token: string; expires_in?: number }) => mockTokenRequestWith(SECRETS, reply);
    const quota = (id: string) => getJson(`${server.url}/v1/cred-test/quota?id=${id}`);

    it("sends Companies House the key as HTTP Basic user name with an empty password", async () => {
      const api = nock(CH).matchHeader("authorization", `Basic ${Buffer.from(`${SECRETS.COMPANIES_HOUSE_API_KEY}:`).toString("base64")}`)
        .get("/company/00000006").reply(200, { id: "00000006" });
      const res = await getJson(`${server.url}/v1/cred-test/company?id=00000006`);
      assert.equal(res.status, 200);
      assert.ok(api.isDone());
    });

    it("fetches an OAuth2 token once and reuses it while it is valid", async () => {
      const token = tokenRequest({ access_token: "tok-1", expires_in: 86_400 });
      const api = nock(TARIFF).matchHeader("authorization", "Bearer tok-1").matchHeader("accept", "application/vnd.hmrc.2.0+json")
        .get(/^\/uk\/api\/quotas\/\d$/).times(3).reply(200, { id: "x" });
      const answers = await Promise.all([quota("1"), quota("2")]);
      answers.push(await quota("3"));
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200]);
      assert.ok(token.isDone() && api.isDone());
    });

    it("asks for a new token when the cached one is about to expire", async () => {
      const first = tokenRequest({ access_token: "short-lived", expires_in: 1 });
      nock(TARIFF).matchHeader("authorization", "Bearer short-lived").get("/uk/api/quotas/1").reply(200, { id: "1" });
      assert.equal((await quota("1")).status, 200);
      assert.ok(first.isDone());
      await new Promise((r) => setTimeout(r, 1_000)); // a 1 s token is renewed after 0.9 s
      const second = tokenRequest({ access_token: "renewed", expires_in: 86_400 });
      const api = nock(TARIFF).matchHeader("authorization", "Bearer renewed").get("/uk/api/quotas/2").reply(200, { id: "2" });
      assert.equal((await quota("2")).status, 200);
      assert.ok(second.isDone() && api.isDone());
    });

    it("retries once with a fresh token when the upstream answers 401", async () => {
      tokenRequest({ access_token: "revoked", expires_in: 86_400 });
      const refused = nock(TARIFF).matchHeader("authorization", "Bearer revoked").get("/uk/api/quotas/4").reply(401, { error: "invalid token" });
      const fresh = tokenRequest({ access_token: "fresh", expires_in: 86_400 });
      const api = nock(TARIFF).matchHeader("authorization", "Bearer fresh").get("/uk/api/quotas/4").reply(200, { id: "4" });
      const res = await quota("4");
      assert.equal(res.status, 200);
      assert.ok(refused.isDone() && fresh.isDone() && api.isDone());
    });

    it("gives up after one retry: a second 401 is the upstream's fault (502)", async () => {
      tokenRequest({ access_token: "a", expires_in: 86_400 });
      tokenRequest({ access_token: "b", expires_in: 86_400 });
      const api = nock(TARIFF).get("/uk/api/quotas/5").times(2).reply(401, { error: "invalid token" });
      const res = await quota("5");
      assert.equal(res.status, 502);
      assert.ok(api.isDone());
      assert.equal(nock.pendingMocks().length, 0, "no third token request");
    });

    it("answers 502 when the token service refuses the client credentials", async () => {
      nock(new URL(tariff.auth!.token_url!).origin).post("/oauth2/token").reply(400, { error: "invalid_client", client_secret: SECRETS.TRADE_TARIFF_CLIENT_SECRET });
      const res = await quota("6");
      assert.equal(res.status, 502);
      assert.match(res.body.detail, /token service refused the server's client credentials \(HTTP 400\)/);
      assertNoSecret(JSON.stringify(res.body), "the problem");
    });

    it("never puts a secret in an answer, a provenance URL or a log line", async () => {
      tokenRequest({ access_token: "tok-logs", expires_in: 86_400 });
      nock(TARIFF).get("/uk/api/quotas/8").reply(200, { id: "8" });
      nock(CH).get("/company/00000008").reply(200, { id: "00000008" });
      nock(CH).get("/company/00000009").replyWithError({ message: `connect failed for ${SECRETS.COMPANIES_HOUSE_API_KEY}` });
      const answers = [await quota("8"), await getJson(`${server.url}/v1/cred-test/company?id=00000008`), await getJson(`${server.url}/v1/cred-test/company?id=00000009`)];
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 502]);
      for (const a of answers) assertNoSecret(JSON.stringify(a.body), "an answer");
      assert.equal(answers[0].body.meta.sources[0].url, `${TARIFF}/uk/api/quotas/8`);
      const logged = logs.text();
      assert.match(logged, /oauth2 token/, "the token requests were logged");
      assert.match(logged, /upstream failed/, "the failure was logged");
      assertNoSecret(logged, "the log");
      assert.ok(!/tok-logs|tok-1|renewed|fresh/.test(logged), "no access token in the log");
    });
  });
});

describe("UPSTREAM_<NAME> overrides of an OAuth2 source", () => {
  afterEach(() => nock.cleanAll());
  const client = (env: NodeJS.ProcessEnv) => {
    isolateNetwork();
    return new UpstreamClient(readSources(path.join(ROOT, "sources.yaml"), env), { timeoutMs: 1000, retries: 0, cacheMaxEntries: 10, log: pino({ level: "silent" }), env });
  };

  it("sends calls to an explicit UPSTREAM_<NAME> even while the credentials are unset and a public host is declared", async () => {
    const double = nock("https://tariff-double.test", { badheaders: ["authorization"] }).get("/uk/api/quotas/7").reply(200, { id: "7" });
    const answer = await client({ UPSTREAM_TRADE_TARIFF: "https://tariff-double.test" }).fetch({ source: "trade-tariff", path: "/uk/api/quotas/7" });
    assert.deepEqual(answer.body, { id: "7" });
    assert.ok(double.isDone(), "the override was called, not the public host");
    assert.equal(answer.url, `${TARIFF_PUBLIC}/uk/api/quotas/7`, "answers still name the public host");
  });

  it("asks UPSTREAM_<NAME>_TOKEN_URL for the token (HMRC's sandbox)", async () => {
    const SANDBOX = "https://test-api.service.hmrc.gov.uk";
    const env = { UPSTREAM_HMRC_VAT: SANDBOX, UPSTREAM_HMRC_VAT_TOKEN_URL: `${SANDBOX}/oauth/token`, HMRC_CLIENT_ID: "sandbox-id", HMRC_CLIENT_SECRET: "sandbox-secret" };
    const token = nock(SANDBOX).post("/oauth/token", { grant_type: "client_credentials", client_id: "sandbox-id", client_secret: "sandbox-secret", scope: "read:vat" })
      .reply(200, { access_token: "sandbox-token", expires_in: 14_400, token_type: "bearer" });
    const api = nock(SANDBOX).matchHeader("authorization", "Bearer sandbox-token").get("/organisations/vat/check-vat-number/lookup/553557881").reply(200, { target: { vatNumber: "553557881" } });
    const answer = await client(env).fetch({ source: "hmrc-vat", path: "/organisations/vat/check-vat-number/lookup/553557881" });
    assert.deepEqual(answer.body, { target: { vatNumber: "553557881" } });
    assert.ok(token.isDone() && api.isDone());
  });

  it("keeps the declared token_url without UPSTREAM_<NAME>_TOKEN_URL", () => {
    assert.equal(readSources(path.join(ROOT, "sources.yaml"), { UPSTREAM_HMRC_VAT: "https://mirror.test" }).get("hmrc-vat")!.auth!.token_url, "https://api.service.hmrc.gov.uk/oauth/token");
  });
});

/** The token request with these client credentials (mockTokenRequest builds the stand-in one for examples). */
function mockTokenRequestWith(secrets: typeof SECRETS, reply: { access_token: string; expires_in?: number }): nock.Scope {
  const url = new URL(tariff.auth!.token_url!);
  return nock(url.origin).post(url.pathname, { grant_type: "client_credentials", client_id: secrets.TRADE_TARIFF_CLIENT_ID, client_secret: secrets.TRADE_TARIFF_CLIENT_SECRET })
    .reply(200, { access_token: reply.access_token, expires_in: reply.expires_in ?? 86_400, token_type: "Bearer" });
}

