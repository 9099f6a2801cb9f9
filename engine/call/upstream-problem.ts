// How an upstream failure reaches the caller: the endpoint file's status map first, else a 502.
import { Problem } from "../basics/problem.ts";
import { UpstreamError } from "../upstream/error.ts";
import type { StatusRule } from "../endpoints/model.ts";

const CODES: Record<UpstreamError["kind"], string> = {
  timeout: "upstream_timeout",
  network: "upstream_error",
  status: "upstream_error",
  parse: "upstream_bad_response",
  rejected: "upstream_bad_response",
  unexpected: "upstream_bad_response",
  redirect: "upstream_bad_response",
  off_source: "upstream_bad_response",
  too_large: "upstream_too_large",
};

export function upstreamProblem(err: UpstreamError, rules: Record<string, StatusRule> = {}, detail?: string): Problem {
  const rule = err.status !== undefined ? rules[String(err.status)] : undefined;
  if (rule && rule.status !== 200) {
    const code = rule.status === 404 ? "not_found" : rule.status === 400 ? "invalid_parameter" : "upstream_refused";
    return new Problem({ status: rule.status, code, param: rule.param, detail: detail ?? rule.detail ?? `The ${err.source} source has no such record.` });
  }
  const retry = err.retryAfter !== undefined ? { "retry-after": String(err.retryAfter) } : undefined;
  if (err.status === 429) {
    return new Problem({ status: 503, code: "upstream_busy", headers: retry, extra: { upstream: err.source },
      detail: `The upstream source ${err.source} is refusing more requests for now${err.retryAfter !== undefined ? ` (it asks for ${err.retryAfter} s)` : ""}. The call was not charged; try again later.` });
  }
  return new Problem({
    status: 502,
    code: CODES[err.kind],
    headers: retry,
    detail: `The upstream source ${err.source} ${err.message}. The call was not charged; try again later.`,
    extra: { upstream: err.source },
  });
}
