// x402 v2 with the @x402/core resource server: payment requirements, verify before the call, settle after it.
// The library leaves two things to us (protocols.md §1.8, §2.1): the in-flight/used-nonce guard (in the store) and
// a deterministic price (the amount is a pure function of the endpoint).
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { PAYMENT_IDENTIFIER, declarePaymentIdentifierExtension, isValidPaymentId } from "@x402/extensions/payment-identifier";
import { createHash } from "node:crypto";
import { Problem } from "../basics/problem.ts";
import type { Endpoint } from "../endpoints/model.ts";
import type { Logger } from "../basics/log.ts";
import type { X402Settings } from "./settings.ts";
import { SettlementCheck, authorizationOf } from "./settlement-check.ts";
import { BAZAAR, bazaarExtension, serviceMetadata } from "./bazaar.ts";

export { encodePaymentRequiredHeader, encodePaymentResponseHeader };
export type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse };

/** USD -> USDC atomic units (6 decimals); also our micro-dollars. */
/**
 * What a client is told of a facilitator's reason: a short code (`invalid_exact_evm_signature`), never the free
 * text, calldata or addresses a facilitator may put in it (those go to the log).
 */
export function reasonCode(reason: string | undefined, fallback: string): string {
  return /^([a-z][a-z0-9_]{2,79})(?=$|[:\s])/i.exec(reason ?? "")?.[1] ?? fallback;
}

const facilitatorDown = () =>
  new Problem({ status: 503, code: "payments_unavailable", detail: "The payment facilitator cannot be reached, so no x402 payment can be taken right now. Free keys (/free) and card credit still work." });

export const toAtomic = (usd: number): number => Math.round(usd * 1_000_000);

export class Payments {
  readonly settings: X402Settings;
  private readonly log: Logger;
  private readonly server: x402ResourceServer;
  private ready?: Promise<void>;
  private readonly requirements = new Map<string, PaymentRequirements[]>();
  readonly check: SettlementCheck;

  constructor(settings: X402Settings, log: Logger) {
    this.settings = settings;
    this.log = log;
    const facilitator = new HTTPFacilitatorClient({ url: settings.facilitatorUrl, timeoutMs: 30_000 });
    this.server = new x402ResourceServer(facilitator);
    this.server.register(settings.network as `${string}:${string}`, new ExactEvmScheme());
    this.check = new SettlementCheck({ rpcUrl: settings.rpcUrl, facilitator, log });
  }

  /** Without a pay-to address the service cannot ask for x402 payments (its 402s offer a free key and credit). */
  get enabled(): boolean {
    return Boolean(this.settings.payTo);
  }

  /**
   * Reads the facilitator's supported kinds once, before the first verify; a failure is retried on the next payment.
   * Only verify and settle need it: the requirements of the EVM exact scheme are built locally.
   */
  private init(): Promise<void> {
    this.ready ??= this.server.initialize().catch((e) => {
      this.ready = undefined;
      this.log.warn({ err: e, facilitator: this.settings.facilitatorUrl }, "x402 facilitator not reachable");
      throw facilitatorDown();
    });
    return this.ready;
  }

  /**
   * The requirements of one endpoint, the same every time (the retried call is matched by deep equality). Built
   * as the library builds an explicit-price EVM exact requirement, without asking the facilitator anything.
   */
  private accepts(endpoint: Endpoint): PaymentRequirements[] {
    let built = this.requirements.get(endpoint.key);
    if (!built) {
      const s = this.settings;
      built = [{
        scheme: "exact",
        network: s.network as `${string}:${string}`,
        amount: String(toAtomic(endpoint.price)),
        asset: s.asset,
        payTo: s.payTo!,
        maxTimeoutSeconds: s.maxTimeoutSeconds,
        extra: { name: s.assetName, version: s.assetVersion },
      }];
      this.requirements.set(endpoint.key, built);
    }
    return built;
  }

  /** What a call of this endpoint is offered, for the discovery documents; none when the service takes no x402 payments. */
  offers(endpoint: Endpoint): PaymentRequirements[] {
    return this.enabled ? structuredClone(this.accepts(endpoint)) : [];
  }

  /** The x402 PaymentRequired of a call; undefined when the service takes no x402 payments. */
  paymentRequired(endpoint: Endpoint, resourceUrl: string, error = "Payment required"): PaymentRequired | undefined {
    if (!this.enabled) return undefined;
    const resource = { url: resourceUrl, mimeType: "application/json", ...serviceMetadata(endpoint) };
    return { x402Version: 2, error, resource, accepts: structuredClone(this.accepts(endpoint)), extensions: extensions(endpoint, resourceUrl) };
  }

  /** A PAYMENT-SIGNATURE header (HTTP) or _meta["x402/payment"] object (MCP) as a PaymentPayload; undefined if unreadable. */
  decode(signature?: string, payload?: unknown): PaymentPayload | undefined {
    try {
      const p = (payload ?? decodePaymentSignatureHeader(signature!)) as PaymentPayload;
      return p && typeof p === "object" && p.x402Version === 2 && p.accepted && p.payload ? p : undefined;
    } catch {
      return undefined;
    }
  }

  match(endpoint: Endpoint, payment: PaymentPayload): PaymentRequirements | undefined {
    return this.enabled ? this.server.findMatchingRequirements(this.accepts(endpoint), payment) : undefined;
  }

  /**
   * Whether a payment may pay for this call: when its payload names the resource it was signed for, that must be
   * this call (same URL; query parameters in any order). Over MCP the resource is the tool (mcp://tool/<name>),
   * as the x402 MCP transport has it, so there the arguments are not bound.
   */
  boundTo(payment: PaymentPayload, resourceUrl: string): boolean {
    const signed = payment.resource?.url;
    return signed === undefined || canonicalUrl(signed) === canonicalUrl(resourceUrl);
  }

  /** The payload's identity for the replay guard: network, asset, payer and EIP-3009 nonce (or the whole payload). */
  nonceRef(payment: PaymentPayload): string {
    const auth = (payment.payload as { authorization?: { from?: string; nonce?: string } }).authorization;
    const id = auth?.from && auth.nonce ? `${auth.from}:${auth.nonce}` : createHash("sha256").update(JSON.stringify(payment.payload)).digest("hex");
    return `${payment.accepted.network}:${payment.accepted.asset}:${id}`.toLowerCase();
  }

  /** The facilitator's verdict; throws 503 when it cannot be asked (an outage, not a refusal). */
  async verify(payment: PaymentPayload, req: PaymentRequirements): Promise<{ ok: true; payer?: string } | { ok: false; reason: string }> {
    await this.init();
    try {
      const v = await this.server.verifyPayment(payment, req);
      if (!v.isValid) this.log.info({ reason: v.invalidReason, message: v.invalidMessage }, "x402 payment refused");
      return v.isValid ? { ok: true, payer: v.payer } : { ok: false, reason: reasonCode(v.invalidReason, "invalid_payment") };
    } catch (e) {
      const err = e as { invalidReason?: string; invalidMessage?: string };
      if (err.invalidReason) {
        this.log.info({ reason: err.invalidReason, message: err.invalidMessage }, "x402 payment refused");
        return { ok: false, reason: reasonCode(err.invalidReason, "invalid_payment") };
      }
      this.log.warn({ err: e }, "x402 verify failed");
      throw facilitatorDown();
    }
  }

  /**
   * Settles after the call succeeded. A failure or a lost answer is checked against the chain before anything is
   * said: the payer is told "nothing was charged" only when that is known.
   */
  async settle(payment: PaymentPayload, req: PaymentRequirements): Promise<Settlement> {
    let failure: { reason: string; definite: boolean };
    try {
      const r = await this.server.settlePayment(payment, req);
      if (r.success) return { state: "settled", response: clientSettlement(r) };
      this.log.warn({ reason: r.errorReason, message: r.errorMessage }, "x402 settlement failed");
      failure = { reason: reasonCode(r.errorReason, "settlement_failed"), definite: true };
    } catch (e) {
      const err = e as { errorReason?: string; errorMessage?: string; message?: string };
      this.log.warn({ reason: err.errorReason, message: err.errorMessage ?? err.message }, "x402 settlement failed or its answer was lost");
      // A facilitator's own failure answer (SettleError) is definite; a timeout or a dropped connection is not.
      failure = { reason: reasonCode(err.errorReason, "unexpected_settle_error"), definite: Boolean(err.errorReason) };
    }
    const chain = await this.check.check(payment, req);
    const payer = authorizationOf(payment)?.from;
    if (chain?.used) {
      this.log.warn({ transaction: chain.transaction, payer }, "x402 settlement found on chain after a failed or lost answer");
      return { state: "settled", response: { success: true, transaction: chain.transaction, network: req.network, payer } };
    }
    // Unused now is final when the facilitator itself said it failed, or when the authorization can no longer be used.
    const expired = (authorizationOf(payment)?.validBefore ?? 0) * 1000 < Date.now();
    const failed = chain?.used === false && (failure.definite || expired);
    return { state: failed ? "failed" : "unknown", response: { success: false, errorReason: failed ? failure.reason : "settlement_unknown", transaction: "", network: req.network, payer } };
  }
}

/**
 * The extensions a 402 declares, built afresh for each (x402 clients add their answers to them in place):
 * payment-identifier, optional (docs/idempotency.md), and the Bazaar discovery metadata of the endpoint, for an
 * HTTP call or, when the resource is an MCP tool (mcp://tool/<name>), for the tool.
 */
function extensions(endpoint: Endpoint, resourceUrl: string): Record<string, unknown> {
  return {
    [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false),
    [BAZAAR.key]: bazaarExtension(endpoint, resourceUrl.startsWith("mcp://") ? "mcp" : "http"),
  };
}

/**
 * The payment identifier a payment carries (its extensions' payment-identifier info.id), or undefined; 400 when it
 * is not one (16 to 128 letters, digits, hyphens and underscores, as the extension's specification says).
 */
export function paymentIdentifier(payment: PaymentPayload): string | undefined {
  const id = (payment.extensions?.[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined)?.info?.id;
  if (id === undefined || isValidPaymentId(id as string)) return id as string | undefined;
  throw new Problem({
    status: 400,
    code: "invalid_payment_identifier",
    detail: `The payment's payment-identifier id must be 16 to 128 letters, digits, hyphens and underscores (generatePaymentId() of @x402/extensions makes one); got ${JSON.stringify(id).slice(0, 80)}. Nothing was charged.`,
    headers: { "Cache-Control": "no-store" },
  });
}

function canonicalUrl(url: string): string {
  try {
    const u = new URL(url);
    u.searchParams.sort();
    return u.href;
  } catch {
    return url;
  }
}

/** The outcome of a settlement as the client sees it: the spec's fields only, never a facilitator's free text. */
export type Settlement = { state: "settled" | "failed" | "unknown"; response: SettleResponse };

function clientSettlement(r: SettleResponse): SettleResponse {
  return { success: r.success, transaction: r.transaction, network: r.network, ...(r.payer ? { payer: r.payer } : {}), ...(r.amount ? { amount: r.amount } : {}) };
}
