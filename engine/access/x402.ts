// x402 v2 with the @x402/core resource server: payment requirements, verify before the call, settle after it.
// The library leaves two things to us (protocols.md §1.8, §2.1): the in-flight/used-nonce guard (in the store) and
// a deterministic price (the amount is a pure function of the endpoint).
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { createHash } from "node:crypto";
import { Problem } from "../problem.ts";
import type { Endpoint } from "../registry.ts";
import type { Logger } from "../log.ts";
import type { X402Settings } from "./settings.ts";

export { encodePaymentRequiredHeader, encodePaymentResponseHeader };
export type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse };

/** USD -> USDC atomic units (6 decimals); also our micro-dollars. */
export const toAtomic = (usd: number): number => Math.round(usd * 1_000_000);

export class Payments {
  readonly settings: X402Settings;
  private readonly log: Logger;
  private readonly server: x402ResourceServer;
  private ready?: Promise<void>;
  private readonly requirements = new Map<string, PaymentRequirements[]>();

  constructor(settings: X402Settings, log: Logger) {
    this.settings = settings;
    this.log = log;
    this.server = new x402ResourceServer(new HTTPFacilitatorClient({ url: settings.facilitatorUrl, timeoutMs: 30_000 }));
    this.server.register(settings.network as `${string}:${string}`, new ExactEvmScheme());
  }

  /** Fetches the facilitator's supported kinds once; a failure is retried on the next call. */
  private init(): Promise<void> {
    this.ready ??= this.server.initialize().catch((e) => {
      this.ready = undefined;
      this.log.warn({ err: e, facilitator: this.settings.facilitatorUrl }, "x402 facilitator not reachable");
      throw new Problem({ status: 503, code: "payments_unavailable", detail: `The payment facilitator cannot be reached, so no payment can be taken right now. Free keys (/free) and card credit still work.` });
    });
    return this.ready;
  }

  /** The requirements of one endpoint: the same every time (the retried call is matched by deep equality). */
  private async accepts(endpoint: Endpoint): Promise<PaymentRequirements[]> {
    const cached = this.requirements.get(endpoint.key);
    if (cached) return cached;
    if (!this.settings.payTo) throw new Problem({ status: 503, code: "payments_unavailable", detail: "This service has no X402_PAY_TO address configured, so it cannot take x402 payments. Use a free key (/free) instead." });
    await this.init();
    const built = await this.server.buildPaymentRequirements({
      scheme: "exact",
      network: this.settings.network as `${string}:${string}`,
      payTo: this.settings.payTo,
      price: { asset: this.settings.asset, amount: String(toAtomic(endpoint.price)), extra: { name: this.settings.assetName, version: this.settings.assetVersion } },
      maxTimeoutSeconds: this.settings.maxTimeoutSeconds,
    });
    this.requirements.set(endpoint.key, built);
    return built;
  }

  async paymentRequired(endpoint: Endpoint, resourceUrl: string, error = "Payment required"): Promise<PaymentRequired> {
    const accepts = await this.accepts(endpoint);
    return this.server.createPaymentRequiredResponse(accepts, { url: resourceUrl, description: endpoint.summary, mimeType: "application/json" }, error);
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

  async match(endpoint: Endpoint, payment: PaymentPayload): Promise<PaymentRequirements | undefined> {
    return this.server.findMatchingRequirements(await this.accepts(endpoint), payment);
  }

  /** The payload's identity for the replay guard: network, asset, payer and EIP-3009 nonce (or the whole payload). */
  nonceRef(payment: PaymentPayload): string {
    const auth = (payment.payload as { authorization?: { from?: string; nonce?: string } }).authorization;
    const id = auth?.from && auth.nonce ? `${auth.from}:${auth.nonce}` : createHash("sha256").update(JSON.stringify(payment.payload)).digest("hex");
    return `${payment.accepted.network}:${payment.accepted.asset}:${id}`.toLowerCase();
  }

  async verify(payment: PaymentPayload, req: PaymentRequirements): Promise<{ ok: true; payer?: string } | { ok: false; reason: string }> {
    try {
      const v = await this.server.verifyPayment(payment, req);
      return v.isValid ? { ok: true, payer: v.payer } : { ok: false, reason: v.invalidReason ?? "invalid_payment" };
    } catch (e) {
      const reason = (e as { invalidReason?: string }).invalidReason;
      if (!reason) this.log.warn({ err: e }, "x402 verify failed");
      return { ok: false, reason: reason ?? "the facilitator could not verify the payment" };
    }
  }

  async settle(payment: PaymentPayload, req: PaymentRequirements): Promise<SettleResponse> {
    try {
      return await this.server.settlePayment(payment, req);
    } catch (e) {
      const err = e as { errorReason?: string; transaction?: string; payer?: string; message?: string };
      this.log.warn({ reason: err.errorReason, message: err.message?.slice(0, 300) }, "x402 settlement failed");
      return { success: false, errorReason: err.errorReason ?? "unexpected_settle_error", transaction: err.transaction ?? "", network: req.network, payer: err.payer };
    }
  }
}
