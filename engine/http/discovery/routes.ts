// The discovery documents, all generated from the endpoint files, each built on its first request and kept.
import type { Express, Request, Response } from "express";
import { createToolbox } from "../../mcp/tools.ts";
import { offersOf } from "./offers.ts";
import { x402Resources } from "./x402-resources.ts";
import { llmsFullTxt, llmsTxt } from "./llms.ts";
import { serverCard } from "./server-card.ts";
import { robotsTxt } from "./robots.ts";
import type { Engine } from "../../engine.ts";

const CACHE = "public, max-age=3600";

function once<T>(build: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: build() }).v;
}

/** A non-negative integer query parameter, or undefined. */
const count = (v: unknown) => (typeof v === "string" && /^\d{1,6}$/.test(v) ? Number(v) : undefined);

export function mountDiscovery(app: Express, engine: Engine): void {
  const { registry } = engine;
  const { baseUrl, rootDir } = engine.config;
  const offers = offersOf(engine);
  const llms = once(() => llmsTxt(registry, baseUrl));
  const llmsFull = once(() => llmsFullTxt(registry, baseUrl));
  const resources = once(() => JSON.stringify(x402Resources(registry, baseUrl, rootDir, offers)));
  const card = once(() => {
    const paid = [...registry.endpoints.values()].find((e) => !e.freeOnly);
    const networks = [...new Set(paid ? offers(paid).map((o) => o.network) : [])];
    return JSON.stringify(serverCard(baseUrl, createToolbox(engine).list([]), { networks }));
  });
  const text = (build: () => string) => (_req: Request, res: Response) => void res.type("text/plain; charset=utf-8").set("cache-control", CACHE).send(build());

  app.get("/llms.txt", text(llms));
  app.get("/llms-full.txt", text(llmsFull));
  app.get("/robots.txt", text(() => robotsTxt(baseUrl)));
  app.get("/.well-known/x402", (req, res) => {
    const offset = count(req.query.offset);
    const limit = count(req.query.limit);
    const body = offset === undefined && limit === undefined ? resources() : JSON.stringify(x402Resources(registry, baseUrl, rootDir, offers, { offset, limit }));
    res.type("application/json").set("cache-control", CACHE).send(body);
  });
  // The draft also reserves <streamable-http-url>/server-card; its media type is served to a client that asks for it.
  app.get(["/.well-known/mcp/server-card.json", "/mcp/server-card"], (req, res) => {
    const type = req.accepts(["application/json", "application/mcp-server-card+json"]) || "application/json";
    res.type(type).set("cache-control", CACHE).send(card());
  });
}
