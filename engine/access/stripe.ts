// Card credit through Stripe Checkout: a session per top-up, credited once per paid session by the signed webhook.
import type Stripe from "stripe";
import { Problem } from "../basics/problem.ts";
import type { KeyRecord } from "./store/types.ts";
import type { Logger } from "../basics/log.ts";
import type { AccessService } from "./index.ts";
import type { AccessSettings } from "./settings.ts";

/** Stripe's library, loaded by the first card-credit request (most processes never make one). */
const stripeLibrary = async () => (await import("stripe")).default;

async function client(settings: AccessSettings): Promise<Stripe> {
  const { secretKey, apiUrl } = settings.stripe;
  if (!secretKey) throw new Problem({ status: 503, code: "credit_unavailable", detail: "Card credit is not set up on this service (no STRIPE_SECRET_KEY). Pay per call with x402, or use the free allowance of a key." });
  const Stripe = await stripeLibrary();
  if (!apiUrl) return new Stripe(secretKey);
  const u = new URL(apiUrl);
  return new Stripe(secretKey, { host: u.hostname, port: Number(u.port || (u.protocol === "https:" ? 443 : 80)), protocol: u.protocol.replace(":", "") as "http" | "https" });
}

export async function createCheckout(settings: AccessSettings, key: KeyRecord, amountUsd: number): Promise<Record<string, unknown>> {
  const { minUsd, maxUsd } = settings.stripe;
  if (!Number.isFinite(amountUsd) || amountUsd < minUsd || amountUsd > maxUsd || Math.round(amountUsd * 100) !== amountUsd * 100) {
    throw new Problem({ status: 400, code: "invalid_parameter", param: "amount_usd", detail: `amount_usd must be a dollar amount from ${minUsd} to ${maxUsd} (at most 2 decimals).` });
  }
  const cents = Math.round(amountUsd * 100);
  const base = settings.baseUrl;
  const session = await (await client(settings)).checkout.sessions.create({
    mode: "payment",
    line_items: [{ quantity: 1, price_data: { currency: "usd", unit_amount: cents, product_data: { name: `API credit $${amountUsd.toFixed(2)}` } } }],
    client_reference_id: key.id,
    metadata: { key_id: key.id, credit_micro_usd: String(cents * 10_000) },
    success_url: `${base}/credit/success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${base}/free`,
  });
  return { id: session.id, url: session.url, amount_usd: amountUsd };
}

/** Verifies Stripe's signature and credits a paid session's key exactly once (Stripe retries deliveries). */
export async function handleStripeWebhook(access: AccessService, raw: Buffer, signature: string | undefined, log: Logger): Promise<Record<string, unknown>> {
  const secret = access.settings.stripe.webhookSecret;
  if (!secret) throw new Problem({ status: 503, code: "credit_unavailable", detail: "No STRIPE_WEBHOOK_SECRET is configured." });
  const { webhooks } = await stripeLibrary();
  let event: Stripe.Event;
  try {
    event = webhooks.constructEvent(Buffer.isBuffer(raw) ? raw : Buffer.from(""), signature ?? "", secret);
  } catch (e) {
    throw new Problem({ status: 400, code: "webhook_invalid", detail: `The Stripe-Signature does not verify: ${(e as Error).message}` });
  }
  const paid = (event.type === "checkout.session.completed" && event.data.object.payment_status === "paid") || event.type === "checkout.session.async_payment_succeeded";
  if (!paid) return { received: true, credited: false };
  const session = event.data.object as Stripe.Checkout.Session;
  const keyId = session.metadata?.key_id ?? session.client_reference_id;
  const key = keyId ? await access.store.keyById(keyId) : undefined;
  if (!key || !session.amount_total) {
    log.error({ event: event.id, session: session.id, keyId }, "paid checkout session names no known key");
    return { received: true, credited: false };
  }
  const credited = await access.store.addCredit({ keyId: key.id, deltaMicro: session.amount_total * 10_000, kind: "stripe", ref: `stripe:${session.id}`, note: event.id });
  log.info({ event: event.id, session: session.id, key: key.id, cents: session.amount_total, credited }, "stripe checkout");
  return { received: true, credited };
}
