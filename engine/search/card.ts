// What a search hit tells an agent about an endpoint: enough to call it without another look-up.
import { paramDescription, paramSchema } from "../endpoints/param-schema.ts";
import { describeParamSets } from "../endpoints/param-sets.ts";
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
  /** Parameters that go together: a call gives exactly one of these sets, each set whole (lat with lng). */
  give_one_of?: string[][];
  /** As give_one_of, but more than one set may be given. */
  give_at_least_one_of?: string[][];
  /** The give_one_of or give_at_least_one_of rule in words, as a call that breaks it is told. */
  parameter_rule?: string;
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
    ...parameterSets(e),
    ...(example ? { example_arguments: exampleValues(e.params, example.params) } : {}),
  };
}

/** The "give one of" sets of an endpoint whose parameters are each optional but not all at once. */
function parameterSets(e: Endpoint): Pick<EndpointCard, "give_one_of" | "give_at_least_one_of" | "parameter_rule"> {
  const rule = e.paramSets;
  if (!rule?.one_of && !rule?.any_of) return {};
  return {
    ...(rule.one_of ? { give_one_of: rule.one_of } : {}),
    ...(rule.any_of ? { give_at_least_one_of: rule.any_of } : {}),
    parameter_rule: describeParamSets(rule),
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
