// x402 v2 with the @x402/core resource server: payment requirements, verify before the call, settle after it.
// The library leaves two things to us (protocols.md §1.8, §2.1): the in-flight/used-nonce guard (in the store) and
// a deterministic price (the amount is a pure function of the endpoint).
import { x402ResourceServer } from "@x402/core/server";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { createRequire } from "node:module";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SchemeNetworkServer, SettleResponse, SupportedResponse } from "@x402/core/types";
import { PAYMENT_IDENTIFIER, declarePaymentIdentifierExtension, isValidPaymentId } from "@x402/extensions/payment-identifier";
import { createHash } from "node:crypto";
import { Problem } from "../basics/problem.ts";
import type { Endpoint } from "../endpoints/model.ts";
import type { Logger } from "../basics/log.ts";
import type { NetworkSettings, X402Settings } from "./settings.ts";
import { SettlementCheck, authorizationOf } from "./settlement-check.ts";
import { FacilitatorWatch, facilitatorClient } from "./facilitator.ts";
import { BAZAAR, bazaarExtension, serviceMetadata } from "./bazaar.ts";

const require = createRequire(import.meta.url);
/** @x402/svm (Solana) costs 31 MB and 120 ms at start-up: it is loaded only where a Solana network is configured. */
const solanaScheme = (): SchemeNetworkServer => new (require("@x402/svm/exact/server") as typeof import("@x402/svm/exact/server")).ExactSvmScheme();

export { encodePaymentRequiredHeader, encodePaymentResponseHeader };
export type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse };

/**
 * What a client is told of a facilitator's reason: a short code (`invalid_exact_evm_signature`), never the free
 * text, calldata or addresses a facilitator may put in it (those go to the log).
 */
export function reasonCode(reason: string | undefined, fallback: string): string {
  return /^([a-z][a-z0-9_]{2,79})(?=$|[:\s])/i.exec(reason ?? "")?.[1] ?? fallback;
}

const facilitatorDown = () =>
  new Problem({ status: 503, code: "payments_unavailable", detail: "The payment facilitator cannot be reached, so no x402 payment can be taken right now. Free keys (/free) and card credit still work." });

/** USD -> USDC atomic units (6 decimals, on every network); also our micro-dollars. */
export const toAtomic = (usd: number): number => Math.round(usd * 1_000_000);

/** What one network's requirements carry besides amount and pay-to: its token and the scheme's extra. */
interface Offer { network: `${string}:${string}`; asset: string; payTo: string; extra: Record<string, unknown> }

export class Payments {
  readonly settings: X402Settings;
  private readonly log: Logger;
  private readonly server: x402ResourceServer;
  private readonly schemes = new Map<string, SchemeNetworkServer>();
  /** Each network's token and extra before the facilitator's kind is applied (from the scheme's USDC table). */
  private readonly tokens = new Map<string, { asset: string; extra: Record<string, unknown> }>();
  private offers: Offer[] = [];
  private readonly requirements = new Map<string, PaymentRequirements[]>();
  readonly check: SettlementCheck;
  readonly facilitator: FacilitatorWatch;

  constructor(settings: X402Settings, log: Logger) {
    this.settings = settings;
    this.log = log;
    const facilitator = facilitatorClient(settings);
    this.server = new x402ResourceServer(facilitator);
    for (const n of settings.networks) {
      const scheme = n.family === "solana" ? solanaScheme() : new ExactEvmScheme();
      this.schemes.set(n.network, scheme);
      this.server.register(n.network, scheme);
    }
    this.check = new SettlementCheck({ rpcUrl: settings.rpcUrl, facilitator, log });
    this.facilitator = new FacilitatorWatch({ client: facilitator, networks: this.payable.map((n) => n.network), url: settings.facilitatorUrl, log, onAnswer: (s) => this.applySupported(s) });
  }

  /** The networks with a pay-to address: the service takes x402 payments when there is one. */
  private get payable(): NetworkSettings[] {
    return this.settings.networks.filter((n) => n.payTo);
  }

  get enabled(): boolean {
    return this.payable.length > 0;
  }

  /** Whether a 402 offers x402 now (some network is offered). */
  get offering(): boolean {
    return this.offers.length > 0;
  }

  /**
   * Resolves each network's USDC (the start fails on a network without a known one and no X402_ASSET) and starts
   * reading the facilitator's /supported. Until its first answer, the EVM networks are offered (their requirements
   * need nothing from the facilitator); a Solana network needs its fee payer, so it waits for that answer.
   */
  async start(): Promise<void> {
    for (const n of this.payable) {
      if (n.asset) {
        this.tokens.set(n.network, { asset: n.asset.asset, extra: { name: n.asset.name, version: n.asset.version } });
        continue;
      }
      try {
        const { asset, extra } = await this.schemes.get(n.network)!.parsePrice("$1", n.network);
        this.tokens.set(n.network, { asset, extra: extra ?? {} });
      } catch (e) {
        throw new Error(`x402: no USDC is known on ${n.network} (${(e as Error).message}); set X402_ASSET (with X402_ASSET_NAME and X402_ASSET_VERSION) or leave the network out of X402_NETWORKS`);
      }
    }
    this.setOffers(this.payable.filter((n) => n.family === "evm").map((n) => this.offerOf(n)));
    if (this.enabled) this.facilitator.start(this.settings.supportedRefreshMs);
  }

  stop(): void {
    this.facilitator.stop();
  }

  /** After each answer of /supported: offer exactly the networks it settles, with what its kind adds (Solana's fee payer). */
  private async applySupported(supported: SupportedResponse): Promise<void> {
    const offers: Offer[] = [];
    for (const n of this.payable) {
      const kind = this.facilitator.kind(n.network);
      if (!kind) continue;
      const offer = this.offerOf(n);
      const base: PaymentRequirements = { scheme: "exact", amount: "0", maxTimeoutSeconds: this.settings.maxTimeoutSeconds, ...offer };
      const { extra } = await this.schemes.get(n.network)!.enhancePaymentRequirements(base, kind, supported.extensions ?? []);
      offers.push({ ...offer, extra: extra ?? {} });
    }
    this.setOffers(offers);
  }

  private offerOf(n: NetworkSettings): Offer {
    const token = this.tokens.get(n.network)!;
    return { network: n.network, asset: token.asset, payTo: n.payTo!, extra: { ...token.extra } };
  }

  /** A change of offers drops the requirements built from the old ones (an unchanged answer keeps them). */
  private setOffers(offers: Offer[]): void {
    if (JSON.stringify(offers) === JSON.stringify(this.offers)) return;
    this.offers = offers;
    this.requirements.clear();
  }

  /** Per configured network: whether the facilitator settles it, and whether the 402 offers it now (/health). */
  health(): Record<string, unknown> {
    if (!this.enabled) return { x402: false, detail: "no pay-to address is set (X402_PAY_TO, X402_PAY_TO_SOLANA): 402 answers offer free keys and card credit only" };
    const offered = new Set<string>(this.offers.map((o) => o.network));
    const states = this.facilitator.states();
    return {
      x402: true,
      ready: states.every((s) => s.state === "supported"),
      facilitator: { ...this.facilitator.health(), auth: this.settings.cdp ? "cdp" : "none" },
      networks: [
        ...states.map((s) => ({ ...s, pay_to: this.payable.find((n) => n.network === s.network)!.payTo, offered: offered.has(s.network) })),
        ...this.settings.networks.filter((n) => !n.payTo).map((n) => ({ network: n.network, state: "no_pay_to", detail: `not offered: ${n.family === "solana" ? "X402_PAY_TO_SOLANA" : "X402_PAY_TO"} is not set`, offered: false })),
      ],
    };
  }

  /**
   * The requirements of one endpoint, one per offered network, the same every time while the offers stand (the
   * retried call is matched by deep equality). Built as the library builds an explicit-price exact requirement.
   */
  private accepts(endpoint: Endpoint): PaymentRequirements[] {
    let built = this.requirements.get(endpoint.key);
    if (!built) {
      const amount = String(toAtomic(endpoint.price));
      built = this.offers.map((o) => ({ scheme: "exact", network: o.network, amount, asset: o.asset, payTo: o.payTo, maxTimeoutSeconds: this.settings.maxTimeoutSeconds, extra: structuredClone(o.extra) }));
      this.requirements.set(endpoint.key, built);
    }
    return built;
  }

  /** What a call of this endpoint is offered now, for the discovery documents; none when no network is offered. */
  offersFor(endpoint: Endpoint): PaymentRequirements[] {
    return this.offering ? structuredClone(this.accepts(endpoint)) : [];
  }

  /** The x402 PaymentRequired of a call; undefined when the service takes no x402 payments. */
  paymentRequired(endpoint: Endpoint, resourceUrl: string, error = "Payment required"): PaymentRequired | undefined {
    if (!this.offering) return undefined;
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

  /**
   * The payload's identity for the replay guard and the ledger: network, asset, payer and EIP-3009 nonce (EVM
   * addresses in lower case), or network, mint and a hash of the signed transaction (Solana: base58 keeps its case).
   */
  nonceRef(payment: PaymentPayload): string {
    const auth = (payment.payload as { authorization?: { from?: string; nonce?: string } }).authorization;
    if (auth?.from && auth.nonce) return `${payment.accepted.network}:${`${payment.accepted.asset}:${auth.from}:${auth.nonce}`.toLowerCase()}`;
    return `${payment.accepted.network}:${payment.accepted.asset}:${createHash("sha256").update(JSON.stringify(payment.payload)).digest("hex")}`;
  }

  /**
   * Who pays, as the payment itself says (before the facilitator is asked): the EIP-3009 authorization's `from`, or
   * the owner of the Solana transfer's source account; undefined when it cannot be read.
   */
  async payerOf(payment: PaymentPayload): Promise<string | undefined> {
    const from = authorizationOf(payment)?.from;
    if (from) return from.toLowerCase();
    if (!payment.accepted.network.startsWith("solana:")) return undefined;
    try {
      const { decodeTransactionFromPayload, getTokenPayerFromTransaction } = await import("@x402/svm");
      return getTokenPayerFromTransaction(decodeTransactionFromPayload(payment.payload as { transaction: string })) || undefined;
    } catch {
      return undefined;
    }
  }

  /** The facilitator's verdict; throws 503 when it cannot be asked (an outage, not a refusal). */
  async verify(payment: PaymentPayload, req: PaymentRequirements): Promise<{ ok: true; payer?: string } | { ok: false; reason: string }> {
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
    // Without an EIP-3009 authorization (a Solana transaction) nothing can be read back: the facilitator's word decides.
    const auth = authorizationOf(payment);
    const expired = (auth?.validBefore ?? 0) * 1000 < Date.now();
    const failed = auth ? chain?.used === false && (failure.definite || expired) : failure.definite;
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
