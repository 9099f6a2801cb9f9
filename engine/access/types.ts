// The access decision of the pipeline: who pays for a call, and how. One implementation serves HTTP and MCP.
import type { Endpoint } from "../endpoints/model.ts";
import type { ParamValues, RawQuery } from "../endpoints/params.ts";
import type { Problem } from "../basics/problem.ts";

export interface CallRequest {
  endpoint: Endpoint;
  params: ParamValues;
  /** The parameters as sent (what an Idempotency-Key is bound to). */
  query: RawQuery;
  channel: "http" | "mcp";
  /** X-API-Key, when sent. */
  apiKey?: string;
  /** The client's address: anonymous MCP allowances are counted per client. */
  clientId: string;
  /** HTTP: the PAYMENT-SIGNATURE header (base64 PaymentPayload). */
  paymentSignature?: string;
  /** MCP: _meta["x402/payment"] (a PaymentPayload object). */
  paymentPayload?: unknown;
  /** The Idempotency-Key header (HTTP) or _meta.idempotencyKey (MCP), as sent: checked by the access layer. */
  idempotencyKey?: unknown;
  /** The resource being paid for (HTTP URL, or mcp://tool/<name>). */
  resourceUrl: string;
  /**
   * The answer is already at hand (the result cache has it), so nothing can fail after the charge: allowance and
   * credit are charged as final at once (one commit instead of a reservation and a finish).
   */
  answered?: boolean;
}

export type PaidBy = "allowance" | "credit" | "x402" | "free";

export interface Receipt {
  headers: Record<string, string>;
  /** Goes into the response's meta.payment. */
  meta: Record<string, unknown>;
}

/** What a call answered: what a retry with the same Idempotency-Key or payment identifier gets again. */
export interface CallAnswer {
  status: number;
  headers: Record<string, string>;
  body: { data: unknown; meta: Record<string, unknown> };
}

export interface Grant {
  paidBy: PaidBy;
  /** An earlier call with the same Idempotency-Key or payment identifier answered this: nothing runs, nothing is charged. */
  replay?: CallAnswer;
  /** After a successful call: keeps its answer for retries with the same key (absent when none was sent). */
  keep?(answer: CallAnswer): Promise<void>;
  /** Headers for the response whatever its outcome (RateLimit, RateLimit-Policy). */
  headers: Record<string, string>;
  /** After a successful call: consume the allowance, debit credit or settle the payment, write the ledger. May throw a Problem (settlement failed). */
  commit(): Promise<Receipt>;
  /**
   * After a failed call: nothing is charged; the ledger records the outcome. Answers the allowance headers as they now
   * stand. Never called for an answered call (its answer was at hand, so it cannot fail).
   */
  release(problem: Problem): Promise<Record<string, string> | void>;
}

export interface Access {
  /** Decides whether the call may run. Throws a 402 Problem (with the x402 PaymentRequired) when it may not. */
  authorize(call: CallRequest): Promise<Grant>;
  close(): Promise<void>;
}
