// Runs an endpoint's upstream steps in order. Each step's URL may use the params, the vars and, through
// {= JSONata}, the bodies of the steps before it ($steps.<as>). One step answers its body; several answer
// an object keyed by their `as` names.
import { Problem } from "./problem.ts";
import { durationMs } from "./duration.ts";
import { UpstreamError, type Provenance, type UpstreamClient } from "./upstream.ts";
import { upstreamProblem } from "./upstream-problem.ts";
import type { Endpoint, Step } from "./registry.ts";
import type { ParamValues } from "./params.ts";
import { Template, type Scope } from "./template.ts";

export async function runSteps(
  upstream: UpstreamClient,
  endpoint: Endpoint,
  params: ParamValues,
  extra: Record<string, string>,
  sources: Provenance[],
): Promise<unknown> {
  const steps = endpoint.steps ?? [];
  const scope: Scope = { params, vars: endpoint.vars, steps: {} };
  let body: unknown;
  for (const [i, step] of steps.entries()) {
    const isLast = i === steps.length - 1;
    if (step.precondition && !(await step.precondition.test.evaluate(scope, scope))) {
      const { status, param } = step.precondition;
      throw new Problem({ status, param, code: status === 404 ? "not_found" : status === 400 ? "invalid_parameter" : "upstream_bad_response", detail: await step.precondition.detail.render(scope) });
    }
    const path = await step.path.render(scope, encodeURIComponent);
    const query: Record<string, string> = {};
    for (const [name, t] of step.query) {
      const v = await t.render(scope);
      if (v !== "") query[name] = v;
    }
    if (isLast) Object.assign(query, extra);
    body = await fetchStep(upstream, step, path, query, scope, sources);
    if (step.as) scope.steps[step.as] = body;
  }
  return steps.length > 1 ? scope.steps : body;
}

async function fetchStep(upstream: UpstreamClient, step: Step, path: string, query: Record<string, string>, scope: Scope, sources: Provenance[]): Promise<unknown> {
  try {
    const fetched = await upstream.fetch({
      source: step.source, path, query, headers: step.headers, format: step.format, csv: step.csv, cacheMs: durationMs(step.cache),
      reject: step.reject.map((r) => r.match),
    });
    const { body, status: _status, ...provenance } = fetched;
    sources.push(provenance);
    return body;
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    if (e.kind === "rejected") {
      const rule = step.reject[e.rejectIndex ?? 0];
      throw new Problem({ status: rule.status, code: rule.status === 404 ? "not_found" : rule.status === 400 ? "invalid_parameter" : "upstream_bad_response", param: rule.param, detail: await rule.detail.render(scope) });
    }
    const rule = e.status !== undefined ? step.statuses[String(e.status)] : undefined;
    if (rule?.status === 200) return null;
    // A status rule's detail may quote the upstream's error body: {= $reply.error.message } (JSON, else its text).
    const detail = rule?.detail ? await new Template(rule.detail).render({ ...scope, reply: readReply(e.text) }) : undefined;
    throw upstreamProblem(e, step.statuses, detail);
  }
}

function readReply(text: string | undefined): unknown {
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
