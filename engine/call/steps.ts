// Runs an endpoint's upstream steps. Each step's URL may use the params, the vars and, through {= JSONata}, the
// bodies of the steps before it ($steps.<as>); steps that name no earlier body are asked side by side. One step answers its body; several answer
// an object keyed by their `as` names. A step whose `when` is false is not requested, and an optional step whose
// upstream fails is left out (a warning says so): both are null. A for_each step is requested once per item and a
// paginate step page after page: their bodies are lists.
import { Problem } from "../basics/problem.ts";
import { durationMs } from "../basics/duration.ts";
import { type Fetched, type UpstreamClient } from "../upstream/client.ts";
import { UpstreamError } from "../upstream/error.ts";
import { upstreamProblem } from "./upstream-problem.ts";
import type { Endpoint, ForEach, Paginate, Step } from "../endpoints/model.ts";
import type { ParamValues } from "../endpoints/params.ts";
import { Template, type Scope } from "../endpoints/template.ts";
import { pagingQuery } from "../endpoints/upstream-paging.ts";
import { isoDay } from "../basics/dates.ts";
import { clock, clockFunctions } from "../basics/clock.ts";

/** What an endpoint's templates, preconditions and expect tests see; $steps fills as the steps run. */
const scopeOf = (endpoint: Endpoint, params: ParamValues): Scope => ({ params, vars: endpoint.vars, steps: {}, today: isoDay(clock.today()), ...clockFunctions });

/** The preconditions that need only the parameters: checked before the access decision, so bad input is a 400 first. */
export async function checkEarlyPreconditions(endpoint: Endpoint, params: ParamValues): Promise<void> {
  const scope = scopeOf(endpoint, params);
  for (const step of endpoint.steps ?? []) {
    if (step.precondition?.early) await checkPrecondition(step, scope);
    // A for_each over the parameters alone: too many items is the caller's 400, before payment too.
    if (step.forEach?.early) refuseBeyondMax(step, step.forEach, (await itemsOf(step.forEach, scope)).length);
  }
}

function checkPrecondition(step: Step, scope: Scope): Promise<void> {
  return checkRule(step.precondition!, scope, scope);
}

/** A precondition (over the scope) or a check (over the step's body): when its test is false, the call answers its status. */
async function checkRule(rule: NonNullable<Step["precondition"] | Step["check"]>, input: unknown, scope: Scope): Promise<void> {
  if (await rule.test.evaluate(input, scope)) return;
  const { status } = rule;
  const blamed = [rule.param ?? []].flat();
  throw new Problem({ status, param: blamed[0], extra: blamed.length > 1 ? { params: blamed } : undefined, code: status === 404 ? "not_found" : status === 400 ? "invalid_parameter" : "upstream_bad_response", detail: await rule.detail.render(scope) });
}

/** A part of the answer that could not be read (an optional step's upstream failed): it is null in the answer. */
export interface MissingPart { part: string; source: string; detail: string }

/**
 * What running the steps collects: the answers fetched, the parts that could not be read (and, by step name, what
 * went wrong: the transform's $failed), the parts cut short.
 */
export interface StepsRun { fetched: Fetched[]; missing: MissingPart[]; failed: Record<string, string>; cut: MissingPart[] }

export async function runSteps(upstream: UpstreamClient, endpoint: Endpoint, params: ParamValues, extra: Record<string, string>, run: StepsRun): Promise<unknown> {
  const steps = endpoint.steps ?? [];
  const scope = scopeOf(endpoint, params);
  let body: unknown;
  let asked = 0;
  for (const wave of wavesOf(steps)) {
    // The steps of a wave read no body of another of the wave: they are asked side by side, and their outcomes
    // taken in the file's order, so that the answer, meta.sources and the first failure are the same every time.
    const started: { step: Step; outcome: Promise<StepOutcome> }[] = [];
    for (const { step, last } of wave) {
      if (step.precondition && !step.precondition.early) await checkPrecondition(step, scope);
      if (step.when && !(await step.when.evaluate(scope, scope))) {
        started.push({ step, outcome: Promise.resolve({ skipped: true }) });
        continue;
      }
      asked++;
      // The free-form and declared-paging query go to the last step only.
      const added = last ? { ...extra, ...(endpoint.paging ? pagingQuery(endpoint.paging, params) : {}) } : {};
      const own: StepsRun = { fetched: [], missing: [], failed: {}, cut: [] };
      started.push({ step, outcome: runStep(upstream, step, scope, added, own).then((b) => ({ body: b, own }), (error) => ({ error, own })) });
    }
    const outcomes = await Promise.all(started.map((s) => s.outcome));
    for (const [i, { step }] of started.entries()) {
      const o = outcomes[i];
      if (o.own) {
        run.fetched.push(...o.own.fetched);
        run.cut.push(...o.own.cut);
      }
      body = "error" in o ? missingPart(step, o.error, run) : (o.body ?? null);
      if (step.as) scope.steps[step.as] = body;
      if (step.check && body !== null) await checkRule(step.check, body, scope);
    }
  }
  // Optional steps all asked and all failed (sources asked side by side): nothing is left to answer with.
  if (asked > 0 && Object.keys(run.failed).length === asked) {
    throw new Problem({ status: 502, code: "upstream_error",
      detail: `Every upstream source asked failed (${Object.entries(run.failed).map(([part, fault]) => `${part}: ${fault}`).join("; ")}). The call was not charged.` });
  }
  return steps.length > 1 ? scope.steps : body;
}

type StepOutcome = { skipped: true; body?: undefined; own?: undefined } | { body: unknown; own: StepsRun } | { error: unknown; own: StepsRun };

/** The steps cut where one reads an earlier body ($steps): each wave starts once the waves before it have ended. */
function wavesOf(steps: Step[]): { step: Step; last: boolean }[][] {
  const waves: { step: Step; last: boolean }[][] = [];
  for (const [i, step] of steps.entries()) {
    if (!waves.length || step.readsEarlierSteps) waves.push([]);
    waves.at(-1)!.push({ step, last: i === steps.length - 1 });
  }
  return waves;
}

/** An optional step's upstream fault leaves its part null (with a warning); any other failure fails the call. */
function missingPart(step: Step, error: unknown, run: StepsRun): null {
  const fault = step.optional ? upstreamFault(error) : undefined;
  if (!fault) throw error;
  run.missing.push({ part: step.as!, source: step.source, detail: `The upstream source ${step.source} ${fault}; the answer is given without its ${step.as} part (null).` });
  run.failed[step.as!] = fault;
  return null;
}

/** One step's body: one request's, or the list of its items' (for_each) or of its pages' (paginate). */
function runStep(upstream: UpstreamClient, step: Step, scope: Scope, added: Record<string, string>, run: StepsRun): Promise<unknown> {
  if (step.forEach) return forEachItem(upstream, step, step.forEach, scope, added, run);
  if (step.paginate) return pageAfterPage(upstream, step, step.paginate, scope, added, run);
  return request(upstream, step, scope, added, run.fetched);
}

/** One request of a step, its templates rendered in the scope (with $item in a for_each); `link` replaces path and query. */
async function request(upstream: UpstreamClient, step: Step, scope: Scope, added: Record<string, string>, fetched: Fetched[],
  link?: { path: string; query: Record<string, string | string[]> }): Promise<unknown> {
  const path = link?.path ?? (await step.path.render(scope, encodeURIComponent));
  const query = link?.query ?? { ...(await renderQuery(step, scope)), ...added };
  const headers: Record<string, string> = {};
  for (const [name, t] of step.headers) {
    const v = await t.render(scope);
    if (v !== "") headers[name] = v;
  }
  const requestBody = step.body === undefined ? undefined : await renderBody(step.body, scope);
  return fetchStep(upstream, step, path, query, headers, requestBody, scope, fetched);
}

async function renderQuery(step: Step, scope: Scope): Promise<Record<string, string | string[]>> {
  const query: Record<string, string | string[]> = {};
  for (const [name, t] of step.query) {
    // A query value that is only {= expr} and gives a list repeats the parameter (e.g. fields[]=a&fields[]=b).
    const list = t.single ? await t.value(scope) : undefined;
    if (Array.isArray(list)) {
      if (list.length) query[name] = list.map(String);
      continue;
    }
    const v = await t.render(scope);
    if (v !== "") query[name] = v;
  }
  return query;
}

/** A for_each's items: a single value is a list of one, nothing is none. */
async function itemsOf(spec: ForEach, scope: Scope): Promise<unknown[]> {
  const value = await spec.items.evaluate(scope, scope);
  return value === undefined || value === null ? [] : Array.isArray(value) ? [...value] : [value];
}

/** More items than `max` where the step refuses them: the caller's 400 (items from a parameter), else the upstream's 502. */
function refuseBeyondMax(step: Step, spec: ForEach, count: number): void {
  if (count <= spec.max || spec.cut) return;
  const part = step.as ?? "upstream";
  throw spec.param
    ? new Problem({ status: 400, code: "invalid_parameter", param: spec.param, detail: `${spec.param} gives ${count} ${part} to look up; at most ${spec.max} are looked up in one call.` })
    : new Problem({ status: 502, code: "upstream_bad_response", extra: { upstream: step.source },
      detail: `The upstream answer listed ${count} ${part} to look up, more than the ${spec.max} this endpoint asks for in one call. The call was not charged.` });
}

/** for_each: a request per item, at most `concurrency` at a time; the bodies in the items' order. */
async function forEachItem(upstream: UpstreamClient, step: Step, spec: ForEach, scope: Scope, added: Record<string, string>, run: StepsRun): Promise<unknown[]> {
  const all = await itemsOf(spec, scope);
  refuseBeyondMax(step, spec, all.length);
  const part = step.as ?? "upstream";
  const items = all.slice(0, spec.max);
  if (items.length < all.length) {
    run.cut.push({ part, source: step.source, detail: `Only the first ${spec.max} of ${all.length} ${part} were looked up (at most ${spec.max} in one call); the answer leaves the other ${all.length - spec.max} out.` });
  }
  // Each item's answers are kept apart, then recorded in the items' order (meta.sources), failed or not.
  const fetchedBy: Fetched[][] = items.map(() => []);
  try {
    return await inBatches(items, spec.concurrency, (item, index) => request(upstream, step, { ...scope, item, index }, added, fetchedBy[index]));
  } finally {
    run.fetched.push(...fetchedBy.flat());
  }
}

/**
 * Runs fn over the items with at most `limit` in flight; the results in the items' order. The first failure stops
 * new starts, and is thrown once the requests in flight have ended (none outlives the call).
 */
async function inBatches<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return out;
}

/** paginate: the step's own request, then the next link or the next page number/offset, up to max_pages. */
async function pageAfterPage(upstream: UpstreamClient, step: Step, spec: Paginate, scope: Scope, added: Record<string, string>, run: StepsRun): Promise<unknown[]> {
  const pages: unknown[] = [];
  let link: { path: string; query: Record<string, string | string[]> } | undefined;
  for (;;) {
    const counter = spec.counter && { [spec.counter.query]: String(spec.counter.first + pages.length * spec.counter.step) };
    const page = await request(upstream, step, scope, { ...added, ...counter }, run.fetched, link);
    pages.push(page);
    // A statuses rule that answers 200 (no body) ends the list.
    if (page === null) break;
    let more: boolean;
    if (spec.next) {
      const next = await spec.next.evaluate(page, scope);
      more = typeof next === "string" && next !== "";
      if (more) link = onSource(upstream, step.source, next as string);
    } else {
      more = Boolean(await spec.more!.evaluate(page, { ...scope, pages: pages.length }));
    }
    if (!more) break;
    if (pages.length >= spec.maxPages) {
      run.cut.push({ part: step.as ?? "upstream", source: step.source, detail: `Only the first ${spec.maxPages} pages of the upstream's answer were read (at most ${spec.maxPages} in one call); the answer leaves the rest out.` });
      break;
    }
  }
  return pages;
}

/**
 * A next-page link as a request on the step's source: its path under the source's base URL, and its query.
 * A link anywhere else (another host, port, scheme or user, or outside the base path) is refused before any request.
 */
function onSource(upstream: UpstreamClient, source: string, link: string): { path: string; query: Record<string, string | string[]> } {
  const base = new URL(upstream.publicUrl({ source, path: "/" }));
  const basePath = base.pathname.replace(/\/$/, "");
  let url: URL | undefined;
  try {
    url = new URL(link, base);
  } catch {
    url = undefined;
  }
  const path = url?.pathname.slice(basePath.length) ?? "";
  if (!url || url.origin !== base.origin || url.username || url.password || !url.pathname.startsWith(basePath) || !path.startsWith("/")) {
    throw new UpstreamError("off_source", source, link.slice(0, 200),
      `gave a next-page link "${link.slice(0, 120)}", which is not on its own server ${base.origin}${basePath}; it was not called`);
  }
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return { path, query };
}

/**
 * A POST step's JSON body: strings are templates ({param}), a string that is only "{= expr}" takes the
 * expression's value whatever its type (a number, a list), and objects and lists are rendered member by member.
 */
async function renderBody(template: unknown, scope: Scope): Promise<unknown> {
  if (typeof template === "string") {
    const t = new Template(template);
    return t.single ? t.value(scope) : t.render(scope);
  }
  if (Array.isArray(template)) return Promise.all(template.map((v) => renderBody(v, scope)));
  if (template && typeof template === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) out[k] = await renderBody(v, scope);
    return out;
  }
  return template;
}

async function fetchStep(upstream: UpstreamClient, step: Step, path: string, query: Record<string, string | string[]>, headers: Record<string, string>,
  requestBody: unknown, scope: Scope, fetched: Fetched[]): Promise<unknown> {
  try {
    const answer = await upstream.fetch({
      source: step.source, path, query, headers, method: step.method, body: requestBody, bodyFormat: step.bodyFormat, format: step.format, csv: step.csv,
      cacheMs: durationMs(step.cache), reject: step.reject.map((r) => r.match),
      expect: { ...step.expect, test: step.expectTest && ((body) => step.expectTest!.evaluate(body, scope)) },
    });
    fetched.push(answer);
    return answer.body;
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    if (e.kind === "rejected") {
      const rule = step.reject[e.rejectIndex ?? 0];
      throw new Problem({ status: rule.status, code: rule.status === 404 ? "not_found" : rule.status === 400 ? "invalid_parameter" : "upstream_bad_response", param: rule.param, detail: await rule.detail.render(scope) });
    }
    const rule = e.status !== undefined ? step.statuses[String(e.status)] : undefined;
    // The upstream's fault: the pipeline makes it a 502 (a 503 for a 429), unless the step is optional.
    if (!rule) throw e;
    if (rule.status === 200) {
      // The status itself is the answer ("nothing matches"): from this source, with no body.
      fetched.push({ source: e.source, publisher: upstream.source(e.source).publisher, url: e.url, fetched_at: new Date().toISOString(), cached: false, status: e.status!, body: null });
      return null;
    }
    // A status rule's detail may quote the upstream's error body: {= $reply.error.message } (JSON, else its text).
    const detail = rule.detail ? await new Template(rule.detail).render({ ...scope, reply: readReply(e.text) }) : undefined;
    throw upstreamProblem(e, step.statuses, detail);
  }
}

/** What went wrong when a step failed through the upstream's fault (not a 400 or 404 its rules answer), else undefined. */
function upstreamFault(e: unknown): string | undefined {
  if (e instanceof UpstreamError) return e.message;
  if (e instanceof Problem && e.status >= 500) return `could not be used (${e.code})`;
  return undefined;
}

function readReply(text: string | undefined): unknown {
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
