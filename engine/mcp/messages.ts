// The JSON-RPC messages of a POST to /mcp, checked before the SDK sees them so that each gets its own answer in
// words. The SDK (1.32.2) refuses a whole POST with -32700 when one message in it is not a JSON-RPC message, and
// answers params that do not fit a method with -32603 and a dump of its schema errors. Here:
//   -32700 Parse error: only a body that is not JSON (index.ts);
//   -32600 Invalid Request: not a JSON-RPC 2.0 request, notification or response (no method, `jsonrpc` not "2.0",
//          an id that is not a string or an integer: MCP ids "MUST NOT be null", basic/index); an id already used
//          in the same batch (ids "MUST NOT have been previously used"); `initialize` in a batch (2025-03-26
//          lifecycle: it "MUST NOT be part of a JSON-RPC batch"); and, whole, a batch where batches are not allowed;
//   -32602 Invalid params: params that are not an object, or not what the method takes.
// Batches: MCP 2025-03-26 (basic/index "Batching") says implementations "MUST support receiving JSON-RPC
// batches"; 2025-06-18 removed them (changelog: "Remove support for JSON-RPC batching"), its transport saying the
// POST body "MUST be a single JSON-RPC request, notification, or response". The version is the
// MCP-Protocol-Version header, 2025-03-26 without one (basic/transports "Protocol Version Header"). So a batch
// is answered item by item (JSON-RPC 2.0 "Batch": one response per request, none for notifications) unless the
// header names 2025-06-18 or later; then the whole POST is refused with one -32600 and nothing in it runs.
import {
  CallToolRequestSchema, DEFAULT_NEGOTIATED_PROTOCOL_VERSION, ErrorCode, InitializeRequestSchema, JSONRPCNotificationSchema,
  JSONRPCRequestSchema, JSONRPCResponseSchema, ListToolsRequestSchema, PingRequestSchema, SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";

type Id = string | number;
export interface ErrorAnswer {
  jsonrpc: "2.0";
  id?: Id | null;
  error: { code: number; message: string };
}
type Issue = { code: string; path: PropertyKey[]; message: string; expected?: string; errors?: Issue[][]; keys?: string[] };
type Schema = { safeParse(value: unknown): { success: boolean; error?: { issues: Issue[] } } };

const FIRST_WITHOUT_BATCHES = "2025-06-18";
/** The request schemas of the methods this server answers: their params are checked here, in words. */
const METHODS: Record<string, Schema> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
};

/**
 * An answer to one message carries its id, or none when it has no readable one (MCP 2025-11-25 error responses:
 * `id?: RequestId`; no version allows null, and the SDK's client throws on a batch answer holding one). A refusal of
 * the whole POST has id null, as the SDK's own refusals (406, 415, an unsupported protocol version) do.
 */
export const errorAnswer = (id: Id | null | undefined, code: number, message: string): ErrorAnswer => ({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code, message } });

/** The one answer refusing a whole batch, or undefined when its messages are to be answered one by one. */
export function batchRefusal(batch: unknown[], protocolVersion: string | undefined): ErrorAnswer | undefined {
  const version = protocolVersion ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  // An unsupported version is the SDK's to refuse (400), batch or not.
  if (SUPPORTED_PROTOCOL_VERSIONS.includes(version) && version >= FIRST_WITHOUT_BATCHES) {
    return errorAnswer(null, ErrorCode.InvalidRequest, `Invalid Request: MCP ${version} has no JSON-RPC batches (removed in ${FIRST_WITHOUT_BATCHES}); nothing in this one was run. Send each message in a POST of its own.`);
  }
  if (!batch.length) return errorAnswer(null, ErrorCode.InvalidRequest, "Invalid Request: the batch is empty; send at least one message.");
  if (batch.length > MAX_BATCH_SIZE) return errorAnswer(null, ErrorCode.InvalidRequest, `Invalid Request: a batch holds at most ${MAX_BATCH_SIZE} messages (got ${batch.length}); nothing in this one was run.`);
  return undefined;
}

/**
 * Which messages go on to the SDK, and the answer of each one that does not (undefined when it goes on, or when
 * it is a notification, which is never answered). A cancellation is not passed on: each POST has a server of its
 * own, so there is nothing running it could stop but a request of the same POST, whose answer would then never
 * come; receivers "MAY ignore cancellation notifications" (basic/utilities/cancellation).
 */
export function screen(messages: unknown[], inBatch: boolean): { forward: unknown[]; refusals: (ErrorAnswer | undefined)[] } {
  const forward: unknown[] = [];
  const ids = new Set<Id>();
  const refusals = messages.map((m) => {
    const why = invalidRequest(m, inBatch, ids);
    if (why) return errorAnswer(isObject(m) && isId(m.id) ? m.id : undefined, ErrorCode.InvalidRequest, `Invalid Request: ${why}`);
    const { id, method, params } = m as { id?: Id; method?: string; params?: unknown };
    const wrong = method === undefined ? undefined : invalidParams(method, params);
    if (method !== undefined && id !== undefined) ids.add(id);
    if (wrong) return id === undefined ? undefined : errorAnswer(id, ErrorCode.InvalidParams, `Invalid ${method} params: ${wrong}`);
    if (method !== "notifications/cancelled") forward.push(m);
    return undefined;
  });
  return { forward, refusals };
}

/** The id of a request (a message with a method and a valid id): what its answer is matched by. */
export function requestId(m: unknown): Id | undefined {
  const { id, method } = (m ?? {}) as { id?: unknown; method?: unknown };
  return method !== undefined && isId(id) ? id : undefined;
}

const isId = (v: unknown): v is Id => typeof v === "string" || Number.isInteger(v);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const kind = (v: unknown) => (v === undefined ? "nothing" : v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`);
const show = (v: unknown) => (typeof v === "string" ? JSON.stringify(v.slice(0, 40)) : kind(v));

function invalidRequest(m: unknown, inBatch: boolean, ids: Set<Id>): string | undefined {
  if (!isObject(m)) return `a message must be a JSON object (got ${kind(m)}).`;
  if (m.jsonrpc !== "2.0") return `jsonrpc must be "2.0" (got ${show(m.jsonrpc)}).`;
  if (m.method === undefined) {
    if ("result" in m || "error" in m) return JSONRPCResponseSchema.safeParse(m).success ? undefined : "a response needs the id of the request it answers and either a result object or an error {code, message}.";
    return 'method is missing: a request or notification names its method, e.g. "tools/list".';
  }
  if (typeof m.method !== "string") return `method must be a string (got ${kind(m.method)}).`;
  if ("id" in m && !isId(m.id)) return `id must be a string or an integer (got ${m.id === null ? "null, which MCP does not allow" : kind(m.id)}); leave it out for a notification.`;
  if (inBatch && m.method === "initialize") return "initialize must be sent on its own, not in a batch.";
  if (isId(m.id) && ids.has(m.id)) return `id ${JSON.stringify(m.id)} is already used by another request of this batch; give each request its own.`;
  // The envelope only: params are invalidParams' (-32602).
  const { params: _params, ...envelope } = m;
  const issues = ("id" in m ? JSONRPCRequestSchema : JSONRPCNotificationSchema).safeParse(envelope).error?.issues;
  return issues ? `${inWords(issues as Issue[], m)}.` : undefined;
}

function invalidParams(method: string, params: unknown): string | undefined {
  if (params !== undefined && !isObject(params)) return `params must be an object (got ${kind(params)}).`;
  if (method === "tools/call") {
    const why = toolCallProblem(params);
    if (why) return why;
  }
  const issues = METHODS[method]?.safeParse({ method, params }).error?.issues;
  return issues ? `${inWords(issues, { params })}.` : undefined;
}

/** tools/call params as the SDK wants them, said with an example (the generic words below would not show one). */
function toolCallProblem(params: unknown): string | undefined {
  if (!isObject(params)) return `params must be an object {name, arguments} (got ${kind(params)}).`;
  const { name, arguments: args } = params;
  if (typeof name !== "string" || !name) return `name must be the tool's name as a string, e.g. "search_apis" (got ${name === "" ? "an empty string" : kind(name)}).`;
  if (args !== undefined && !isObject(args)) return `arguments must be an object of the tool's parameters, e.g. {"query": "UK base rate"} (got ${kind(args)}).`;
  return undefined;
}

/** Schema errors as a sentence: "params.protocolVersion must be a string (got a number); params.clientInfo.name is required". */
function inWords(issues: Issue[], value: unknown): string {
  return issues.map((issue) => {
    const at = issue.path.map(String).join(".");
    const got = issue.path.reduce<unknown>((v, key) => (isObject(v) ? v[key as string] : undefined), value);
    const expected = issue.code === "invalid_type" ? [issue.expected]
      : issue.code === "invalid_union" && issue.errors?.every((e) => e.length === 1 && e[0].code === "invalid_type") ? issue.errors.map((e) => e[0].expected)
      : undefined;
    if (expected && got === undefined) return `${at} is required`;
    if (issue.code === "unrecognized_keys") return `${at || "the message"} has members JSON-RPC does not define: ${issue.keys?.join(", ")}`;
    if (expected) return `${at} must be ${expected.map((t) => `${/^[aeiou]/.test(t ?? "") ? "an" : "a"} ${t}`).join(" or ")} (got ${kind(got)})`;
    return `${at ? `${at}: ` : ""}${issue.message}`;
  }).join("; ");
}
