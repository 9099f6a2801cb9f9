// Pipeline outcomes as MCP tool results: the JSON both as structured content and as text. Errors are tool
// errors (isError) carrying the same RFC 9457 document as HTTP; a 402 follows the x402 v2 MCP transport
// (structuredContent and content[0].text are the PaymentRequired).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Problem } from "../basics/problem.ts";
import type { CallAnswer } from "../access/types.ts";

export const PAYMENT_META = "x402/payment";
export const PAYMENT_RESPONSE_META = "x402/payment-response";
// Pay once (docs/idempotency.md). MCP _meta names: an optional reverse-DNS prefix and a name; none of these is
// MCP's or x402's to define, so they go without a prefix (MCP 2025-11-25, basic/index "_meta").
export const IDEMPOTENCY_KEY_META = "idempotencyKey";
/** With a test key: which of the endpoint's examples answers (its number, from 1), as the Test-Example header over HTTP. */
export const TEST_EXAMPLE_META = "testExample";
export const REPLAYED_META = "idempotentReplayed";

export function jsonResult(value: Record<string, unknown>, extra: Partial<CallToolResult> = {}): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value, ...extra };
}

/** An answer, with its settlement (x402) and whether it is an earlier call's answer sent again, in _meta. */
export function successResult({ body, headers }: CallAnswer): CallToolResult {
  const settlement = body.meta.payment_response;
  const meta = { ...(settlement ? { [PAYMENT_RESPONSE_META]: settlement } : {}), ...(headers["Idempotent-Replayed"] ? { [REPLAYED_META]: true } : {}) };
  return jsonResult(body, Object.keys(meta).length ? { _meta: meta } : {});
}

export function problemResult(problem: Problem, instance: string): CallToolResult {
  const body = problem.body(instance);
  const paymentRequired = problem.extra.payment_required as Record<string, unknown> | undefined;
  if (problem.status !== 402 || !paymentRequired) return jsonResult(body, { isError: true });

  // The x402 transport wants the PaymentRequired first; the rest of the problem (why, and the free-key and
  // credit alternatives) follows as a second text block for the agent to read.
  const { payment_required: _pr, ...explanation } = body;
  const settlement = decodeHeader(problem.headers["PAYMENT-RESPONSE"]);
  return {
    isError: true,
    structuredContent: paymentRequired,
    content: [
      { type: "text", text: JSON.stringify(paymentRequired) },
      { type: "text", text: JSON.stringify(explanation) },
    ],
    ...(settlement ? { _meta: { [PAYMENT_RESPONSE_META]: settlement } } : {}),
  };
}

/** A failed settlement travels in the PAYMENT-RESPONSE header (base64 JSON); over MCP it goes in _meta. */
function decodeHeader(value: string | undefined): unknown {
  if (!value) return undefined;
  try {
    return JSON.parse(Buffer.from(value, "base64").toString("utf8"));
  } catch {
    return undefined;
  }
}
