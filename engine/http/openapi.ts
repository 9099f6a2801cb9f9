// The OpenAPI 3.1 document, generated from the endpoint files.
import { paramDescription, paramSchema } from "../endpoints/param-schema.ts";
import { paramExamples } from "../endpoints/param-examples.ts";
import type { Registry, Endpoint } from "../endpoints/model.ts";
import type { PaymentRequirements } from "../access/x402.ts";

/** The x402 requirements a call of an endpoint is offered (none when the service takes no x402 payments). */
export type Offers = (e: Endpoint) => PaymentRequirements[];

const VERSION = "1.1.0";

/** A derived answer schema without its file comment. */
function openApiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $comment: _c, ...rest } = schema;
  return rest;
}

/**
 * How a call is paid, in the `x-payment-info` shape other x402 and MPP services put on their operations (price as
 * {mode, currency, amount}, protocols), with the scheme, networks and assets of x402 and the free allowance.
 */
function paymentInfo(e: Endpoint, offers: PaymentRequirements[]): Record<string, unknown> {
  const free_allowance = e.buckets.map((b) => ({ bucket: b.id, per_day_without_key: b.anonymous, per_day_with_key: b.key }));
  if (e.freeOnly) return { price: { mode: "fixed", currency: "USD", amount: "0" }, free_allowance_only: true, protocols: [], free_allowance };
  const networks = [...new Set(offers.map((o) => o.network))];
  const x402 = offers.length ? { scheme: offers[0].scheme, networks, assets: [...new Set(offers.map((o) => o.asset))], amount: offers[0].amount } : undefined;
  return {
    price: { mode: "fixed", currency: "USD", amount: String(e.price) },
    ...(x402 ? { scheme: x402.scheme, networks } : {}),
    protocols: [...(x402 ? [{ x402: { x402Version: 2, ...x402 } }] : []), { free_key: { header: "X-API-Key", get: "/free" } }, { card_credit: { checkout: "/credit/checkout" } }],
    free_allowance,
  };
}

function parameters(e: Endpoint): Record<string, unknown>[] {
  const examples = paramExamples(e);
  return Object.entries(e.params).map(([name, spec]) => ({
    name, in: "query", required: spec.required === true, description: paramDescription(spec), schema: paramSchema(spec, name),
    ...(name in examples ? { example: examples[name] } : {}),
    ...(spec.type === "array" ? { style: "form", explode: false } : {}),
  }));
}

/** The request headers every call understands besides the key (docs/idempotency.md, docs/payments.md, docs/test-mode.md). */
const CALL_HEADERS = [
  { name: "PAYMENT-SIGNATURE", in: "header", required: false, schema: { type: "string" }, description: "Base64 of an x402 v2 PaymentPayload signing one of the 402's accepts: pays this call." },
  { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 }, description: "The same key with the same request within 24 hours returns the first answer and is charged once; with another request it is refused (422), and while the first is still running a retry gets 409." },
  { name: "Test-Example", in: "header", required: false, schema: { type: "integer", minimum: 1 }, description: "With a test key (pda_test_…) only: answer from the endpoint's n-th example (from 1), error examples included." },
];

function operation(e: Endpoint, offers: PaymentRequirements[]): Record<string, unknown> {
  const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } });
  return {
    operationId: e.operationId,
    summary: e.summary,
    description: e.description + (e.disclaimers.length ? `\n\n${e.disclaimers.join(" ")}` : ""),
    tags: [e.group],
    "x-price-usd": e.price,
    ...(e.freeOnly ? { "x-free-allowance-only": true } : {}),
    "x-mcp-tool": e.toolName,
    "x-free-allowance": e.buckets.map((b) => ({ bucket: b.id, per_day_without_key: b.anonymous, per_day_with_key: b.key })),
    "x-payment-info": paymentInfo(e, offers),
    // OpenAPI cannot say "give one of these sets": a call needs exactly one (one_of) or at least one (any_of).
    ...(e.paramSets ? { "x-param-sets": e.paramSets } : {}),
    parameters: [...parameters(e), ...CALL_HEADERS],
    responses: {
      "200": {
        description: "The data, with where it came from",
        content: { "application/json": { schema: e.output
          ? { allOf: [{ $ref: "#/components/schemas/Envelope" }, { type: "object", properties: { data: openApiSchema(e.output) } }] }
          : { $ref: "#/components/schemas/Envelope" } } },
      },
      "400": problem("A parameter is missing or not valid; `param` names it"),
      ...(e.freeOnly ? {
        "401": problem("Served within the free allowance only: this needs a free key (X-API-Key) over HTTP; it cannot be bought"),
        "429": {
          ...problem("allowance_exhausted: today's free allowance is spent, and this endpoint cannot be bought; retry after the UTC day ends"),
          headers: { "Retry-After": { description: "Seconds until the allowance resets (end of the UTC day)", schema: { type: "integer" } } },
        },
      } : {
      "402": {
        ...problem("Payment required: pay with x402 (PAYMENT-REQUIRED header), use a free key, or buy credit"),
        headers: { "PAYMENT-REQUIRED": { description: "Base64 of the x402 v2 PaymentRequired", schema: { type: "string" } } },
      },
      }),
      "404": problem("No such endpoint, or the upstream has no such record"),
      "502": problem("The upstream failed, timed out or answered something unreadable; not charged"),
      "503": problem("A local dataset is not loaded yet (`dataset_not_loaded`, with Retry-After), the server lacks a credential the upstream needs (`upstream_credentials_missing`), or the upstream refuses more requests for now (`upstream_busy`); not charged"),
    },
  };
}

export function buildOpenApi(registry: Registry, baseUrl: string, offers: Offers = () => []): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const e of registry.endpoints.values()) paths[e.path] = { get: operation(e, e.freeOnly ? [] : offers(e)) };
  return {
    openapi: "3.1.0",
    info: {
      title: "Public-data API for AI agents",
      version: VERSION,
      description: "Clean JSON from public sources, priced per call (USD, paid in USDC with x402 v2 or from card credit), with a free daily allowance per key. Every endpoint is also an MCP tool at /mcp.",
    },
    servers: [{ url: baseUrl }],
    tags: [...registry.groups.values()].map((g) => ({ name: g.name, description: `${g.title}. ${g.description}` })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-API-Key" } },
      schemas: {
        Problem: {
          type: "object",
          required: ["type", "title", "status", "detail", "code"],
          properties: {
            type: { type: "string" }, title: { type: "string" }, status: { type: "integer" }, detail: { type: "string" },
            code: { type: "string", description: "Stable machine-readable error code" },
            param: { type: "string", description: "The offending query parameter" },
            instance: { type: "string" },
          },
        },
        Envelope: {
          type: "object",
          required: ["data", "meta"],
          properties: {
            data: { description: "The endpoint's answer" },
            meta: {
              type: "object",
              properties: {
                endpoint: { type: "string" },
                sources: { type: "array", items: { type: "object", properties: { source: { type: "string" }, publisher: { type: "string" }, url: { type: "string" }, fetched_at: { type: "string", format: "date-time" }, cached: { type: "boolean" } } } },
                warnings: { type: "array", description: "Parts of the answer an auxiliary look-up could not read (they are null in data)", items: { type: "object", properties: { part: { type: "string" }, source: { type: "string" }, detail: { type: "string" } } } },
                attribution: { type: "string" }, disclaimers: { type: "array", items: { type: "string" } },
                price_usd: { type: "number" }, paid_by: { type: "string" },
              },
            },
          },
        },
      },
    },
    security: [{}, { apiKey: [] }],
  };
}
