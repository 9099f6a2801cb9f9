// Shared by the tests: a real server on a loopback port, nock for upstreams, fixtures from endpoints/<group>/fixtures/.
// What the example replay (engine/cli/example-replay.ts) also needs is defined there and handed on from here.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import nock from "nock";
import jsonata from "jsonata";
import { pino } from "pino";
import type { Logger } from "../../engine/basics/log.ts";
import type { Running } from "../../engine/http/server.ts";
import type { EngineOptions } from "../../engine/engine.ts";
import { testCopyDir } from "../../engine/datasets/definitions.ts";
import { fixtureFile as fixtureIn, mockExample as mockIn, startReplayServer } from "../../engine/cli/example-replay.ts";
import type { Example, Registry } from "../../engine/endpoints/model.ts";

export {
  freeAccess, getJson, isolateNetwork, mockTokenRequest, queryString, resetClock, setClock, standInCredentials, standInToken,
} from "../../engine/cli/example-replay.ts";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** A recorded upstream answer, `<group>:<file>` (or `<file>` and its group): endpoints/<group>/fixtures/<file>. */
export const fixtureFile = (ref: string, group?: string): string => fixtureIn(ROOT, ref, group);

export function fixture(ref: string, group?: string): string {
  return fs.readFileSync(fixtureFile(ref, group), "utf8");
}

/** Serves an example's recorded upstream answers through nock (see engine/cli/example-replay.ts). */
export const mockExample = (registry: Registry, group: string, example: Example): nock.Scope[] => mockIn(ROOT, registry, group, example);

/** A dataset's test copy, beside its definition: plugins/<group>/fixtures/<name>/. */
export const datasetCopy = (name: string, ...file: string[]): string => path.join(testCopyDir(ROOT, name), ...file);

export function tempDir(prefix = "pda-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A server on a loopback port whose upstreams are reachable only through nock. */
export const startTestServer = startReplayServer;

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

/** JSONata path in a body -> its value, as plain JSON. */
export async function pick(body: unknown, expr: string): Promise<unknown> {
  const v = await jsonata(expr).evaluate(body);
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

/** A logger that keeps its lines (JSON, debug and up), for tests of what the maintainer is told. */
export function memoryLog(): { log: Logger; text: () => string } {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  return { log: pino({ level: "debug" }, stream) as Logger, text: () => lines.join("") };
}
