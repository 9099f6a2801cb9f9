// Card credit: Stripe Checkout through a loopback stub of Stripe's API (the real stripe package sends to it),
// the signed webhook crediting a key exactly once, and the operator CLI granting credit.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import nock from "nock";
import Stripe from "stripe";
import type { Running } from "../../engine/http/server.ts";
import type { AccessService } from "../../engine/access/index.ts";
import { startX402Chain, type X402Chain } from "../support/x402-chain.ts";
import { GROUP_ALLOWANCE, startAccessServer } from "../support/x402-service.ts";
import { ROOT, getJson, tempDir } from "../support/helpers.ts";

const WEBHOOK_SECRET = "whsec_test_secret";

/** Stripe's API on loopback: records each request and answers a Checkout Session as Stripe does. */
async function stripeStub(): Promise<{ url: string; requests: { path: string; form: URLSearchParams; headers: http.IncomingHttpHeaders }[]; close(): Promise<void> }> {
  const requests: { path: string; form: URLSearchParams; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const form = new URLSearchParams(body);
      requests.push({ path: req.url ?? "", form, headers: req.headers });
      const id = `cs_test_${requests.length}`;
      res.writeHead(200, { "content-type": "application/json", "request-id": `req_${requests.length}` });
      res.end(JSON.stringify({
        id, object: "checkout.session", mode: "payment", status: "open", payment_status: "unpaid",
        amount_total: Number(form.get("line_items[0][price_data][unit_amount]")), currency: "usd",
        client_reference_id: form.get("client_reference_id"), metadata: { key_id: form.get("metadata[key_id]") },
        url: `https://checkout.stripe.com/c/pay/${id}`,
      }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

function completedEvent(id: string, session: { id: string; keyId: string; cents: number; paymentStatus?: string }): string {
  return JSON.stringify({
    id, object: "event", type: "checkout.session.completed", api_version: "2026-10-28.endive", created: Math.floor(Date.now() / 1000),
    data: { object: { id: session.id, object: "checkout.session", mode: "payment", payment_status: session.paymentStatus ?? "paid", status: "complete", amount_total: session.cents, currency: "usd", client_reference_id: session.keyId, metadata: { key_id: session.keyId } } },
  });
}

describe("card credit", function () {
  this.timeout(60_000);
  let chain: X402Chain;
  let stripe: Awaited<ReturnType<typeof stripeStub>>;
  let server: Running;
  let access: AccessService;
  let dataDir: string;

  before(async () => {
    chain = await startX402Chain();
    stripe = await stripeStub();
    dataDir = tempDir();
    server = await startAccessServer(chain, { STRIPE_SECRET_KEY: "sk_test_123", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: stripe.url, DATA_DIR: dataDir });
    access = server.engine.access as AccessService;
  });
  after(async () => {
    await server?.close();
    await stripe?.close();
    await chain?.close();
    nock.cleanAll();
  });

  const webhook = (payload: string, signature: string) =>
    fetch(`${server.url}/credit/webhook`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": signature }, body: payload });
  const sign = (payload: string, timestamp?: number) => Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp });

  it("POST /credit/checkout with a key answers a Stripe Checkout URL for the amount", async () => {
    const { key, record } = (await access.mintKey("10.8.0.1"))!;
    const res = await fetch(`${server.url}/credit/checkout`, { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify({ amount_usd: 5 }) });
    assert.equal(res.status, 201);
    const body: any = await res.json();
    assert.equal(body.url, `https://checkout.stripe.com/c/pay/${body.id}`);
    const sent = stripe.requests.at(-1)!;
    assert.equal(sent.path, "/v1/checkout/sessions");
    assert.equal(sent.headers.authorization, "Bearer sk_test_123");
    assert.equal(sent.form.get("mode"), "payment");
    assert.equal(sent.form.get("line_items[0][price_data][unit_amount]"), "500");
    assert.equal(sent.form.get("line_items[0][price_data][currency]"), "usd");
    assert.equal(sent.form.get("metadata[key_id]"), record.id);
  });

  it("refuses a checkout without a key, or for an amount out of bounds", async () => {
    assert.equal((await fetch(`${server.url}/credit/checkout`, { method: "POST" })).status, 401);
    const { key } = (await access.mintKey("10.8.0.2"))!;
    const res = await fetch(`${server.url}/credit/checkout?amount_usd=0.5`, { method: "POST", headers: { "X-API-Key": key } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as any).param, "amount_usd");
  });

  it("credits the key once per paid session when Stripe's signed webhook arrives (also when redelivered)", async () => {
    const { key, record } = (await access.mintKey("10.8.0.3"))!;
    const payload = completedEvent("evt_1", { id: "cs_paid_1", keyId: record.id, cents: 500 });
    const first = await webhook(payload, sign(payload));
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { received: true, credited: true });
    const again = await webhook(payload, sign(payload));
    assert.deepEqual(await again.json(), { received: true, credited: false });
    const otherEvent = completedEvent("evt_2", { id: "cs_paid_1", keyId: record.id, cents: 500 });
    assert.deepEqual(await (await webhook(otherEvent, sign(otherEvent))).json(), { received: true, credited: false });
    const account = await getJson(`${server.url}/account`, { "X-API-Key": key });
    assert.equal(account.body.credit_usd, 5);
  });

  it("ignores an unpaid session, and refuses a bad or stale signature", async () => {
    const { record } = (await access.mintKey("10.8.0.4"))!;
    const unpaid = completedEvent("evt_3", { id: "cs_unpaid", keyId: record.id, cents: 500, paymentStatus: "unpaid" });
    assert.deepEqual(await (await webhook(unpaid, sign(unpaid))).json(), { received: true, credited: false });
    const payload = completedEvent("evt_4", { id: "cs_forged", keyId: record.id, cents: 100_000 });
    const forged = await webhook(payload.replace("100000", "900000"), sign(payload));
    assert.equal(forged.status, 400);
    assert.equal(((await forged.json()) as any).code, "webhook_invalid");
    assert.equal((await webhook(payload, sign(payload, Math.floor(Date.now() / 1000) - 600))).status, 400);
    assert.equal((await access.store.keyById(record.id))?.creditMicro, 0);
  });

  it("spends bought credit once the allowance is gone", async () => {
    const { key, record } = (await access.mintKey("10.8.0.5"))!;
    const payload = completedEvent("evt_5", { id: "cs_paid_5", keyId: record.id, cents: 100 });
    await webhook(payload, sign(payload));
    const url = `${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`;
    for (let i = 0; i < GROUP_ALLOWANCE.key; i++) assert.equal((await getJson(url, { "X-API-Key": key })).body.meta.paid_by, "allowance");
    const paid = await getJson(url, { "X-API-Key": key });
    assert.equal(paid.body.meta.paid_by, "credit");
    assert.equal(paid.body.meta.credit_left_usd, 0.999);
  });

  it("lets the operator grant credit from the command line (npm run credit -- grant)", async () => {
    const { key, record } = (await access.mintKey("10.8.0.6"))!;
    const run = promisify(execFile);
    const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" };
    const node = path.join(ROOT, "node_modules", ".bin", "node");
    const { stdout } = await run(node, ["engine/cli.ts", "credit", "grant", key, "2.5", "--note", "support ticket 12"], { cwd: ROOT, env });
    assert.deepEqual(JSON.parse(stdout), { key_id: record.id, credit_usd: 2.5 });
    const shown = JSON.parse((await run(node, ["engine/cli.ts", "credit", "show", record.id], { cwd: ROOT, env })).stdout);
    assert.deepEqual(shown.entries.map((e: { usd: number; kind: string; note: string }) => [e.usd, e.kind, e.note]), [[2.5, "grant", "support ticket 12"]]);
    assert.equal((await getJson(`${server.url}/account`, { "X-API-Key": key })).body.credit_usd, 2.5);
    const minted = JSON.parse((await run(node, ["engine/cli.ts", "keys", "create", "--label", "partner"], { cwd: ROOT, env })).stdout);
    assert.equal((await getJson(`${server.url}/account`, { "X-API-Key": minted.key })).status, 200);
  });
});
