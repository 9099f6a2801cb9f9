// Shared by the tests: a real server on a loopback port, nock for upstreams, fixtures from endpoints/<group>/fixtures/.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import jsonata from "jsonata";
import { startServer, type Running } from "../engine/http/server.ts";
import type { EngineOptions } from "../engine/engine.ts";
import type { Example, Registry } from "../engine/endpoints/model.ts";
import { clock } from "../engine/basics/clock.ts";
import { parseIsoDay } from "../engine/basics/dates.ts";
import { credentialVars, type Source } from "../engine/upstream/sources.ts";
import type { Access } from "../engine/access/types.ts";
import { testCopyDir } from "../engine/datasets/definitions.ts";

export const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * A recorded upstream answer: `<file>` in the group's own endpoints/<group>/fixtures/, or `<group>:<file>` in
 * another group's (the group whose upstream it is keeps it; others name it so).
 */
export function fixtureFile(ref: string, group?: string): string {
  const named = /^([a-z0-9-]+):(.+)$/.exec(ref);
  const owner = named ? named[1] : group;
  if (!owner) throw new Error(`fixture "${ref}": say whose it is, as <group>:<file>`);
  return path.join(ROOT, "endpoints", owner, "fixtures", named ? named[2] : ref);
}

export function fixture(ref: string, group?: string): string {
  return fs.readFileSync(fixtureFile(ref, group), "utf8");
}

/** A dataset's test copy, beside its definition: plugins/<group>/fixtures/<name>/. */
export const datasetCopy = (name: string, ...file: string[]): string => path.join(testCopyDir(ROOT, name), ...file);

export function tempDir(prefix = "pda-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Blocks real network access except to this machine, where the server under test listens. */
export function isolateNetwork(): void {
  nock.disableNetConnect();
  nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host));
}

/** An access layer that lets every call through free: for tests of the pipeline itself (payment has its own suite). */
export const freeAccess: Access = {
  authorize: async () => ({ paidBy: "free", headers: {}, commit: async () => ({ headers: {}, meta: {} }), release: async () => {} }),
  close: async () => {},
};

export async function startTestServer(opts: EngineOptions & { env?: NodeJS.ProcessEnv } = {}): Promise<Running> {
  isolateNetwork();
  const env = { ...process.env, LOG_LEVEL: "silent", DATA_DIR: tempDir(), DATASET_REFRESH: "off", ...opts.env };
  return startServer({ ...opts, env, port: 0, host: "127.0.0.1", config: { upstreamRetries: 1, upstreamTimeoutMs: 2_000, shutdownGraceMs: 500, ...opts.config } });
}

/**
 * Starts a test server for the enclosing describe block: `onStart` receives it before the block's tests; nock
 * interceptors and the engine's caches are reset after each test; the server is closed after the block.
 */
export function useTestServer(opts: EngineOptions & { env?: NodeJS.ProcessEnv }, onStart: (server: Running) => void): void {
  let server: Running | undefined;
  before(async () => {
    server = await startTestServer(opts);
    onStart(server);
  });
  afterEach(() => {
    nock.cleanAll();
    server?.engine.clearCaches();
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });
}

const FORMAT_TYPES: Record<string, string> = { csv: "application/csv", json: "application/json", xml: "application/xml", html: "text/html", txt: "text/plain" };

/** The stand-in value of every credential variable the sources name: "test-<variable lower-cased>". */
export function standInCredentials(sources: Iterable<Source>): Record<string, string> {
  const vars = [...sources].flatMap((s) => [...credentialVars(s), ...Object.values(s.query_env ?? {}).map((q) => q.env)]);
  return Object.fromEntries(vars.map((v) => [v, `test-${v.toLowerCase()}`]));
}

/** The access token the token service grants for an OAuth2 source's stand-in credentials in examples. */
export const standInToken = (source: Source) => `test-${source.name}-token`;

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
 * example (the engine's caches, tokens included, are cleared after each test). A fixture that states its request (query, headers, method,
 * body) matches only that request: a request that differs reaches no recording and fails the example.
 */
export function mockExample(registry: Registry, group: string, example: Example): nock.Scope[] {
  const oauth2 = new Set((example.fixtures ?? []).map((f) => (f.source ? registry.sources.get(f.source) : undefined)).filter((s) => s?.auth?.type === "oauth2"));
  const tokens = [...oauth2].map((s) => mockTokenRequest(s!));
  return [...tokens, ...(example.fixtures ?? []).map((f) => {
    // A fixture names a source, or (for a caller's URL) the origin of the site it stands for.
    const source = f.source ? registry.sources.get(f.source) : undefined;
    if (!source && !f.origin) throw new Error(`fixture names unknown source ${f.source}`);
    const type = f.content_type ?? FORMAT_TYPES[path.extname(f.file).slice(1)] ?? "application/octet-stream";
    const scope = nock(f.origin ?? f.base_url ?? source!.base_url);
    for (const [name, value] of Object.entries(f.headers ?? {})) scope.matchHeader(name, value);
    const interceptor = f.method === "POST" ? scope.post(f.path, f.body as nock.RequestBodyMatcher) : f.method === "HEAD" ? scope.head(f.path) : scope.get(f.path);
    return interceptor.query(f.query ?? true).reply(f.status ?? 200, fixture(f.file, group), { "content-type": type, ...f.reply_headers });
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

export function queryString(params: Record<string, unknown>): string {
  const q = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(",") : String(v)])).toString();
  return q ? `?${q}` : "";
}

/** JSONata path in a body -> its value, as plain JSON. */
export async function pick(body: unknown, expr: string): Promise<unknown> {
  const v = await jsonata(expr).evaluate(body);
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

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
