// The x402 v2 Bazaar discovery extension of an endpoint's 402 (specs/extensions/bazaar.md of the x402 repository),
// built with @x402/extensions: how to call it (the query parameters with an example each, and their JSON Schema, or
// over MCP the tool and its input schema) and what it answers (an example answer and its schema). Built on an
// endpoint's first 402 and kept: start-up builds none of them.
import { BAZAAR, bazaarResourceServerExtension, declareDiscoveryExtension, sanitizeTags } from "@x402/extensions/bazaar";
import { exampleCall } from "../endpoints/param-examples.ts";
import { exampleData } from "../endpoints/example-answer.ts";
import { inputSchema } from "../search/card.ts";
import { SERVICE } from "../basics/service.ts";
import type { Endpoint } from "../endpoints/model.ts";

export { BAZAAR };
export type Channel = "http" | "mcp";

/** Longer resource descriptions are known to be refused at settlement (issue #27). */
export const MAX_DESCRIPTION = 450;
const SCHEMA_LEVELS = 1;

/** The resource's service metadata the Bazaar catalogues (serviceName and tags, as @x402/extensions checks them). */
export function serviceMetadata(e: Endpoint): { description: string; serviceName: string; tags?: string[] } {
  const description = e.summary.length > MAX_DESCRIPTION ? `${e.summary.slice(0, MAX_DESCRIPTION - 1)}…` : e.summary;
  const tags = sanitizeTags([e.group, ...e.keywords]);
  return { description, serviceName: SERVICE.title, ...(tags ? { tags } : {}) };
}

/**
 * A schema cut to its first levels: deeper values keep only their type. The whole 402 travels in a header, and an x402
 * client echoes the extension in its PAYMENT-SIGNATURE, which must fit in a server's request headers (16 KB in Node),
 * so it must stay small; the full answer schema is in the OpenAPI document and the MCP tool's outputSchema.
 */
function shallow(schema: Record<string, unknown>, levels: number): Record<string, unknown> {
  const { $comment: _c, properties, items, ...rest } = schema as { $comment?: string; properties?: Record<string, Record<string, unknown>>; items?: Record<string, unknown>; [k: string]: unknown };
  if (levels === 0) return rest.type !== undefined ? { type: rest.type } : {};
  return {
    ...rest,
    ...(properties ? { properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, shallow(v, levels - 1)])) } : {}),
    ...(items ? { items: shallow(items, levels - 1) } : {}),
  };
}

/** The answer's JSON Schema: the {data, meta} envelope, data as the endpoint's answer schema (its fields' types). */
function answerSchema(e: Endpoint): Record<string, unknown> {
  return { properties: { data: shallow(e.output ?? {}, SCHEMA_LEVELS), meta: { type: "object" } }, required: ["data", "meta"] };
}

function exampleAnswer(e: Endpoint): Record<string, unknown> {
  return { data: exampleData(e) ?? null, meta: { endpoint: e.key, sources: [], price_usd: e.price, paid_by: "x402" } };
}

/**
 * A date parameter's `format: date` as the pattern it implies: facilitators validate the schema with Ajv without its
 * formats, which warns about every unknown format it meets.
 */
function withoutDateFormat(p: Record<string, unknown>): Record<string, unknown> {
  if (p.format !== "date") return p;
  const { format: _f, ...rest } = p;
  return { pattern: "^\\d{4}-\\d{2}-\\d{2}$", ...rest };
}

function build(e: Endpoint, channel: Channel): Record<string, unknown> {
  const output = { example: exampleAnswer(e), ...(e.output ? { schema: answerSchema(e) } : {}) };
  const call = exampleCall(e);
  if (channel === "mcp") {
    const tool = inputSchema(e.params, e.freeForm);
    return declareDiscoveryExtension({ toolName: e.toolName, description: serviceMetadata(e).description, transport: "streamable-http", inputSchema: tool, example: call, output })[BAZAAR.key] as never;
  }
  const { properties, required } = inputSchema(e.params, e.freeForm);
  const query = Object.fromEntries(Object.entries(properties as Record<string, Record<string, unknown>>).map(([name, p]) => [name, withoutDateFormat(p)]));
  const declared = declareDiscoveryExtension({ input: call, inputSchema: { properties: query, ...(required ? { required } : {}) }, output })[BAZAAR.key];
  // The package's own server extension adds the method (GET) to info and schema, as its HTTP middleware does.
  return bazaarResourceServerExtension.enrichDeclaration!(declared, { method: "GET", adapter: { getPath: () => e.path }, routePattern: e.path }) as never;
}

const built = new WeakMap<Endpoint, Partial<Record<Channel, Record<string, unknown>>>>();

/** The bazaar extension of an endpoint's 402 on a channel: a fresh copy (x402 clients add to extensions in place). */
export function bazaarExtension(e: Endpoint, channel: Channel): Record<string, unknown> {
  let mine = built.get(e);
  if (!mine) built.set(e, (mine = {}));
  mine[channel] ??= build(e, channel);
  return structuredClone(mine[channel]);
}
