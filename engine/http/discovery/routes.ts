// The discovery documents, all generated from the endpoint files, each built on its first request and kept
// (compressed once per encoding, as the other fixed answers).
import type { Express, Request, Response } from "express";
import { createToolbox } from "../../mcp/tools.ts";
import { fixedBody } from "../fixed-body.ts";
import { offersOf } from "./offers.ts";
import { x402Resources } from "./x402-resources.ts";
import { llmsFullTxt, llmsTxt } from "./llms.ts";
import { serverCard } from "./server-card.ts";
import { robotsTxt } from "./robots.ts";
import type { Engine } from "../../engine.ts";

type Handler = (req: Request, res: Response) => Promise<void>;

const CACHE = "public, max-age=3600";

/** A fixed answer made on its first request; `version` (when given) says when it must be made again. */
function lazy(type: string, build: () => string, version: () => string = () => ""): Handler {
  let made: { version: string; handler: Handler } | undefined;
  return (req, res) => {
    const now = version();
    if (made?.version !== now) made = { version: now, handler: fixedBody(type, build) };
    res.set("cache-control", CACHE);
    return made.handler(req, res);
  };
}

/** A non-negative integer query parameter, or undefined. */
const count = (v: unknown) => (typeof v === "string" && /^\d{1,6}$/.test(v) ? Number(v) : undefined);

export function mountDiscovery(app: Express, engine: Engine): void {
  const { registry } = engine;
  const { baseUrl, rootDir } = engine.config;
  const offers = offersOf(engine);
  const paid = [...registry.endpoints.values()].find((e) => !e.freeOnly);
  // The networks offered change with the facilitator's answers (engine/access/x402.ts): the lists follow them.
  const offered = () => JSON.stringify(paid ? offers(paid) : []);
  const networks = () => [...new Set(paid ? offers(paid).map((o) => o.network) : [])];
  const text = "text/plain; charset=utf-8";

  app.get("/llms.txt", lazy(text, () => llmsTxt(registry, baseUrl)));
  app.get("/llms-full.txt", lazy(text, () => llmsFullTxt(registry, baseUrl)));
  app.get("/robots.txt", lazy(text, () => robotsTxt(baseUrl)));
  const resources = lazy("application/json", () => JSON.stringify(x402Resources(registry, baseUrl, rootDir, offers)), offered);
  app.get("/.well-known/x402", (req, res) => {
    const offset = count(req.query.offset);
    const limit = count(req.query.limit);
    if (offset === undefined && limit === undefined) return resources(req, res);
    res.type("application/json").set("cache-control", CACHE).send(JSON.stringify(x402Resources(registry, baseUrl, rootDir, offers, { offset, limit })));
  });
  // The draft also reserves <streamable-http-url>/server-card; its media type is served to a client that asks for it.
  let tools: ReturnType<ReturnType<typeof createToolbox>["list"]> | undefined;
  const card = () => JSON.stringify(serverCard(baseUrl, (tools ??= createToolbox(engine).list([])), { networks: networks() }));
  const cardAs = { json: lazy("application/json", card, offered), card: lazy("application/mcp-server-card+json", card, offered) };
  app.get(["/.well-known/mcp/server-card.json", "/mcp/server-card"], (req, res) =>
    (req.accepts(["application/json", "application/mcp-server-card+json"]) === "application/mcp-server-card+json" ? cardAs.card : cardAs.json)(req, res));
}
