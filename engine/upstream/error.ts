// How an upstream request failed: what the call pipeline turns into a 502/503/504 problem (call/upstream-problem.ts).

export type UpstreamFailure = "timeout" | "network" | "status" | "parse" | "rejected" | "unexpected" | "too_large" | "redirect" | "off_source";

export class UpstreamError extends Error {
  readonly kind: UpstreamFailure;
  readonly source: string;
  readonly url: string;
  readonly status?: number;
  readonly text?: string;
  rejectIndex?: number;
  /** Seconds the upstream asked us to wait (Retry-After), passed on to the caller. */
  retryAfter?: number;
  constructor(kind: UpstreamFailure, source: string, url: string, message: string, status?: number, text?: string) {
    super(message);
    this.kind = kind;
    this.source = source;
    this.url = url;
    this.status = status;
    this.text = text;
  }
}
