// The MCP tools: search_apis, call_api, and every endpoint as its own tool <group>__<operation>.
// Endpoint calls go through answerCall, as HTTP calls do, so validation, allowance, payment, cache and ledger
// are the same; only the channel ("mcp") and the way errors are returned differ.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { answerCall } from "../testmode/answer-call.ts";
import { Problem, badParam, toProblem } from "../basics/problem.ts";
import { parseParams, type ParamSpec } from "../endpoints/params.ts";
import { createSearchIndex } from "../search/index.ts";
import { endpointCard, inputSchema } from "../search/card.ts";
import { jsonResult, problemResult, successResult } from "./results.ts";
import type { Engine } from "../engine.ts";
import type { Endpoint } from "../endpoints/model.ts";

/** Who is calling: from the MCP HTTP request and the tools/call request's _meta. */
export interface Caller {
  clientId: string;
  apiKey?: string;
  /** _meta["x402/payment"]: an x402 PaymentPayload. */
  payment?: unknown;
  /** _meta.idempotencyKey, as sent. */
  idempotencyKey?: unknown;
  /** _meta.testExample (test keys: which example answers). */
  testExample?: unknown;
}

export interface Toolbox {
  /** search_apis and call_api, then the endpoints of the groups asked for. */
  list(groups: string[]): Tool[];
  call(name: string, args: Record<string, unknown>, caller: Caller): Promise<CallToolResult>;
  /** Why there is no tool of this name, saying how to find one; undefined when there is. */
  unknownTool(name: string): string | undefined;
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export function createToolbox(engine: Engine): Toolbox {
  const { registry } = engine;
  const index = createSearchIndex(registry.endpoints.values());
  const groupNames = [...registry.groups.keys()];

  const searchParams: Record<string, ParamSpec> = {
    query: { type: "string", required: true, maxLength: 500, description: "What you need, in your own words (e.g. \"UK base rate\", \"is this IMEI valid\", \"sanctions check on a company\")." },
    group: { type: "string", enum: groupNames, description: "Only search this group." },
    limit: { type: "integer", minimum: 1, maximum: 20, default: 5, description: "How many endpoints to return." },
  };

  const searchTool: Tool = {
    name: "search_apis",
    title: "Find a public-data endpoint",
    description:
      "Find the endpoint for a task described in your own words. Returns the best matches, each with its tool name, " +
      "price, free allowance and parameters (types, defaults, bounds, which are required): enough to run it with " +
      `call_api straight away. Groups: ${[...registry.groups.values()].map((g) => `${g.name} (${g.title})`).join("; ")}.`,
    inputSchema: inputSchema(searchParams),
    annotations: { ...READ_ONLY, openWorldHint: false },
  };

  const callTool: Tool = {
    name: "call_api",
    title: "Run a public-data endpoint",
    description:
      "Run an endpoint found with search_apis: tool is its name (<group>__<operation>), arguments its parameters. " +
      "Returns {data, meta} (meta says where the data came from and who paid). Errors are RFC 9457 problem documents. " +
      "Past the free allowance the result is an x402 PaymentRequired: pay one of its accepts and repeat the call with " +
      "the PaymentPayload in _meta[\"x402/payment\"], or connect with a free key (X-API-Key header) for a larger allowance. " +
      "To retry safely, send a fresh _meta.idempotencyKey (e.g. a UUID) with each call and the same one with its retries: " +
      "a retry gets the first answer and is charged once.",
    inputSchema: {
      type: "object",
      properties: {
        tool: { type: "string", description: "The endpoint's tool name, <group>__<operation>, e.g. bank-of-england__bank-rate." },
        arguments: { type: "object", description: "The endpoint's parameters, as search_apis lists them.", additionalProperties: true },
      },
      required: ["tool"],
    },
    annotations: READ_ONLY,
  };

  const endpointTools = new Map([...registry.endpoints.values()].map((e) => [e.toolName, endpointTool(e)]));

  function searchApis(args: Record<string, unknown>): CallToolResult {
    const instance = "mcp://tool/search_apis";
    let values;
    try {
      values = parseParams(searchParams, args).values as { query: string; group?: string; limit: number };
    } catch (e) {
      return problemResult(toProblem(e), instance);
    }
    const hits = index.search(values.query, { group: values.group, limit: values.limit });
    return jsonResult({
      query: values.query,
      results: hits.map((h) => ({ score: h.score, ...endpointCard(h.endpoint) })),
      how_to_call: hits.length
        ? "call_api with {\"tool\": <tool>, \"arguments\": {<parameter>: <value>, ...}}"
        : `Nothing matched; try other words, or one of the groups: ${groupNames.join(", ")}.`,
    });
  }

  async function callEndpoint(tool: string, args: Record<string, unknown>, caller: Caller): Promise<CallToolResult> {
    const instance = `mcp://tool/${tool}`;
    try {
      const [group, operation] = tool.split("__");
      if (!operation) throw new Problem({ status: 404, code: "unknown_endpoint", detail: `There is no tool ${tool}. Tool names are <group>__<operation>; find one with search_apis.` });
      const result = await answerCall(engine, {
        group,
        operation,
        query: Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined)),
        channel: "mcp",
        apiKey: caller.apiKey,
        clientId: caller.clientId,
        paymentPayload: caller.payment,
        idempotencyKey: caller.idempotencyKey,
        testExample: caller.testExample,
        resourceUrl: instance,
      });
      return successResult(result);
    } catch (e) {
      if (!(e instanceof Problem)) engine.log.error({ err: e, tool }, "MCP tool call failed");
      return problemResult(toProblem(e), instance);
    }
  }

  return {
    unknownTool(name) {
      if (name === "search_apis" || name === "call_api" || endpointTools.has(name)) return undefined;
      const [group, operation] = name.split("__");
      const g = registry.groups.get(group);
      const why = operation && g
        ? `The ${group} group has no endpoint ${operation}. Its endpoints: ${g.endpoints.map((e) => e.operation).join(", ")}.`
        : "Tools are search_apis, call_api and one per endpoint named <group>__<operation>; search_apis finds them.";
      return `Unknown tool: ${name}. ${why}`;
    },
    list(groups) {
      const chosen = new Set(groups);
      return [searchTool, callTool, ...[...endpointTools.values()].filter((t) => chosen.has(registry.byTool(t.name)!.group))];
    },
    async call(name, args, caller) {
      if (name === "search_apis") return searchApis(args);
      if (name !== "call_api") return callEndpoint(name, args, caller);
      const { tool, arguments: toolArgs = {} } = args;
      if (typeof tool !== "string" || !tool) return problemResult(badParam("tool", "tool is required: the endpoint's tool name, <group>__<operation> (search_apis finds it).", "missing_parameter"), "mcp://tool/call_api");
      if (typeof toolArgs !== "object" || toolArgs === null || Array.isArray(toolArgs)) {
        return problemResult(badParam("arguments", "arguments must be an object of the endpoint's parameters, e.g. {\"from\": \"2025-01-01\"}."), "mcp://tool/call_api");
      }
      return callEndpoint(tool, toolArgs as Record<string, unknown>, caller);
    },
  };
}

/** What a successful call's structuredContent holds: the typed data and the meta every answer carries. */
function outputSchema(data: Record<string, unknown>): Tool["outputSchema"] {
  const { $comment: _c, ...schema } = data;
  return {
    type: "object",
    properties: { data: schema, meta: { type: "object", description: "Where the data came from, the price and how the call was paid." } },
    required: ["data", "meta"],
  };
}

function endpointTool(e: Endpoint): Tool {
  const card = endpointCard(e);
  const free = card.free_calls_per_day;
  return {
    name: e.toolName,
    title: e.summary,
    description:
      `${e.description}${e.disclaimers.length ? ` ${e.disclaimers.join(" ")}` : ""}${card.parameter_rule ? ` ${card.parameter_rule}` : ""} ` +
      (e.freeOnly
        ? `Free allowance only: ${free.mcp_without_key} calls a day (${free.with_key} with a free key); the upstream's terms do not allow selling more.`
        : `Price: $${e.price} a call after ${free.mcp_without_key} free calls a day (${free.with_key} with a free key).`),
    inputSchema: inputSchema(e.params, e.freeForm),
    ...(e.output ? { outputSchema: outputSchema(e.output) } : {}),
    annotations: { title: e.summary, ...READ_ONLY },
  };
}
