// RFC 9457 problem details: the one error body every endpoint, HTTP and MCP, answers with.

export const PROBLEM_TITLES: Record<string, string> = {
  invalid_parameter: "A query parameter is not valid",
  missing_parameter: "A required query parameter is missing",
  unknown_parameter: "The endpoint does not take this query parameter",
  not_found: "Not found",
  date_out_of_range: "The date is out of range",
  method_not_allowed: "Only GET is allowed here",
  headers_too_large: "The request headers are too large",
  payload_too_large: "The request body is too large",
  unknown_endpoint: "No such endpoint",
  payment_required: "Payment required",
  payment_invalid: "The payment was not accepted",
  invalid_api_key: "The API key is not valid",
  rate_limited: "Too many requests",
  upstream_error: "The upstream source failed",
  upstream_timeout: "The upstream source did not answer in time",
  upstream_bad_response: "The upstream source answered with something unreadable",
  upstream_too_large: "The upstream source sent more than the service takes",
  upstream_busy: "The upstream source is refusing more requests for now",
  dataset_not_loaded: "The local dataset has not been loaded yet",
  upstream_credentials_missing: "The server lacks a credential this upstream needs",
  internal_error: "Internal error",
  service_stopping: "The service is stopping",
  payments_unavailable: "Payments cannot be taken right now",
  settlement_unknown: "Whether the payment settled is not known yet",
  allowance_exhausted: "The free allowance is used up for today",
  free_key_required: "This endpoint needs a free key",
  key_limit_reached: "No more free keys for this address today",
  credit_unavailable: "Card credit cannot be bought right now",
  webhook_invalid: "The webhook could not be verified",
  invalid_idempotency_key: "The Idempotency-Key is not valid",
  idempotency_key_reused: "The Idempotency-Key was used for another request",
  idempotency_key_in_use: "A call with this Idempotency-Key is still running",
  invalid_payment_identifier: "The payment identifier is not valid",
  payment_identifier_reused: "The payment identifier was used with another payment",
  payment_identifier_in_use: "A call with this payment identifier is still running",
};

export interface ProblemInit {
  status: number;
  code: string;
  detail: string;
  param?: string;
  title?: string;
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class Problem extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly param?: string;
  readonly title: string;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(init: ProblemInit) {
    super(init.detail);
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.param = init.param;
    this.title = init.title ?? PROBLEM_TITLES[init.code] ?? "Error";
    this.extra = init.extra ?? {};
    this.headers = init.headers ?? {};
  }

  body(instance?: string): ProblemBody {
    return {
      type: `/problems#${this.code}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(this.param ? { param: this.param } : {}),
      ...(instance ? { instance } : {}),
      ...this.extra,
    };
  }
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  param?: string;
  instance?: string;
  [extension: string]: unknown;
}

export const badParam = (param: string, detail: string, code = "invalid_parameter") =>
  new Problem({ status: 400, code, param, detail });

/** Anything thrown that is not a Problem becomes a 500 that says nothing about the internals. */
export function toProblem(err: unknown): Problem {
  if (err instanceof Problem) return err;
  return new Problem({ status: 500, code: "internal_error", detail: "The service failed while answering; the call was not charged." });
}
