// What the access layer keeps: keys, daily allowance counters, the call ledger, card credit and x402 nonces.
// Two implementations of one interface: SQLite (default) and PostgreSQL (DATABASE_URL); see index.ts beside it.

export type PaidBy = "allowance" | "credit" | "x402";
/**
 * pending -> ok | error (nothing charged) | interrupted (its instance stopped: given back) | settlement_unknown (x402:
 * the facilitator's answer was lost and the chain could not tell). interrupted -> ok when the call finishes after all
 * (charged again), or uncharged when its credit no longer covers it. settlement_unknown -> ok | error by reconcile.
 */
export type Outcome = "pending" | "ok" | "error" | "interrupted" | "settlement_unknown" | "uncharged";

export interface KeyRecord {
  id: string;
  clientId: string;
  label?: string;
  createdAt: number;
  creditMicro: number;
}

export interface BucketClaim {
  /** Bucket id, e.g. "group:bank-of-england". */
  id: string;
  /** Calls a day this principal may make from it. */
  limit: number;
}

export interface BeginCall {
  endpoint: string;
  principal: string;
  channel: string;
  priceMicro: number;
  paidBy: PaidBy;
  /** UTC day (YYYY-MM-DD) the allowance is counted against. */
  day: string;
  /** paidBy allowance: every bucket must have room; all are counted or none. */
  buckets?: BucketClaim[];
  /** paidBy credit: the key whose balance pays the price. */
  keyId?: string;
  /** paidBy x402: the claimed nonce (see claimNonce). */
  paymentRef?: string;
  /**
   * Allowance and credit: the call has already succeeded (its answer was at hand), so the charge is recorded as
   * final (ok) in the same commit, and no finishCall follows.
   */
  final?: boolean;
}

/** ok: the reservation, and (allowance) each bucket's use today counting this call. */
export type BeginResult = { ok: true; callId: string; used?: Map<string, number> } | { ok: false; reason: "allowance" | "credit"; bucket?: string };

export interface CallRecord {
  id: string;
  at: number;
  endpoint: string;
  principal: string;
  channel: string;
  priceMicro: number;
  paidBy: PaidBy;
  outcome: Outcome;
  /** x402: the payment's network (CAIP-2), asset and identity, "<network>:<asset>:<payer>:<nonce>" (see Payments.nonceRef). */
  paymentRef?: string;
  paymentTx?: string;
  detail?: string;
}

export interface CreditEntry {
  keyId: string;
  deltaMicro: number;
  kind: string;
  /** Idempotency reference (e.g. a Stripe checkout session): an entry with a known ref is not applied twice. */
  ref?: string;
  note?: string;
}

/**
 * What claimOnce found: the (scope, id) is now this call's, or an earlier call holds it: still running (no answer
 * yet), or answered (the answer it sent, as JSON).
 */
export type OnceClaim = { claimed: true } | { claimed: false; fingerprint: string; answer?: string };

export interface Store {
  /** Stores a new key (its hash only); undefined when this client already minted maxPerDay keys today. */
  mintKey(p: { hash: string; clientId: string; day: string; maxPerDay: number; label?: string }): Promise<KeyRecord | undefined>;
  findKey(hash: string): Promise<KeyRecord | undefined>;
  keyById(id: string): Promise<KeyRecord | undefined>;

  /** Reserves the charge of a call (allowance, credit) and writes its pending ledger row (ok, when final), atomically. */
  beginCall(p: BeginCall): Promise<BeginResult>;
  /**
   * ok: the charge stands. error: the call failed, so the reservation is given back (allowance, credit, nonce);
   * an allowance call recorded as final at once is given back too (once: its row becomes error).
   * Also resolves a settlement_unknown call (ok with its transaction, or error: it never settled).
   */
  finishCall(callId: string, outcome: "ok" | "error", p?: { detail?: string; paymentTx?: string }): Promise<void>;
  /** The service stops with these allowance calls, recorded as final at once, not answered: each is given back as interrupted. */
  interruptCalls(callIds: string[]): Promise<void>;
  /**
   * Gives back the reservations of pending calls whose instance is gone or let its lease run out (never this
   * instance's own, never a live one's); with othersGone, of every other instance (SQLite at start-up: one process
   * serves the file). Answers how many. Safe to run on several instances at once: each call is given back once.
   * Also frees those instances' idempotency claims, and forgets the expired ones.
   */
  recoverInterrupted(opts?: { othersGone?: boolean }): Promise<number>;

  /** x402: the settlement's outcome is not known; `payment` (JSON of the payload and requirements) lets reconcile ask the chain later. */
  settlementUnknown(callId: string, payment: string): Promise<void>;
  /** The calls left in settlement_unknown, oldest first. */
  unknownSettlements(): Promise<{ callId: string; payment: string }[]>;

  /** Claims an x402 payment nonce; false when it is in flight or was used (a replay). */
  claimNonce(ref: string): Promise<boolean>;
  /** After a payment that was not settled: the payload may be tried again. */
  releaseNonce(ref: string): Promise<void>;

  /**
   * Pay once: claims (scope, id) for a call of this fingerprint until expiresAt, unless a call holds it (an
   * expired record is taken over). The claim is this instance's until keepOnce or releaseOnce.
   */
  claimOnce(p: { scope: string; id: string; fingerprint: string; expiresAt: number }): Promise<OnceClaim>;
  /** The claimed call succeeded: its answer (JSON) is what a retry gets. */
  keepOnce(scope: string, id: string, answer: string): Promise<void>;
  /** The claimed call failed (nothing was charged): the next call with this id runs. */
  releaseOnce(scope: string, id: string): Promise<void>;

  /** Today's use of each bucket by this principal. */
  usage(principal: string, day: string): Promise<Map<string, number>>;
  recentCalls(principal: string, limit: number): Promise<CallRecord[]>;
  calls(filter?: { principal?: string; endpoint?: string }): Promise<CallRecord[]>;

  /** Appends a credit entry and moves the balance; false when the ref was already applied or the balance would go negative. */
  addCredit(entry: CreditEntry): Promise<boolean>;
  creditEntries(keyId: string): Promise<(CreditEntry & { at: number })[]>;

  close(): Promise<void>;
}
