// How an upstream failure reaches the caller: the endpoint file's status map first, else a 502.
import { Problem } from "./problem.ts";
import { UpstreamError } from "./upstream.ts";
import type { StatusRule } from "./registry.ts";

export function upstreamProblem(err: UpstreamError, rules: Record<string, StatusRule> = {}, detail?: string): Problem {
  const rule = err.status !== undefined ? rules[String(err.status)] : undefined;
  if (rule && rule.status !== 200) {
    const code = rule.status === 404 ? "not_found" : rule.status === 400 ? "invalid_parameter" : "upstream_refused";
    return new Problem({ status: rule.status, code, param: rule.param, detail: detail ?? rule.detail ?? `The ${err.source} source has no such record.` });
  }
  const code = err.kind === "timeout" ? "upstream_timeout" : err.kind === "parse" ? "upstream_bad_response" : "upstream_error";
  return new Problem({
    status: 502,
    code,
    detail: `The upstream source ${err.source} ${err.message}. The call was not charged; try again later.`,
    extra: { upstream: err.source },
  });
}
