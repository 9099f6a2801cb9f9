// Pipeline outcomes as MCP tool results: the JSON both as structured content and as text. Errors are tool
// errors (isError) carrying the same RFC 9457 document as HTTP; a 402 follows the x402 v2 MCP transport
// (structuredContent and content[0].text are the PaymentRequired).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Problem } from "../basics/problem.ts";

export const PAYMENT_META = "x402/payment";
export const PAYMENT_RESPONSE_META = "x402/payment-response";

export function jsonResult(value: Record<string, unknown>, extra: Partial<CallToolResult> = {}): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value, ...extra };
}

export function successResult(body: { data: unknown; meta: Record<string, unknown> }): CallToolResult {
  const settlement = body.meta.payment_response;
  return jsonResult(body, settlement ? { _meta: { [PAYMENT_RESPONSE_META]: settlement } } : {});
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
