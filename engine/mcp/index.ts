// The MCP server at /mcp: Streamable HTTP, stateless (a fresh server and transport per POST, which the SDK
// requires without sessions), answering JSON rather than SSE; every request of a batch gets its answer
// (messages.ts says what is refused, and why). `/mcp?groups=a,b` also lists those groups' endpoints as direct
// tools; any endpoint tool can be called by name whatever was listed.
import express, { type Express, type Request, type Response } from "express";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { allowedHosts, hostCheck } from "./host-check.ts";
import { batchRefusal, requestId, screen } from "./messages.ts";
import { createToolbox, type Toolbox } from "./tools.ts";
import { IDEMPOTENCY_KEY_META, TEST_EXAMPLE_META, PAYMENT_META } from "./results.ts";
import { SERVICE } from "../basics/service.ts";
import type { Engine } from "../engine.ts";

const SERVER_INFO = { name: SERVICE.id, title: SERVICE.title, version: SERVICE.version };
const INSTRUCTIONS =
  "Public data from official sources as clean JSON, each answer saying where it came from. " +
  "Find an endpoint with search_apis (describe what you need), then run it with call_api. Calls are free up to a " +
  "daily allowance per client (larger with a free key sent as X-API-Key); past it, a call answers with x402 payment requirements.";

export function mountMcp(app: Express, engine: Engine): void {
  // The tools (and search_apis's index) are built by the first MCP request, not at start-up.
  let toolbox: Toolbox | undefined;
  const groupNames = [...engine.registry.groups.keys()];

  app.use("/mcp", hostCheck(allowedHosts(engine.config.baseUrl, engine.env.MCP_ALLOWED_HOSTS)));
  const readJson = express.json({ limit: "1mb", strict: false });
  // A body that is not JSON is a JSON-RPC parse error (-32700), not an HTTP problem document.
  const parseJson = (req: Request, res: Response, next: (err?: unknown) => void) =>
    readJson(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type !== "entity.parse.failed") return next(err);
      res.status(400).json({ jsonrpc: "2.0", error: { code: ErrorCode.ParseError, message: `Parse error: the body is not valid JSON (${(err as Error).message}).` }, id: null });
    });
  app.post("/mcp", parseJson, async (req: Request, res: Response) => {
    const groups = requestedGroups(req.query.groups, groupNames);
    if (typeof groups === "string") return void res.status(400).json({ jsonrpc: "2.0", error: { code: -32602, message: groups }, id: null });
    const batch = Array.isArray(req.body);
    const whole = batch ? batchRefusal(req.body, req.get("mcp-protocol-version")) : undefined;
    if (whole) return void res.status(400).json(whole);

    // Each message is checked here (messages.ts); what passes goes to the SDK, which also makes the HTTP-level
    // checks (Accept, Content-Type, MCP-Protocol-Version) even when nothing passes.
    const messages: unknown[] = batch ? req.body : [req.body];
    const { forward, refusals } = screen(messages, batch);
    try {
      const answered = await answerWithSdk(buildServer(toolbox ??= createToolbox(engine), groups, req.ip ?? "unknown"), req, batch || !forward.length ? forward : forward[0]);
      if (answered.status !== 200 && answered.status !== 202) return await sendAsIs(res, answered);
      const text = await answered.text();
      const byId = new Map<unknown, unknown>((text ? [JSON.parse(text)].flat() : []).map((a: { id?: unknown }) => [a.id, a]));
      // In the order asked: a refusal, or the SDK's answer to the request; notifications and responses get none.
      const answers = messages.flatMap((m, i) => refusals[i] ?? byId.get(requestId(m)) ?? []);
      if (!answers.length) return void res.status(202).end();
      if (batch) return void res.status(200).json(answers);
      res.status(refusals[0]?.error.code === ErrorCode.InvalidRequest ? 400 : 200).json(answers[0]);
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
 * The SDK's answer to these messages (already parsed), through the web-standard transport so that it can be
 * merged with the refusals: stateless (a fresh server and transport per POST, which the SDK requires without
 * sessions), JSON rather than SSE.
 */
async function answerWithSdk(server: Server, req: Request, body: unknown): Promise<globalThis.Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  try {
    await server.connect(transport);
    return await transport.handleRequest(new globalThis.Request(new URL(req.originalUrl, "http://localhost"), { method: "POST", headers }), { parsedBody: body });
  } finally {
    void transport.close();
    void server.close();
  }
}

async function sendAsIs(res: Response, answered: globalThis.Response): Promise<void> {
  res.status(answered.status);
  answered.headers.forEach((value, name) => res.setHeader(name, value));
  res.send(Buffer.from(await answered.arrayBuffer()));
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
      idempotencyKey: request.params._meta?.[IDEMPOTENCY_KEY_META],
      testExample: request.params._meta?.[TEST_EXAMPLE_META],
    });
  });
  return server;
}
