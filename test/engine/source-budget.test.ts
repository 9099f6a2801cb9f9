// A source's own time budget (budget_ms, for slow upstreams), its rate limit against that budget, and list-valued
// query parameters (sent once per item).
import assert from "node:assert/strict";
import nock from "nock";
import { pino } from "pino";
import { UpstreamClient } from "../../engine/upstream/client.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { Source } from "../../engine/upstream/sources.ts";
import { isolateNetwork } from "../support/helpers.ts";
import { Problem } from "../../engine/basics/problem.ts";
import { SourceLimits, slotMs } from "../../engine/cluster/source-rate-limits.ts";
import type { Cluster } from "../../engine/cluster/redis.ts";

const BASE = "https://slow.example";
function client(budget?: number, rateLimit?: Source["rate_limit"]): UpstreamClient {
  const source: Source = { name: "s", envVar: "UPSTREAM_S", base_url: BASE, public_base_url: BASE, publisher: "test", timeout_ms: 2_000, budget_ms: budget, rate_limit: rateLimit };
  return new UpstreamClient(new Map([["s", source]]), { timeoutMs: 2_000, retries: 0, cacheMaxEntries: 10, log: pino({ level: "silent" }), budgetMs: 200 });
}

describe("engine: a source's budget_ms and list query values", () => {
  before(isolateNetwork);
  afterEach(() => nock.cleanAll());

  it("a slow answer fails the engine's budget but fits the source's own", async () => {
    nock(BASE).get("/run").delay(400).reply(200, { ok: 1 });
    await assert.rejects(client().fetch({ source: "s", path: "/run" }), (e: unknown) => e instanceof UpstreamError && (e.kind === "timeout" || e.kind === "network"));
    nock.cleanAll();
    nock(BASE).get("/run").delay(400).reply(200, { ok: 1 });
    assert.deepEqual((await client(1_500).fetch({ source: "s", path: "/run" })).body, { ok: 1 });
  });

  it("refuses a request whose turn under the rate limit would come after its budget: 503 upstream_busy, Retry-After, nothing sent", async () => {
    // One a second (turns 1.1 s apart), a budget of 1.2 s of which 0.3 s is kept for the request: the second must wait 1.1 s.
    const c = client(1_200, { requests: 1, per_seconds: 1 });
    const first = nock(BASE).get("/a").reply(200, { ok: 1 });
    const second = nock(BASE).get("/b").reply(200, { ok: 2 });
    const [a, b] = await Promise.allSettled([c.fetch({ source: "s", path: "/a" }), c.fetch({ source: "s", path: "/b" })]);
    assert.equal(a.status, "fulfilled");
    assert.ok(first.isDone());
    assert.ok(b.status === "rejected" && b.reason instanceof Problem, "the second is refused");
    assert.equal(b.reason.code, "upstream_busy");
    assert.equal(b.reason.status, 503);
    assert.equal(b.reason.headers["retry-after"], "2");
    assert.equal(second.isDone(), false, "the upstream was not asked");
  });

  it("after an upstream's 429 with Retry-After beyond the budget, refuses the next calls without asking it until then", async () => {
    const c = client(1_000);
    const busy = nock(BASE).get("/a").reply(429, "slow down", { "retry-after": "30" });
    const never = nock(BASE).get("/b").reply(200, { ok: 2 });
    await assert.rejects(c.fetch({ source: "s", path: "/a" }), (e: unknown) => e instanceof UpstreamError && e.status === 429 && e.retryAfter === 30);
    assert.ok(busy.isDone());
    await assert.rejects(c.fetch({ source: "s", path: "/b" }), (e: unknown) => e instanceof Problem && e.code === "upstream_busy" && Number(e.headers["retry-after"]) >= 29);
    assert.equal(never.isDone(), false, "the upstream was not asked again");
  });

  it("with Redis away, spaces a source's turns at this instance's share: limit ÷ the instances it last knew", async () => {
    const limit = { requests: 10, per_seconds: 1 };
    const away = { instances: 3, run: async () => undefined, key: (n: string) => n } as unknown as Cluster;
    const limits = new SourceLimits(new Map([["s", limit]]), away);
    const far = Date.now() + 60_000;
    await limits.take("s", far);
    const second = await limits.take("s", far);
    assert.ok(second.granted);
    assert.ok(Math.abs(second.waitMs - 3 * slotMs(limit)) < 30, `the next turn is three slots later (waited ${second.waitMs} ms)`);
  });

  it("sends a list value once per item, in order, and shows it so", async () => {
    const scope = nock(BASE).get("/run?url=https%3A%2F%2Fa.example%2F&category=PERFORMANCE&category=SEO").reply(200, { ok: 1 });
    const got = await client().fetch({ source: "s", path: "/run", query: { url: "https://a.example/", category: ["PERFORMANCE", "SEO"] } });
    assert.ok(scope.isDone());
    assert.equal(got.url, `${BASE}/run?url=https%3A%2F%2Fa.example%2F&category=PERFORMANCE&category=SEO`);
  });
});
