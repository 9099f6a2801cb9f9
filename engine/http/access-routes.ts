// Routes of the access layer:
//   GET /free (a page: get a key in the browser) and POST /free (JSON for programs; an HTML answer for the page's form);
//   POST /free?mode=test (or the form's mode=test) gives a test key (docs/test-mode.md)
//   GET /account (with X-API-Key): its mode, allowance left per bucket today, credit, recent calls
//   POST /credit/checkout (with X-API-Key): a Stripe Checkout URL; POST /credit/webhook: Stripe's signed events
import express, { type Express, type Request, type Response } from "express";
import { Problem, toProblem } from "../basics/problem.ts";
import { sendProblem } from "./send-problem.ts";
import type { Engine } from "../engine.ts";
import { isAccessService, type AccessService } from "../access/index.ts";
import { createCheckout, handleStripeWebhook } from "../access/stripe.ts";
import { freePage, keyLimitDetail, keyPage, limitPage, type FreePageInfo } from "./free-page.ts";
import { sampleCall } from "./landing-page.ts";
import { isTestKey, utcDay } from "../access/keys.ts";
import { mintTestKey, testAccount, TEST_KEY_NOTE } from "../testmode/keys.ts";

export function mountAccessRoutes(app: Express, engine: Engine): void {
  const access = engine.access;
  if (!isAccessService(access)) return;
  const handle = (fn: (req: Request, res: Response, access: AccessService) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      await fn(req, res, access);
    } catch (e) {
      const problem = toProblem(e);
      if (problem.status >= 500) engine.log.error({ err: e }, "access route failed");
      sendProblem(res, problem, req.originalUrl);
    }
  };

  const { settings } = access;
  const info: FreePageInfo = { baseUrl: settings.baseUrl, sampleCall: sampleCall(engine.registry, settings.baseUrl), x402: Boolean(settings.x402.payTo), credit: Boolean(settings.stripe.secretKey) };
  app.get("/free", (_req, res) => void res.type("html").send(freePage(info)));

  app.post("/free", express.urlencoded({ extended: false, limit: "4kb" }), handle(async (req, res) => {
    const test = req.query.mode === "test" || (req.body as { mode?: unknown } | undefined)?.mode === "test";
    const minted = await (test ? mintTestKey(access, req.ip ?? "unknown") : access.mintKey(req.ip ?? "unknown"));
    const wantsHtml = req.accepts(["json", "html"]) === "html";
    if (!minted) {
      const limit = new Problem({
        status: 429,
        code: "key_limit_reached",
        detail: keyLimitDetail(info, settings.freeKeysPerDay),
        headers: { "Retry-After": String(utcDay().secondsLeft) },
      });
      if (wantsHtml) return void res.status(429).set(limit.headers).type("html").send(limitPage(limit.detail));
      throw limit;
    }
    if (wantsHtml) return void res.status(201).type("html").send(keyPage(info, minted.key, test));
    res.status(201).json({
      key: minted.key,
      key_id: minted.record.id,
      mode: test ? "test" : "live",
      header: "X-API-Key",
      note: test ? `Shown once: this service keeps only a hash of it. ${TEST_KEY_NOTE}` : "Shown once: this service keeps only a hash of it.",
      account: `${access.settings.baseUrl}/account`,
      example: `curl -H "X-API-Key: ${minted.key}" ${access.settings.baseUrl}/account`,
    });
  }));

  app.get("/account", handle(async (req, res) => {
    const apiKey = req.get("x-api-key") || undefined;
    const key = await access.keyFor(apiKey);
    res.set("Cache-Control", "no-store").json(isTestKey(apiKey) ? await testAccount(access, key) : { mode: "live", ...(await access.account(key)) });
  }));

  app.post("/credit/checkout", express.json({ limit: "4kb" }), handle(async (req, res) => {
    const apiKey = req.get("x-api-key") || undefined;
    if (isTestKey(apiKey)) throw new Problem({ status: 400, code: "test_key", detail: "A test key's calls are free and hold no credit: buy credit for a live key (POST /free gives one)." });
    const key = await access.keyFor(apiKey);
    const amount = Number((req.body as { amount_usd?: unknown } | undefined)?.amount_usd ?? req.query.amount_usd ?? 5);
    res.status(201).json(await createCheckout(access.settings, key, amount));
  }));

  // Stripe signs the raw bytes: this route must read the body itself, before any JSON parser.
  app.post("/credit/webhook", express.raw({ type: "*/*", limit: "1mb" }), handle(async (req, res) => {
    res.json(await handleStripeWebhook(access, req.body as Buffer, req.get("stripe-signature"), engine.log));
  }));

  app.get("/credit/success", (_req, res) =>
    void res.type("html").send(`<!doctype html><meta charset="utf-8"><title>Credit</title><p>Thank you. Your credit is added as soon as Stripe confirms the payment; <code>GET /account</code> with your key shows the balance.</p>`));
}
