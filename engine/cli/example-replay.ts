// Replays an endpoint file's examples against a server on a loopback port: each example's recorded upstream answers
// (endpoints/<group>/fixtures/) are served by nock, every credential a source names has a stand-in value, and the
// engine's clock runs on the example's day. The example tests (test/engine/endpoint-examples.test.ts) and
// `npm run answers` (cli/answers.ts) both replay through here. Development only: it needs nock, a development
// dependency, so nothing on the serving path imports it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { startServer, type Running } from "../http/server.ts";
import { exampleQuery } from "../endpoints/param-examples.ts";
import type { EngineOptions } from "../engine.ts";
import type { Endpoint, Example, Registry } from "../endpoints/model.ts";
import { clock } from "../basics/clock.ts";
import { parseIsoDay } from "../basics/dates.ts";
import type { Source } from "../upstream/sources.ts";
import { fixtureContentType, fixtureFile, standInCredentials, standInToken } from "../testmode/fixtures.ts";
import type { Access } from "../access/types.ts";

// Shared with test mode (engine/testmode/), which serves the same recordings without nock.
export { fixtureFile, standInCredentials, standInToken };

/** Blocks real network access except to this machine, where the server under test listens. */
export function isolateNetwork(): void {
  nock.disableNetConnect();
  nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host));
}

/** An access layer that lets every call through free: for replaying the pipeline itself (payment has its own tests). */
export const freeAccess: Access = {
  authorize: async () => ({ paidBy: "free", headers: {}, commit: async () => ({ headers: {}, meta: {} }), release: async () => {} }),
  close: async () => {},
};

/** A server whose upstreams are reachable only through nock, with a throw-away DATA_DIR and no background loads. */
export async function startReplayServer(opts: EngineOptions & { env?: NodeJS.ProcessEnv } = {}): Promise<Running> {
  isolateNetwork();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pda-replay-"));
  const env = { ...process.env, LOG_LEVEL: "silent", DATA_DIR: dataDir, DATASET_REFRESH: "off", ...opts.env };
  return startServer({ ...opts, env, port: 0, host: "127.0.0.1", config: { upstreamRetries: 1, upstreamTimeoutMs: 2_000, shutdownGraceMs: 500, ...opts.config } });
}

/**
 * An OAuth2 source's token request, as the engine must make it with the stand-in credentials, answering the
 * stand-in token (valid a day). Examples state `Authorization: Bearer test-<source>-token` in their fixtures.
 */
export function mockTokenRequest(source: Source, reply: { access_token?: string; expires_in?: number } = {}): nock.Scope {
  const a = source.auth!;
  const url = new URL(a.token_url!);
  const form: Record<string, string> = { grant_type: "client_credentials", client_id: `test-${a.env.toLowerCase()}`, client_secret: `test-${a.secret_env!.toLowerCase()}` };
  if (a.scope) form.scope = a.scope;
  return nock(url.origin).post(url.pathname, form)
    .reply(200, { access_token: reply.access_token ?? standInToken(source), expires_in: reply.expires_in ?? 86_400, token_type: "Bearer" });
}

/**
 * Replays an example's recorded upstream responses. An OAuth2 source's token request is mocked here once per
 * example (the engine's caches, tokens included, are cleared after each example). A fixture that states its request
 * (query, headers, method, body) matches only that request: a request that differs reaches no recording and fails
 * the example.
 */
export function mockExample(rootDir: string, registry: Registry, group: string, example: Example): nock.Scope[] {
  const oauth2 = new Set((example.fixtures ?? []).map((f) => (f.source ? registry.sources.get(f.source) : undefined)).filter((s) => s?.auth?.type === "oauth2"));
  const tokens = [...oauth2].map((s) => mockTokenRequest(s!));
  return [...tokens, ...(example.fixtures ?? []).map((f) => {
    // A fixture names a source, or (for a caller's URL) the origin of the site it stands for.
    const source = f.source ? registry.sources.get(f.source) : undefined;
    if (!source && !f.origin) throw new Error(`fixture names unknown source ${f.source}`);
    const type = fixtureContentType(f);
    const scope = nock(f.origin ?? f.base_url ?? source!.base_url);
    for (const [name, value] of Object.entries(f.headers ?? {})) scope.matchHeader(name, value);
    const interceptor = f.method === "POST" ? scope.post(f.path, f.body as nock.RequestBodyMatcher) : f.method === "HEAD" ? scope.head(f.path) : scope.get(f.path);
    const body = fs.readFileSync(fixtureFile(rootDir, f.file, group), "utf8");
    return interceptor.query(f.query ?? true).reply(f.status ?? 200, body, { "content-type": type, ...f.reply_headers });
  })];
}

/** Runs the engine's clock on the day (`today`) or at the instant (`now`) an example states; resetClock puts it back. */
const realClock = { ...clock };
export function setClock(example: Example): void {
  if (example.now !== undefined) {
    const now = new Date(example.now);
    if (Number.isNaN(now.getTime())) throw new Error(`now: ${example.now} is not an instant`);
    clock.now = () => now;
  }
  if (example.today === undefined) return;
  const today = parseIsoDay(example.today);
  if (!today) throw new Error(`today: ${example.today} is not a calendar date`);
  clock.today = () => today;
}
export const resetClock = () => Object.assign(clock, realClock);

export const queryString = exampleQuery;

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, body };
}

/**
 * One example, called as an agent calls it: its answer, and the recorded upstream calls it did not make (an
 * example must make every one). The caller ends it with endExample.
 */
export async function replayExample(server: Running, endpoint: Endpoint, example: Example): Promise<{ res: Awaited<ReturnType<typeof getJson>>; unused: string[] }> {
  const { engine } = server;
  setClock(example);
  const scopes = mockExample(engine.config.rootDir, engine.registry, endpoint.group, example);
  if (example.datasets?.length) await engine.datasets.loadTestDatasets?.(example.datasets);
  const res = await getJson(`${server.url}${endpoint.path}${queryString(example.params)}`);
  return { res, unused: scopes.flatMap((s) => s.pendingMocks()) };
}

/** Forgets an example's recordings, the engine's caches and its day, before the next example. */
export function endExample(server: Running): void {
  nock.cleanAll();
  server.engine.clearCaches();
  resetClock();
}
