// The MCP server at /mcp: Streamable HTTP, stateless (a fresh server and transport per POST, which the SDK
// requires without sessions), answering JSON rather than SSE. `/mcp?groups=a,b` also lists those groups'
// endpoints as direct tools; any endpoint tool can be called by name whatever was listed.
import express, { type Express, type Request, type Response } from "express";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { allowedHosts, hostCheck } from "./host-check.ts";
import { createToolbox, type Toolbox } from "./tools.ts";
import { PAYMENT_META } from "./results.ts";
import type { Engine } from "../engine.ts";

const SERVER_INFO = { name: "public-data-api", title: "Public-data API for AI agents", version: "1.1.0" };
const INSTRUCTIONS =
  "Public data from official sources as clean JSON, each answer saying where it came from. " +
  "Find an endpoint with search_apis (describe what you need), then run it with call_api. Calls are free up to a " +
  "daily allowance per client (larger with a free key sent as X-API-Key); past it, a call answers with x402 payment requirements.";

export function mountMcp(app: Express, engine: Engine): void {
  const toolbox = createToolbox(engine);
  const groupNames = [...engine.registry.groups.keys()];

  app.use("/mcp", hostCheck(allowedHosts(engine.config.baseUrl, engine.env.MCP_ALLOWED_HOSTS)));
  const readJson = express.json({ limit: "1mb" });
  // A body that is not JSON is a JSON-RPC parse error (-32700), not an HTTP problem document.
  const parseJson = (req: Request, res: Response, next: (err?: unknown) => void) =>
    readJson(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type !== "entity.parse.failed") return next(err);
      res.status(400).json({ jsonrpc: "2.0", error: { code: ErrorCode.ParseError, message: `Parse error: the body is not valid JSON (${(err as Error).message}).` }, id: null });
    });
  app.post("/mcp", parseJson, async (req: Request, res: Response) => {
    const groups = requestedGroups(req.query.groups, groupNames);
    if (typeof groups === "string") return void res.status(400).json({ jsonrpc: "2.0", error: { code: -32602, message: groups }, id: null });
    // tools/call params the SDK would refuse with a dump of its schema errors are refused here in words.
    const badCall = badToolCalls(req.body);
    if (badCall) return void res.status(200).json(badCall);

    const server = buildServer(toolbox, groups, req.ip ?? "unknown");
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      engine.log.error({ err }, "MCP request failed");
      if (!res.headersSent) res.status(500).json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null });
    }
  });
  app.all("/mcp", (_req, res) => {
    res.status(405).set("allow", "POST").json({ jsonrpc: "2.0", error: { code: -32000, message: "This MCP server is stateless: send JSON-RPC with POST." }, id: null });
  });
}

/**
 * JSON-RPC errors (-32602) for tools/call requests whose params are not {name: string, arguments?: object,
 * _meta?: object}, or undefined when every request is well formed. A batch answers each request; the SDK answers
 * the rest.
 */
function badToolCalls(body: unknown): unknown {
  const messages = Array.isArray(body) ? body : [body];
  const errors = messages.flatMap((m) => {
    if (!m || typeof m !== "object" || (m as { method?: unknown }).method !== "tools/call") return [];
    const why = toolCallProblem((m as { params?: unknown }).params);
    return why ? [{ jsonrpc: "2.0", id: (m as { id?: unknown }).id ?? null, error: { code: ErrorCode.InvalidParams, message: `Invalid tools/call params: ${why}` } }] : [];
  });
  if (!errors.length) return undefined;
  return Array.isArray(body) ? errors : errors[0];
}

function toolCallProblem(params: unknown): string | undefined {
  const kind = (v: unknown) => (v === undefined ? "nothing" : v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`);
  if (!params || typeof params !== "object" || Array.isArray(params)) return `params must be an object {name, arguments} (got ${kind(params)}).`;
  const { name, arguments: args, _meta: meta } = params as Record<string, unknown>;
  if (typeof name !== "string" || !name) return `name must be the tool's name as a string, e.g. "search_apis" (got ${name === "" ? "an empty string" : kind(name)}).`;
  if (args !== undefined && (!args || typeof args !== "object" || Array.isArray(args))) return `arguments must be an object of the tool's parameters, e.g. {"query": "UK base rate"} (got ${kind(args)}).`;
  if (meta !== undefined && (!meta || typeof meta !== "object" || Array.isArray(meta))) return `_meta must be an object (got ${kind(meta)}).`;
  return undefined;
}

/** ?groups=a,b (or all) -> group names; a string is the reason it was refused. */
function requestedGroups(raw: unknown, known: string[]): string[] | string {
  if (raw === undefined) return [];
  const names = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(",")).map((s) => s.trim()).filter(Boolean);
  if (names.includes("all")) return known;
  const unknown = names.filter((n) => !known.includes(n));
  return unknown.length ? `Unknown group${unknown.length > 1 ? "s" : ""} in ?groups=: ${unknown.join(", ")}. Groups: ${known.join(", ")} (or all).` : names;
}

// The low-level Server rather than McpServer: tool input schemas come straight from the endpoint files as
// JSON Schema, which McpServer would want as zod.
function buildServer(toolbox: Toolbox, groups: string[], clientId: string): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolbox.list(groups) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const unknown = toolbox.unknownTool(request.params.name);
    // Not McpError, whose message would begin "MCP error -32602:": the client adds that itself.
    if (unknown) throw Object.assign(new Error(unknown), { code: ErrorCode.InvalidParams });
    const apiKey = extra.requestInfo?.headers["x-api-key"];
    return toolbox.call(request.params.name, request.params.arguments ?? {}, {
      clientId,
      apiKey: (Array.isArray(apiKey) ? apiKey[0] : apiKey) || undefined,
      payment: request.params._meta?.[PAYMENT_META],
    });
  });
  return server;
}
