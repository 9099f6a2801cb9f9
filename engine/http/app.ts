// The Express app: /v1 routes through the pipeline, and the pages generated from the endpoint files.
import express, { type Express, type Request, type Response, type NextFunction } from "express";
import compression from "compression";
import { answerCall } from "../testmode/answer-call.ts";
import { Problem, toProblem } from "../basics/problem.ts";
import { buildOpenApi } from "./openapi.ts";
import { offersOf } from "./discovery/offers.ts";
import { renderDocsPage } from "./landing-page.ts";
import { renderGroupPage } from "./group-page.ts";
import { fixedBody } from "./fixed-body.ts";
import { FAVICON_SVG } from "./html-page.ts";
import { mountAccessRoutes } from "./access-routes.ts";
import { mountDiscovery } from "./discovery/routes.ts";
import { sendProblem } from "./send-problem.ts";
import { mountMcp } from "../mcp/index.ts";
import { credentialState, missingCredentials } from "../upstream/sources.ts";
import type { Engine } from "../engine.ts";
import { isAccessService } from "../access/index.ts";

export function createHttpApp(engine: Engine): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", engine.env.TRUST_PROXY ?? "loopback");
  app.set("query parser", "simple");

  app.use((req, res, next) => {
    res.set({
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "X-API-Key, PAYMENT-SIGNATURE, Idempotency-Key, Content-Type, MCP-Protocol-Version, Mcp-Session-Id",
      "access-control-expose-headers": "PAYMENT-REQUIRED, PAYMENT-RESPONSE, RateLimit, RateLimit-Policy, Retry-After, X-Cache, Idempotent-Replayed",
    });
    if (req.method === "OPTIONS") return void res.status(204).end();
    next();
  });
  // Bodies over 1 KB go compressed to a client that accepts it, br before gzip at equal q. Never a 402 (an x402
  // client reads its body as sent), nor an event stream, which would wait in the compressor's buffer.
  app.use(compression({
    threshold: 1024,
    filter: (req, res) => res.statusCode !== 402 && !/^text\/event-stream/i.test(String(res.getHeader("content-type") ?? "")) && compression.filter(req, res),
  }));

  // The calls come first in the stack, matched before any page. HEAD would run (and charge) the call for headers
  // alone: only GET answers. An answer carries the call's own meta (allowance left, payment), so no ETag is worked
  // out for it: it would never match, and a charged call is not answered 304 without its data.
  app.all("/v1/:group/:operation", async (req: Request, res: Response) => {
    if (req.method !== "GET") {
      res.set("allow", "GET");
      return sendProblem(res, new Problem({ status: 405, code: "method_not_allowed", detail: `${req.method} is not allowed on ${req.path}: every endpoint answers GET only.` }), req.originalUrl);
    }
    try {
      const result = await answerCall(engine, {
        group: String(req.params.group),
        operation: String(req.params.operation),
        query: req.query as Record<string, unknown>,
        channel: "http",
        apiKey: req.get("x-api-key") || undefined,
        clientId: req.ip ?? "unknown",
        paymentSignature: req.get("payment-signature") || undefined,
        idempotencyKey: req.get("idempotency-key"),
        testExample: req.get("test-example"),
        resourceUrl: `${engine.config.baseUrl}${req.originalUrl}`,
      });
      res.status(result.status).set(result.headers).type("application/json").end(JSON.stringify(result.body));
    } catch (e) {
      sendProblem(res, toProblem(e), req.originalUrl);
    }
  });

  // Built by their first request, not at start-up.
  const openapi = fixedBody("application/json", () => JSON.stringify(buildOpenApi(engine.registry, engine.config.baseUrl, offersOf(engine))));
  const docs = fixedBody("html", () => renderDocsPage(engine.registry, engine.config.baseUrl));
  const groupPages = new Map<string, ReturnType<typeof fixedBody>>();
  app.get("/health", (_req, res) => {
    const datasets = engine.datasets.status().map((d) => ({
      name: d.name,
      loaded: Boolean(d.version),
      state: d.loading ? "loading" : d.version ? "loaded" : "not_loaded",
      ...(d.version ? { version: d.version.version, loaded_at: d.version.loaded_at, counts: d.version.counts } : {}),
      ...(d.last_failure ? { last_failure: d.last_failure } : {}),
    }));
    // Sources whose credential is unset: a required one makes their calls answer 503; a fallback sends them to a public host.
    const credentials_missing = [...engine.registry.sources.values()].flatMap((s) => {
      const state = credentialState(s, engine.env);
      if (state !== "missing" && state !== "fallback") return [];
      return [{ source: s.name, variables: missingCredentials(s, engine.env),
        effect: state === "missing" ? "calls answer 503 upstream_credentials_missing"
          : `calls go to ${s.overridden ? `${s.envVar}` : `the public host ${s.auth!.fallback_base_url}`} without credentials` }];
    });
    // x402: per network, whether the facilitator settles it (and so whether payments on it can be taken).
    const payments = isAccessService(engine.access) ? { payments: engine.access.payments.health() } : {};
    res.json({ status: "ok", endpoints: engine.registry.endpoints.size, datasets, credentials_missing, ...payments, ...(engine.cluster ? { cluster: engine.cluster.health() } : {}) });
  });
  app.get("/openapi.json", openapi);
  app.get(["/", "/problems"], docs);
  app.get("/groups/:group", (req, res, next) => {
    const group = engine.registry.groups.get(String(req.params.group));
    if (!group) return next();
    // Each page is made when first asked for, not at start-up (all of them together take about 0.1 s).
    let page = groupPages.get(group.name);
    if (!page) groupPages.set(group.name, (page = fixedBody("html", () => renderGroupPage(group, engine.config.baseUrl))));
    return page(req, res);
  });
  app.get(["/favicon.ico", "/favicon.svg"], (_req, res) => void res.type("image/svg+xml").set("cache-control", "public, max-age=86400").send(FAVICON_SVG));

  mountAccessRoutes(app, engine);
  mountDiscovery(app, engine);
  mountMcp(app, engine);

  app.use((req: Request, res: Response) => {
    sendProblem(res, new Problem({ status: 404, code: req.path.startsWith("/v1/") ? "unknown_endpoint" : "not_found", detail: `Nothing at ${req.method} ${req.path}. The endpoints are listed at / and in /openapi.json.` }), req.originalUrl);
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    const problem = status === 413
      ? new Problem({ status, code: "payload_too_large", detail: "The request body is larger than the service takes." })
      : status && status >= 400 && status < 500
      ? new Problem({ status, code: "invalid_request", title: "The request could not be read", detail: (err as Error).message })
      : toProblem(err);
    if (problem.status >= 500) engine.log.error({ err }, "request failed");
    sendProblem(res, problem, req.originalUrl);
  });
  return app;
}
