// Access control: who pays for a call, and how. In order:
//   1. an x402 payment sent with the call (PAYMENT-SIGNATURE, or _meta["x402/payment"] over MCP) pays for it;
//   2. else the daily free allowance: a key's sizes, or over MCP the anonymous sizes per client address
//      (HTTP without a key has none: the specification wants a key for free calls over HTTP);
//   3. else the key's card credit;
//   4. else 402 with the x402 PaymentRequired (header and body) and the three ways forward.
// An endpoint of price 0 (free allowance only: its upstream's terms forbid selling access) is served from the
// allowance alone and is never sold: no x402, no credit; once the allowance is spent, 429 allowance_exhausted.
// Credit and x402 charges are reserved in the store before the call and made final only when the call succeeded;
// an allowance call is counted as final at once and given back if it fails (see allowance()).
import { Problem } from "../basics/problem.ts";
import { openStore } from "./store/index.ts";
import type { Store, BucketClaim, KeyRecord } from "./store/types.ts";
import type { Access, CallRequest, Grant, Receipt } from "./types.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../basics/log.ts";
import type { Registry } from "../endpoints/model.ts";
import { accessSettings, type AccessSettings } from "./settings.ts";
import { Payments, toAtomic, encodePaymentRequiredHeader, encodePaymentResponseHeader, paymentIdentifier, type PaymentPayload, type PaymentRequirements } from "./x402.ts";
import { Idempotency, fingerprint, idempotencyKey, requestOf } from "./idempotency.ts";
import { hashKey, newApiKey, utcDay } from "./keys.ts";
import { rateLimitHeaders } from "./allowance-headers.ts";
import { LRUCache } from "lru-cache";

export interface AccessDeps { config: Config; log: Logger; registry: Registry; env: NodeJS.ProcessEnv }

/** The access layer with what its routes and commands need besides authorize(). */
export interface AccessService extends Access {
  store: Store;
  settings: AccessSettings;
  payments: Payments;
  /** A new free key for this client address, or undefined when it minted its daily number already. */
  mintKey(clientId: string, label?: string): Promise<{ key: string; record: KeyRecord } | undefined>;
  /** The key record of an X-API-Key value; throws 401 when unknown. */
  keyFor(apiKey: string | undefined): Promise<KeyRecord>;
  /** GET /account: allowance left per bucket today, credit, recent calls. */
  account(key: KeyRecord): Promise<Record<string, unknown>>;
}

export const isAccessService = (a: Access): a is AccessService => "store" in a && "mintKey" in a;

export async function createAccess(deps: AccessDeps): Promise<AccessService> {
  const settings = accessSettings(deps.config, deps.env);
  const store = await openStore({ dataDir: deps.config.dataDir, databaseUrl: deps.config.databaseUrl, schema: settings.databaseSchema, leaseMs: settings.leaseMs });
  // SQLite serves one process, so whatever another instance left pending died with it; PostgreSQL instances
  // give back only the calls of instances whose lease ran out, never a live one's.
  const recovered = await store.recoverInterrupted({ othersGone: !settings.shared });
  if (recovered) deps.log.warn({ calls: recovered }, "gave back the charges of calls interrupted by a stop");
  const payments = new Payments(settings.x402, deps.log);
  if (!payments.enabled) deps.log.warn("X402_PAY_TO is not set: 402 answers offer free keys and card credit, not x402");
  await payments.start().catch(async (e) => {
    await store.close();
    throw e;
  });
  const layer = new AccessLayer(deps, settings, store, payments);
  layer.onClose(() => payments.stop());
  // The calls of an instance that stopped (PostgreSQL), and the idempotency records past their 24 hours (both).
  const sweep = setInterval(() => {
    store.recoverInterrupted()
      .then((n) => n && deps.log.warn({ calls: n }, "gave back the charges of calls interrupted by a stopped instance"))
      .catch((err) => deps.log.error({ err }, "sweep of interrupted calls failed"));
  }, Math.min(settings.leaseMs, 300_000));
  sweep.unref();
  layer.onClose(() => clearInterval(sweep));
  return layer;
}

const MICRO = 1_000_000;

/** What every ledger row of a call says, whoever pays. */
interface CallBase { endpoint: string; channel: string; priceMicro: number; day: string; final: boolean }

interface WayForward { way: "x402" | "free_key" | "credit"; how: string; offer: string; url?: string; [more: string]: unknown }

/** "Pay with x402, get a free key at …/free, or buy card credit with a key." */
function offer(ways: WayForward[]): string {
  const phrases = ways.map((w) => w.offer);
  const text = phrases.length > 1 ? `${phrases.slice(0, -1).join(", ")} or ${phrases.at(-1)}` : phrases.join("");
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}
const usd = (micro: number) => micro / MICRO;

class AccessLayer implements AccessService {
  readonly store: Store;
  readonly settings: AccessSettings;
  readonly payments: Payments;
  private readonly deps: AccessDeps;
  private readonly closers: (() => void)[] = [];
  private readonly keyIds = new LRUCache<string, string>({ max: 10_000 });
  private readonly once: Idempotency;
  /** The allowance calls counted (as final) and not yet answered or given back. */
  private readonly unanswered = new Set<string>();

  constructor(deps: AccessDeps, settings: AccessSettings, store: Store, payments: Payments) {
    this.deps = deps;
    this.settings = settings;
    this.store = store;
    this.payments = payments;
    this.once = new Idempotency(store, deps.log);
  }

  async authorize(call: CallRequest): Promise<Grant> {
    const key = idempotencyKey(call.idempotencyKey);
    const keyId = call.apiKey !== undefined ? await this.keyIdFor(call.apiKey) : undefined;
    const principal = keyId ? `key:${keyId}` : call.channel === "mcp" ? `mcp:${call.clientId}` : undefined;
    // An Idempotency-Key is the key's or the MCP client's; without either, it can only stand for an x402 payment.
    if (key && principal) return this.once.run("key", principal, key, fingerprint(requestOf(call)), () => this.charge(call, principal, keyId));
    return this.charge(call, principal, keyId);
  }

  private async charge(call: CallRequest, principal: string | undefined, keyId: string | undefined): Promise<Grant> {
    const { endpoint } = call;
    const priceMicro = toAtomic(endpoint.price);
    const { day, secondsLeft } = utcDay();
    const base: CallBase = { endpoint: endpoint.key, channel: call.channel, priceMicro, day, final: Boolean(call.answered) };

    if (endpoint.freeOnly) return this.freeOnly(call, principal, keyId, base, secondsLeft);
    if (call.paymentSignature !== undefined || call.paymentPayload !== undefined) return this.payWithX402(call, principal, base);

    const claims: BucketClaim[] = principal ? endpoint.buckets.map((b) => ({ id: b.id, limit: keyId ? b.key : b.anonymous })) : [];
    if (principal) {
      const { grant, headers, begun } = await this.allowance(principal, keyId, claims, base, secondsLeft);
      if (grant) return grant;
      if (keyId) {
        // The debit is conditional on the balance: no need to read it first.
        const paid = await this.store.beginCall({ ...base, principal, paidBy: "credit", keyId });
        if (paid.ok) {
          return this.grant("credit", paid.callId, base.final, headers, async () => ({ credit_left_usd: usd((await this.store.keyById(keyId))?.creditMicro ?? 0) }));
        }
      }
      throw this.paymentRequired(call, headers, begun.ok ? undefined : begun.bucket, Boolean(keyId));
    }
    throw this.paymentRequired(call, {}, undefined, false);
  }

  /**
   * A call to a free-allowance-only endpoint: the allowance, or nothing. A payment sent with it is not taken
   * (there is nothing to pay), and no way to buy the call is offered, since selling it is what its terms forbid.
   */
  private async freeOnly(call: CallRequest, principal: string | undefined, keyId: string | undefined,
    base: CallBase, secondsLeft: number): Promise<Grant> {
    const free = `${this.settings.baseUrl}/free`;
    if (!principal) {
      throw new Problem({
        status: 401,
        code: "free_key_required",
        detail: `${call.endpoint.key} is served within the free daily allowance only (it cannot be bought): calls over HTTP need a free key in the X-API-Key header. Get one at ${free}.`,
        headers: { "Cache-Control": "no-store" },
        extra: { free_allowance_only: true, ways_forward: [{ way: "free_key", how: "Get a free key (no signup) and send it in the X-API-Key header.", url: free }] },
      });
    }
    const claims: BucketClaim[] = call.endpoint.buckets.map((b) => ({ id: b.id, limit: keyId ? b.key : b.anonymous }));
    const { grant, headers, begun } = await this.allowance(principal, keyId, claims, base, secondsLeft);
    if (grant) return grant;
    if (begun.ok) throw new Error("an allowance call was counted without a grant");
    const where = begun.bucket ? ` (bucket ${begun.bucket})` : "";
    const more = keyId || call.channel !== "mcp" ? "" : ` A free key (${free}) has a larger allowance.`;
    throw new Problem({
      status: 429,
      code: "allowance_exhausted",
      detail: `Today's free allowance${where} is used up. ${call.endpoint.key} is served within the free allowance only and cannot be bought (its upstream's terms forbid selling access): retry after the UTC day ends, in ${secondsLeft} seconds.${more}`,
      headers: { ...headers, "Retry-After": String(secondsLeft), "Cache-Control": "no-store" },
      extra: { free_allowance_only: true, retry_after_seconds: secondsLeft, ...(begun.bucket ? { bucket: begun.bucket } : {}) },
    });
  }

  /**
   * Counts the call against its buckets, with its ledger row, as final (ok) at once, answered or not: one statement,
   * the common path. The call failing is the rare path: release gives the count back (the row becomes error), and a
   * stop gives back the calls still running (close()). Only a call cut off by a kill (SIGKILL, a crash) stays counted:
   * an allowance call costs nothing, so one free call of the day is the most a caller loses, and never money (credit
   * and x402 calls are reserved, and given back after a kill).
   * No grant when a bucket is full: the headers say how things stand.
   */
  private async allowance(principal: string, keyId: string | undefined, claims: BucketClaim[], base: CallBase, secondsLeft: number) {
    const begun = await this.store.beginCall({ ...base, final: true, principal, paidBy: "allowance", buckets: claims, keyId });
    // The count already includes this call, so `used` is what a successful call leaves.
    const used = (begun.ok && begun.used) || (await this.store.usage(principal, base.day));
    const headers = rateLimitHeaders(claims, used, secondsLeft);
    if (!begun.ok) return { headers, begun };
    const refreshed = async () => rateLimitHeaders(claims, await this.store.usage(principal, base.day), secondsLeft);
    const grant = this.grant("allowance", begun.callId, true, headers, async () => ({ allowance_left: remaining(claims, used) }), refreshed);
    // Until it is answered or given back, the call is one a stop must give back (see close()).
    this.unanswered.add(begun.callId);
    const settled = () => this.unanswered.delete(begun.callId);
    return { headers, begun, grant: { ...grant, commit: () => (settled(), grant.commit()), release: async (problem: Problem) => {
      try {
        return await grant.release(problem);
      } finally {
        settled();
      }
    } } };
  }

  /**
   * The key id of an X-API-Key value (401 when unknown). A key's id never changes (and keys are never taken back),
   * so it is remembered, by the value itself: a known key needs neither a hash nor a read. It only names the key:
   * every charge is still decided by the store.
   */
  private async keyIdFor(apiKey: string): Promise<string> {
    let id = this.keyIds.get(apiKey);
    if (!id) {
      id = (await this.keyFor(apiKey)).id;
      this.keyIds.set(apiKey, id);
    }
    return id;
  }

  /** An allowance or credit grant; a final one was charged as ok already (an allowance one's release gives it back). */
  private grant(paidBy: Grant["paidBy"], callId: string, final: boolean, headers: Record<string, string>, meta: () => Promise<Record<string, unknown>>,
    headersAfterRelease?: () => Promise<Record<string, string>>): Grant {
    return {
      paidBy,
      headers,
      commit: async () => {
        if (!final) await this.store.finishCall(callId, "ok");
        return { headers: {}, meta: await meta() };
      },
      release: async (problem) => {
        await this.store.finishCall(callId, "error", { detail: `${problem.status} ${problem.code}` });
        return headersAfterRelease?.();
      },
    };
  }

  private async payWithX402(call: CallRequest, principal: string | undefined, base: CallBase): Promise<Grant> {
    if (!this.payments.enabled) throw this.paymentInvalid(call, "x402_not_accepted", "This service takes no x402 payments (it has no pay-to address configured). Use a free key or card credit.");
    const payment = this.payments.decode(call.paymentSignature, call.paymentPayload);
    if (!payment) throw this.paymentInvalid(call, "invalid_payload", "The payment could not be read: it must be an x402 v2 PaymentPayload (base64 JSON in PAYMENT-SIGNATURE; an object in _meta[\"x402/payment\"] over MCP).");
    const id = paymentIdentifier(payment);
    if (!this.payments.boundTo(payment, call.resourceUrl)) throw this.paymentInvalid(call, "resource_mismatch", `The payment was signed for another call (${String(payment.resource?.url).slice(0, 200)}); a payment pays only for the call it was signed for. Sign this call's PAYMENT-REQUIRED.`);
    const requirements = this.payments.match(call.endpoint, payment);
    if (!requirements) throw this.paymentInvalid(call, "No matching payment requirements", "The payment does not match this endpoint's requirements (scheme, network, asset, amount, payTo and maxTimeoutSeconds must be exactly as in PAYMENT-REQUIRED).");

    // Pay once, per payer: the payment identifier, else (a call without a key) its Idempotency-Key. The same payment
    // is the same call paid on the same terms: an x402 client's retry signs a new authorization, which is not settled.
    const key = principal ? undefined : idempotencyKey(call.idempotencyKey);
    const take = () => this.takePayment(call, principal, base, payment, requirements);
    if (!id && !key) return take();
    const payer = `x402:${(await this.payments.payerOf(payment)) ?? "unknown"}`;
    return this.once.run(id ? "payment" : "key", payer, (id ?? key)!, fingerprint(requestOf(call), requirements), take);
  }

  /** Claims the payment's nonce, has the facilitator verify it and reserves the call; settles on commit. */
  private async takePayment(call: CallRequest, principal: string | undefined, base: CallBase, payment: PaymentPayload, requirements: PaymentRequirements): Promise<Grant> {
    const ref = this.payments.nonceRef(payment);
    if (!(await this.store.claimNonce(ref))) throw this.paymentInvalid(call, "payment_already_used", "This payment was already used, or is being used by another call right now. Sign a new one.");
    let callId: string;
    try {
      const verified = await this.payments.verify(payment, requirements);
      if (!verified.ok) throw this.paymentInvalid(call, verified.reason, `The facilitator refused the payment (${verified.reason}).`);
      const payer = verified.payer ?? (payment.payload as { authorization?: { from?: string } }).authorization?.from ?? "unknown";
      // Never final: the payment is settled only after the call, and settling may fail.
      const begun = await this.store.beginCall({ ...base, final: false, principal: principal ?? `x402:${payerId(payer)}`, paidBy: "x402", paymentRef: ref });
      if (!begun.ok) throw new Error("an x402 call could not be recorded");
      callId = begun.callId;
    } catch (e) {
      await this.store.releaseNonce(ref);
      throw e;
    }

    return {
      paidBy: "x402",
      headers: {},
      commit: async (): Promise<Receipt> => {
        const settled = await this.payments.settle(payment, requirements);
        const response = encodePaymentResponseHeader(settled.response);
        if (settled.state === "settled") {
          await this.store.finishCall(callId, "ok", { paymentTx: settled.response.transaction });
          return { headers: { "PAYMENT-RESPONSE": response }, meta: { payment_response: settled.response } };
        }
        if (settled.state === "unknown") {
          await this.store.settlementUnknown(callId, JSON.stringify({ payment, requirements }));
          throw new Problem({
            status: 502,
            code: "settlement_unknown",
            detail: "The payment was sent for settlement but the facilitator's answer was lost, and whether it settled cannot be told yet. It may have been charged: do not pay again for this call. The operator reconciles it against the chain; the result is withheld.",
            headers: { "PAYMENT-RESPONSE": response, "Cache-Control": "no-store" },
            extra: { payment_response: settled.response },
          });
        }
        await this.store.finishCall(callId, "error", { detail: `settlement failed: ${settled.response.errorReason}` });
        const problem = this.paymentInvalid(call, settled.response.errorReason!, `The payment was verified but could not be settled (${settled.response.errorReason}); the result is withheld and nothing was charged.`);
        problem.headers["PAYMENT-RESPONSE"] = response;
        throw problem;
      },
      release: async (problem) => this.store.finishCall(callId, "error", { detail: `${problem.status} ${problem.code}` }),
    };
  }

  /** The 402 of a call nobody pays for yet: why, and the ways forward that are open to this caller. */
  private paymentRequired(call: CallRequest, headers: Record<string, string>, bucket: string | undefined, key: boolean): Problem {
    const where = bucket ? ` (bucket ${bucket})` : "";
    const why = key
      ? `The free allowance of this key is used up for today${where} and its card credit does not cover the price of $${call.endpoint.price}.`
      : call.channel === "mcp"
        ? `The free allowance of this client is used up for today${where}.`
        : `This call costs $${call.endpoint.price}. Calls without payment need a free key (X-API-Key).`;
    const ways = this.waysForward(call, key);
    return this.problem402("payment_required", `${why} ${offer(ways)}`, call, headers, "Payment required", ways);
  }

  /** The 402 of a payment that was refused: a fresh PaymentRequired whose error says why. */
  private paymentInvalid(call: CallRequest, reason: string, detail: string): Problem {
    const problem = this.problem402("payment_invalid", detail, call, {}, reason, this.waysForward(call, false));
    problem.extra.x402_error = reason;
    return problem;
  }

  /** x402 when the service takes it; a free key for callers without one; card credit (bought with a key). */
  private waysForward(call: CallRequest, key: boolean): WayForward[] {
    const base = this.settings.baseUrl;
    const ways: WayForward[] = [];
    if (this.payments.offering) ways.push({ way: "x402", how: "Pay this call in USDC: sign one of payment_required.accepts (also in the PAYMENT-REQUIRED header, base64) and repeat the same call with a PAYMENT-SIGNATURE header (MCP: _meta[\"x402/payment\"]).", offer: "pay with x402" });
    if (!key) ways.push({ way: "free_key", how: "Get a free key (no signup) and send it in the X-API-Key header: calls are free within a daily allowance.", offer: `get a free key at ${base}/free`, url: `${base}/free` });
    ways.push({ way: "credit", how: key ? "Buy prepaid card credit for this key (POST /credit/checkout with X-API-Key); it pays the price once the allowance is spent." : "With a key, buy prepaid card credit (POST /credit/checkout with X-API-Key); it pays the price once the allowance is spent.", offer: key ? "buy card credit for this key" : "buy card credit with a key", url: `${base}/credit/checkout` });
    return ways;
  }

  private problem402(code: string, detail: string, call: CallRequest, headers: Record<string, string>, error: string, ways: WayForward[]): Problem {
    const pr = this.payments.paymentRequired(call.endpoint, call.resourceUrl, error);
    const x402 = ways.find((w) => w.way === "x402");
    // network and amount name the first offer (as before several networks); networks lists every one.
    if (x402 && pr) Object.assign(x402, { network: pr.accepts[0].network, amount: pr.accepts[0].amount, networks: pr.accepts.map((a) => ({ network: a.network, amount: a.amount, asset: a.asset })) });
    return new Problem({
      status: 402,
      code,
      detail,
      headers: { ...headers, ...(pr ? { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(pr) } : {}), "Cache-Control": "no-store" },
      extra: { price_usd: call.endpoint.price, ...(pr ? { payment_required: pr } : {}), ways_forward: ways.map(({ offer: _offer, ...w }) => w) },
    });
  }

  async mintKey(clientId: string, label?: string): Promise<{ key: string; record: KeyRecord } | undefined> {
    const key = newApiKey();
    const record = await this.store.mintKey({ hash: hashKey(key), clientId, day: utcDay().day, maxPerDay: this.settings.freeKeysPerDay, label });
    return record && { key, record };
  }

  async keyFor(apiKey: string | undefined): Promise<KeyRecord> {
    const key = apiKey ? await this.store.findKey(hashKey(apiKey)) : undefined;
    if (!key) {
      throw new Problem({
        status: 401,
        code: "invalid_api_key",
        detail: apiKey ? `The X-API-Key sent is not a key of this service. Get a free key at ${this.settings.baseUrl}/free.` : `This needs a key in the X-API-Key header. Get a free key at ${this.settings.baseUrl}/free.`,
      });
    }
    return key;
  }

  async account(key: KeyRecord): Promise<Record<string, unknown>> {
    const principal = `key:${key.id}`;
    const { day, secondsLeft } = utcDay();
    const used = await this.store.usage(principal, day);
    const buckets = new Map<string, { bucket: string; limit: number; used: number; left: number; endpoints: string[] }>();
    for (const ep of this.deps.registry.endpoints.values()) {
      for (const b of ep.buckets) {
        const entry = buckets.get(b.id) ?? { bucket: b.id, limit: b.key, used: used.get(b.id) ?? 0, left: Math.max(0, b.key - (used.get(b.id) ?? 0)), endpoints: [] };
        entry.endpoints.push(ep.key);
        buckets.set(b.id, entry);
      }
    }
    const recent = await this.store.recentCalls(principal, 20);
    return {
      key_id: key.id,
      created_at: new Date(key.createdAt).toISOString(),
      day,
      resets_in_seconds: secondsLeft,
      allowance: [...buckets.values()],
      credit_usd: usd(key.creditMicro),
      credit_micro_usd: key.creditMicro,
      recent_calls: recent.map((c) => ({ at: new Date(c.at).toISOString(), endpoint: c.endpoint, channel: c.channel, price_usd: usd(c.priceMicro), paid_by: c.paidBy, outcome: c.outcome })),
    };
  }

  onClose(fn: () => void): void {
    this.closers.push(fn);
  }

  /** A stop gives back the allowance calls still running (cut off past the grace period), then closes the store. */
  async close(): Promise<void> {
    for (const fn of this.closers) fn();
    await this.store.interruptCalls([...this.unanswered]).catch((err) => this.deps.log.error({ err }, "giving back the calls cut off by the stop failed"));
    await this.store.close();
  }
}

/** An EVM payer in lower case (hex is case-blind); a Solana payer as it is (base58 is not). */
const payerId = (payer: string) => (payer.startsWith("0x") ? payer.toLowerCase() : payer);

function remaining(claims: BucketClaim[], used: Map<string, number>): Record<string, number> {
  return Object.fromEntries(claims.map((c) => [c.id, Math.max(0, c.limit - (used.get(c.id) ?? 0))]));
}

export type { PaymentPayload };
