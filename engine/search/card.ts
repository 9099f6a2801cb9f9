// What a search hit tells an agent about an endpoint: enough to call it without another look-up.
import { paramDescription, paramSchema } from "../endpoints/param-schema.ts";
import { exampleValues, type ParamSpec } from "../endpoints/params.ts";
import type { Endpoint } from "../endpoints/model.ts";

export interface EndpointCard {
  tool: string;
  path: string;
  group: string;
  group_title: string;
  summary: string;
  price_usd: number;
  /** Price 0: served within the free allowance only; it cannot be bought once the allowance is spent. */
  free_allowance_only?: true;
  /** Calls a day that cost nothing. A call is free only while every bucket it draws from has room. */
  free_calls_per_day: { mcp_without_key: number; with_key: number; buckets: string[] };
  /** JSON Schema of each parameter, with `required` and a description that says what is allowed. */
  parameters: Record<string, Record<string, unknown>>;
  required: string[];
  example_arguments?: Record<string, unknown>;
}

export function endpointCard(e: Endpoint): EndpointCard {
  const example = e.examples.find((x) => (x.status ?? 200) === 200 && Object.keys(x.params).length);
  return {
    tool: e.toolName,
    path: e.path,
    group: e.group,
    group_title: e.groupInfo.title,
    summary: e.summary,
    price_usd: e.price,
    ...(e.freeOnly ? { free_allowance_only: true as const } : {}),
    free_calls_per_day: {
      mcp_without_key: Math.min(...e.buckets.map((b) => b.anonymous)),
      with_key: Math.min(...e.buckets.map((b) => b.key)),
      buckets: e.buckets.map((b) => b.id),
    },
    parameters: parameterSchemas(e.params),
    required: requiredNames(e.params),
    ...(example ? { example_arguments: exampleValues(e.params, example.params) } : {}),
  };
}

/** Each parameter as JSON Schema, its description saying what is allowed. */
export function parameterSchemas(params: Record<string, ParamSpec>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(params).map(([name, spec]) => [name, { ...paramSchema(spec, name), description: paramDescription(spec) }]));
}

const requiredNames = (params: Record<string, ParamSpec>) => Object.entries(params).filter(([, spec]) => spec.required).map(([name]) => name);

/** The JSON Schema of an object of parameters (an MCP tool's input schema). */
export function inputSchema(params: Record<string, ParamSpec>, freeForm = false): { type: "object"; [k: string]: unknown } {
  const required = requiredNames(params);
  return { type: "object", properties: parameterSchemas(params), ...(required.length ? { required } : {}), additionalProperties: freeForm };
}
