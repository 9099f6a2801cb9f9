// A call made with a test key (docs/test-mode.md): the endpoint's own pipeline (parameter checks, steps, expect
// checks, transform, answer schema) runs for real, on the clock of one of its examples, with that example's
// recorded upstream answers as its only upstream (recordings.ts: no socket is opened), its own upstream client
// (so no live cache ever holds a test answer, nor a test call a live one) and the test access layer (access.ts:
// nothing charged). Parameters that are an example's get that example's answer; any other valid call gets the
// answer of the endpoint's first example that answers 200, with meta.test_mode_note saying so. Endpoints that
// need no upstream (computed, or answered from a local dataset) run live, on the caller's parameters.
import { Problem } from "../basics/problem.ts";
import { withClock, type CallClock } from "../basics/clock.ts";
import { parseIsoDay } from "../basics/dates.ts";
import { checkCall, resolveEndpoint, runCall, type CallInput, type CallResult } from "../call/pipeline.ts";
import { ResultCache } from "../call/result-cache.ts";
import { UpstreamClient } from "../upstream/client.ts";
import type { Engine } from "../engine.ts";
import type { Endpoint, Example } from "../endpoints/model.ts";
import { Recordings, withRecordings } from "../upstream/recordings.ts";
import { recordingsOfExample } from "./recordings.ts";
import { standInCredentials } from "./fixtures.ts";
import { queryValue } from "../endpoints/param-examples.ts";
import { testAccess } from "./access.ts";

export async function runTestCall(engine: Engine, input: CallInput): Promise<CallResult> {
  const endpoint = resolveEndpoint(engine, input.group, input.operation);
  const named = namedExample(endpoint, input.testExample);
  const matched = named ?? endpoint.examples.find((ex) => sameParams(input.query, ex.params));
  const live = !named && needsNoUpstream(endpoint);
  const example = matched ?? (live ? undefined : endpoint.examples.find((ex) => (ex.status ?? 200) === 200) ?? endpoint.examples[0]);
  const note = matched && sameParams(input.query, matched.params) ? undefined : live
    ? `${endpoint.key} needs no upstream: it was computed live from these parameters, free of charge.`
    : example && `No example of ${endpoint.key} has these parameters: this is the answer of its example "${titleOf(endpoint, example)}" (parameters ${JSON.stringify(example.params)}).`;
  const tag = {
    test_mode: true,
    ...(example ? { test_mode_example: titleOf(endpoint, example), test_mode_examples: endpoint.examples.length } : {}),
    ...(note ? { test_mode_note: note } : {}),
  };
  try {
    if (!example && !live) throw noExample(endpoint);
    // The caller's own parameters are checked as in a live call (the same 400), on the clock they are answered on.
    await withClock(matched ? exampleClock(matched) : {}, () => checkCall(engine, input));
    const offline: Engine = { ...engine, upstream: offlineUpstream(engine), results: new ResultCache(16), access: testAccess(engine.access, input.apiKey!) };
    const query = live ? input.query : rawQuery(example!.params);
    const recordings = live ? new Recordings([]) : recordingsOfExample(engine.config.rootDir, engine.registry, endpoint.group, example!);
    const clock = example && (matched || !live) ? exampleClock(example) : {};
    // apiKey goes: the test access layer knows it.
    const result = await withClock(clock, () => withRecordings(recordings, () => runCall(offline, { ...input, query, apiKey: undefined })));
    result.body.meta = { ...result.body.meta, paid_by: "test", ...tag };
    return result;
  } catch (e) {
    if (e instanceof Problem) Object.assign(e.extra, tag);
    throw e;
  }
}

/** The example a caller names by its number (Test-Example: 2, from 1); a 400 for a number the endpoint has not. */
function namedExample(endpoint: Endpoint, asked: unknown): Example | undefined {
  if (asked === undefined || asked === null || asked === "") return undefined;
  const n = Number(asked);
  if (Number.isInteger(n) && n >= 1 && n <= endpoint.examples.length) return endpoint.examples[n - 1];
  throw new Problem({
    status: 400,
    code: "invalid_test_example",
    detail: `Test-Example (MCP: _meta.testExample) must be the number of one of ${endpoint.key}'s examples, 1 to ${endpoint.examples.length} (got ${JSON.stringify(asked).slice(0, 40)}).`,
    extra: { test_mode: true },
  });
}

/** Computed and local-dataset endpoints: no step asks an upstream and no example records one. */
const needsNoUpstream = (endpoint: Endpoint): boolean => !endpoint.steps && !endpoint.examples.some((ex) => ex.fixtures?.length);

const titleOf = (endpoint: Endpoint, example: Example): string => example.title ?? `example ${endpoint.examples.indexOf(example) + 1}`;

function noExample(endpoint: Endpoint): Problem {
  return new Problem({
    status: 501,
    code: "no_test_example",
    detail: `${endpoint.key} has no example, so it cannot answer in test mode. Nothing was charged; call it with a live key.`,
  });
}

/** The parameters as a query string gives them: every value a string (a list joined with commas). */
function rawQuery(params: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, queryValue(v)]));
}

/** The same parameters, in any order, whatever their types (a query's strings, an MCP call's JSON values). */
function sameParams(query: Record<string, unknown>, params: Record<string, unknown>): boolean {
  const a = Object.entries(rawQuery(query)).sort(([x], [y]) => x.localeCompare(y));
  const b = Object.entries(rawQuery(params)).sort(([x], [y]) => x.localeCompare(y));
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The clock an example states (`now`, `today`); the real one for what it leaves out. */
function exampleClock(example: Example): CallClock {
  return {
    ...(example.now !== undefined ? { now: new Date(example.now) } : {}),
    ...(example.today !== undefined ? { today: parseIsoDay(example.today) } : {}),
  };
}

const standIns = new WeakMap<Engine["registry"], NodeJS.ProcessEnv>();

/**
 * An upstream client of the call's own: nothing it fetches is cached beyond the call, and every credential is the
 * stand-in the examples' requests were recorded with (a real credential is never even put in a test request).
 */
function offlineUpstream(engine: Engine): UpstreamClient {
  let env = standIns.get(engine.registry);
  if (!env) standIns.set(engine.registry, (env = { ...engine.env, ...standInCredentials(engine.registry.sources.values()) }));
  const c = engine.config;
  return new UpstreamClient(engine.registry.sources, {
    timeoutMs: c.upstreamTimeoutMs, retries: c.upstreamRetries, cacheMaxEntries: 16, log: engine.log, env, budgetMs: c.upstreamBudgetMs, maxBytes: c.upstreamMaxBytes,
  });
}
