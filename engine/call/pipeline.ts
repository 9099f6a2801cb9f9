// One call, one pipeline, for HTTP and MCP alike:
// resolve endpoint -> validate params -> the local datasets it needs are loaded -> access decision (or the answer
// an earlier call with the same Idempotency-Key or payment identifier sent) -> (cached answer, or upstream steps or
// plugin -> JSONata transform) -> commit the charge (only now, on success) -> JSON envelope with provenance, kept
// for retries when the call had a key.
// Any failure after the access decision releases it: an error costs the caller nothing.
import { Problem, toProblem } from "../basics/problem.ts";
import { parseParams, type ParamValues } from "../endpoints/params.ts";
import { checkParamSets } from "../endpoints/param-sets.ts";
import { checkEarlyPreconditions, runSteps, type MissingPart } from "./steps.ts";
import { withPaging } from "../endpoints/upstream-paging.ts";
import { plain } from "../endpoints/transform.ts";
import { type Fetched, type Provenance } from "../upstream/client.ts";
import { UpstreamError } from "../upstream/error.ts";
import { upstreamProblem } from "./upstream-problem.ts";
import type { Engine } from "../engine.ts";
import type { Endpoint } from "../endpoints/model.ts";
import { upstreamRequest, type PluginContext } from "../endpoints/plugin.ts";
import type { CallAnswer, CallRequest } from "../access/types.ts";
import { ResultCache, type Answer } from "./result-cache.ts";

/** A call as it arrives: the endpoint by name and the raw query; the rest as the access layer sees it. */
export interface CallInput extends Omit<CallRequest, "endpoint" | "params" | "answered"> {
  group: string;
  operation: string;
  /** Test keys only: the Test-Example header (HTTP) or _meta.testExample (MCP), which example answers (docs/test-mode.md). */
  testExample?: unknown;
}

export type CallResult = CallAnswer;

export async function runCall(engine: Engine, input: CallInput): Promise<CallResult> {
  const { endpoint, params, extra } = await checkCall(engine, input);
  requireDatasets(engine, endpoint, params);
  const cache = cacheSlot(engine, endpoint, params, extra);
  const cached = cache && engine.results.get(cache.key);
  // A cached answer cannot fail any more: the access layer may charge it at once (one commit, not two).
  const grant = await engine.access.authorize({ ...input, endpoint, params, answered: cached !== undefined });
  if (grant.replay) return { ...grant.replay, headers: { ...grant.replay.headers, "Idempotent-Replayed": "true" } };
  let committed = false;
  try {
    const { data, sources, warnings } = cached ?? (await answer(engine, endpoint, params, extra, input.clientId, cache));
    committed = true;
    const receipt = await grant.commit();
    const result: CallResult = {
      status: 200,
      headers: { ...grant.headers, ...receipt.headers, "x-cache": sources.length && sources.every((s) => s.cached) ? "HIT" : "MISS" },
      body: { data, meta: meta(endpoint, sources, warnings, grant.paidBy, receipt.meta) },
    };
    await grant.keep?.(result);
    return result;
  } catch (e) {
    const problem = e instanceof UpstreamError ? upstreamProblem(e) : toProblem(e);
    if (!(e instanceof Problem) && !(e instanceof UpstreamError)) engine.log.error({ err: e, endpoint: endpoint.key }, "call failed");
    const allowance = (!committed && (await grant.release(problem))) || grant.headers;
    const own = { ...problem.headers };
    Object.assign(problem.headers, allowance, own);
    throw problem;
  }
}

/** The endpoint and the call's parameters, checked: every 400 a call can get before any payment is asked for. */
export async function checkCall(engine: Engine, input: Pick<CallInput, "group" | "operation" | "query">): Promise<{ endpoint: Endpoint; params: ParamValues; extra: Record<string, string> }> {
  const endpoint = resolveEndpoint(engine, input.group, input.operation);
  const { values: params, extra } = parseParams(endpoint.params, input.query, endpoint.freeForm);
  checkParamSets(endpoint.paramSets, params);
  await checkEarlyPreconditions(endpoint, params);
  endpoint.plugin?.fn.validate?.(params);
  return { endpoint, params, extra };
}

export function resolveEndpoint(engine: Engine, group: string, operation: string): Endpoint {
  const endpoint = engine.registry.find(group, operation);
  if (endpoint) return endpoint;
  const g = engine.registry.groups.get(group);
  throw new Problem({
    status: 404,
    code: "unknown_endpoint",
    detail: g
      ? `The ${group} group has no endpoint ${operation}. Its endpoints: ${g.endpoints.map((e) => e.operation).join(", ")}.`
      : `There is no group ${group}. Groups: ${[...engine.registry.groups.keys()].join(", ")}.`,
  });
}

/** The local datasets the plugin cannot answer without must be loaded: a 503 dataset_not_loaded comes before any 402. */
function requireDatasets(engine: Engine, endpoint: Endpoint, params: ParamValues): void {
  const needed = endpoint.plugin?.fn.datasets;
  for (const name of (typeof needed === "function" ? needed(params) : needed) ?? []) engine.datasets.use(name);
}

/** Where the result cache keeps this call's answer; undefined when the endpoint's answers are not cached. */
function cacheSlot(engine: Engine, endpoint: Endpoint, params: ParamValues, extra: Record<string, string>): { key: string; ttl: number } | undefined {
  const ttl = ResultCache.ttl(endpoint);
  return ttl ? { key: engine.results.key(endpoint, params, extra), ttl } : undefined;
}

/** The endpoint's answer, produced and shaped (and cached as long as its upstream responses). */
async function answer(engine: Engine, endpoint: Endpoint, params: ParamValues, extra: Record<string, string>, clientId: string,
  cache: { key: string; ttl: number } | undefined): Promise<Answer> {
  const fetched: Fetched[] = [];
  const recorded: Provenance[] = [];
  // The answers a plugin fetched itself (a caller's page through the safe fetcher), also in `recorded`.
  const pages: Provenance[] = [];
  const missing: MissingPart[] = [];
  const failed: Record<string, string> = {};
  const cut: MissingPart[] = [];
  let data: unknown;
  try {
    const body = await produce(engine, endpoint, params, extra, { fetched, recorded, pages, missing, failed, cut }, clientId);
    data = await shape(endpoint, body, params, fetched.length + pages.length > 0, failed);
    if (endpoint.paging) data = await withPaging(endpoint.paging, data, body, params);
  } catch (e) {
    // A failed call's upstream responses leave the cache: a wrong or refused answer is never reused.
    engine.upstream.discard(fetched);
    throw blame(engine, endpoint, pages.at(-1) ?? fetched.at(-1), e);
  }
  const sources = [...fetched.map(({ body: _b, status: _s, ...provenance }) => provenance), ...recorded];
  // An answer with a part missing is not kept: the next call asks the upstream again. One cut short (for_each max,
  // paginate max_pages) would be cut the same way again: it is kept, with its warnings.
  const warnings = [...missing, ...cut];
  const answer = warnings.length ? { data, sources, warnings } : { data, sources };
  if (cache && !missing.length) engine.results.set(cache.key, answer, cache.ttl);
  return answer;
}

/**
 * Whose fault an error raised while producing or shaping the answer is. A Problem or an UpstreamError says so itself.
 * Any other error (a JSONata $error or a type error in the transform, a TypeError in a plugin) raised once an upstream
 * has answered in this call is taken to be that answer not being what the code reads, since a hostile or broken
 * upstream can send anything: the caller gets a 502, not charged, never a 500. The same error may be a bug in the
 * endpoint's own code, so it is logged with its stack for the maintainer (the examples, which replay real answers,
 * catch such bugs first). Raised before any upstream answered (a computation, a local dataset), the error can only be
 * the code's own: it stays a 500.
 */
function blame(engine: Engine, endpoint: Endpoint, last: Provenance | undefined, e: unknown): unknown {
  if (e instanceof Problem || e instanceof UpstreamError || !last) return e;
  engine.log.error({ err: e, endpoint: endpoint.key, file: endpoint.file, upstream: last.source, url: last.url }, "reading an upstream answer failed (a bad body, or a bug): answered 502");
  return new Problem({
    status: 502,
    code: "upstream_bad_response",
    detail: `The upstream source ${last.source} answered with a body that could not be read (${String((e as Error).message ?? e).slice(0, 160)}). The call was not charged.`,
    extra: { upstream: last.source },
  });
}

/** The raw material: the upstream steps' bodies, or what the plugin computed. */
async function produce(engine: Engine, endpoint: Endpoint, params: ParamValues, extra: Record<string, string>,
  { fetched, recorded, pages, missing, failed, cut }: { fetched: Fetched[]; recorded: Provenance[]; pages: Provenance[]; missing: MissingPart[]; failed: Record<string, string>; cut: MissingPart[] },
  clientId: string): Promise<unknown> {
  if (endpoint.steps) return runSteps(engine.upstream, endpoint, params, extra, { fetched, missing, failed, cut });
  const used = new Set<string>();
  const ctx: PluginContext = {
    params,
    extra,
    clientId,
    vars: endpoint.vars,
    fetch: async (req) => {
      const answer = await engine.upstream.fetch(upstreamRequest(req, { params, vars: endpoint.vars }));
      fetched.push(answer);
      return answer.body;
    },
    record: (p) => recorded.push(p),
    recordAnswer: (p) => {
      recorded.push(p);
      pages.push(p);
    },
    dataset: (name) => {
      const handle = engine.datasets.use(name);
      if (!used.has(name)) recorded.push(engine.datasets.provenance(handle));
      used.add(name);
      return handle as never;
    },
    datasets: engine.datasets,
    log: engine.log,
  };
  return endpoint.plugin!.fn(ctx);
}

/**
 * The endpoint's JSONata transform (with $failed: what went wrong with each optional step that failed, by name).
 * Nothing out of an upstream's answer (undefined) means the body was not what it reads.
 */
async function shape(endpoint: Endpoint, body: unknown, params: ParamValues, fromUpstream: boolean, failed: Record<string, string>): Promise<unknown> {
  if (!endpoint.transform) return body;
  const out = await endpoint.transform.evaluate(body, { params, vars: endpoint.vars, failed });
  if (out === undefined && fromUpstream) throw new Error("nothing in it matched what was expected");
  return plain(out);
}

function meta(endpoint: Endpoint, sources: Provenance[], warnings: MissingPart[] | undefined, paidBy: string, receipt: Record<string, unknown>): Record<string, unknown> {
  return {
    endpoint: endpoint.key,
    sources,
    ...(warnings?.length ? { warnings } : {}),
    ...(endpoint.attribution ? { attribution: endpoint.attribution } : {}),
    ...(endpoint.disclaimers.length ? { disclaimers: endpoint.disclaimers } : {}),
    price_usd: endpoint.price,
    paid_by: paidBy,
    ...receipt,
  };
}
