// Runs an endpoint's upstream steps in order. Each step's URL may use the params, the vars and, through
// {= JSONata}, the bodies of the steps before it ($steps.<as>). One step answers its body; several answer
// an object keyed by their `as` names. A step whose `when` is false is not requested, and an optional step whose
// upstream fails is left out (a warning says so): both are null.
import { Problem } from "../basics/problem.ts";
import { durationMs } from "../basics/duration.ts";
import { type Fetched, type UpstreamClient } from "../upstream/client.ts";
import { UpstreamError } from "../upstream/error.ts";
import { upstreamProblem } from "./upstream-problem.ts";
import type { Endpoint, Step } from "../endpoints/model.ts";
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
  for (const step of endpoint.steps ?? []) if (step.precondition?.early) await checkPrecondition(step, scope);
}

async function checkPrecondition(step: Step, scope: Scope): Promise<void> {
  if (await step.precondition!.test.evaluate(scope, scope)) return;
  const { status } = step.precondition!;
  const blamed = [step.precondition!.param ?? []].flat();
  throw new Problem({ status, param: blamed[0], extra: blamed.length > 1 ? { params: blamed } : undefined, code: status === 404 ? "not_found" : status === 400 ? "invalid_parameter" : "upstream_bad_response", detail: await step.precondition!.detail.render(scope) });
}

/** A part of the answer that could not be read (an optional step's upstream failed): it is null in the answer. */
export interface MissingPart { part: string; source: string; detail: string }

export async function runSteps(
  upstream: UpstreamClient,
  endpoint: Endpoint,
  params: ParamValues,
  extra: Record<string, string>,
  fetched: Fetched[],
  missing: MissingPart[],
): Promise<unknown> {
  const steps = endpoint.steps ?? [];
  const scope = scopeOf(endpoint, params);
  let body: unknown;
  for (const [i, step] of steps.entries()) {
    const isLast = i === steps.length - 1;
    if (step.precondition && !step.precondition.early) await checkPrecondition(step, scope);
    if (step.when && !(await step.when.evaluate(scope, scope))) {
      body = scope.steps[step.as!] = null;
      continue;
    }
    const path = await step.path.render(scope, encodeURIComponent);
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
    if (isLast) Object.assign(query, extra, endpoint.paging ? pagingQuery(endpoint.paging, params) : {});
    const requestBody = step.body === undefined ? undefined : await renderBody(step.body, scope);
    try {
      body = await fetchStep(upstream, step, path, query, requestBody, scope, fetched);
    } catch (e) {
      const fault = step.optional ? upstreamFault(e) : undefined;
      if (!fault) throw e;
      missing.push({ part: step.as!, source: step.source, detail: `The upstream source ${step.source} ${fault}; the answer is given without its ${step.as} part (null).` });
      body = null;
    }
    if (step.as) scope.steps[step.as] = body;
  }
  return steps.length > 1 ? scope.steps : body;
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

async function fetchStep(upstream: UpstreamClient, step: Step, path: string, query: Record<string, string | string[]>, requestBody: unknown, scope: Scope, fetched: Fetched[]): Promise<unknown> {
  try {
    const answer = await upstream.fetch({
      source: step.source, path, query, headers: step.headers, method: step.method, body: requestBody, bodyFormat: step.bodyFormat, format: step.format, csv: step.csv,
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
