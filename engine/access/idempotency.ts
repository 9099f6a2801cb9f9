// Pay once (docs/idempotency.md). A call sent with an Idempotency-Key (per key or MCP client) or paid with an x402
// payment carrying a payment identifier (per payer) runs once: for 24 hours the same id with the same request gets
// the answer the first call sent, and is not charged again; the same id with another request is refused. The id is
// claimed in the store before the call runs, so duplicates sent at once, or to several instances, run once too.
import { createHash } from "node:crypto";
import { Problem } from "../basics/problem.ts";
import type { Logger } from "../basics/log.ts";
import type { Store } from "./store/types.ts";
import type { CallAnswer, CallRequest, Grant, PaidBy } from "./types.ts";

/** How long an id and its answer are kept: Stripe's 24 hours. */
export const ONCE_TTL_MS = 24 * 3600_000;

/** Idempotency-Key or payment identifier: they differ only in what a refusal says. */
export type OnceKind = "key" | "payment";

const KEY = /^[A-Za-z0-9._:~+/=-]{1,255}$/;

/**
 * The Idempotency-Key of a call, checked (400 when malformed), or undefined when none was sent. A UUID is the usual
 * key; the quotes of the structured-field form (draft-ietf-httpapi-idempotency-key-header: `"8e03978e-…"`) are dropped.
 */
export function idempotencyKey(sent: unknown): string | undefined {
  if (sent === undefined) return undefined;
  const key = typeof sent === "string" ? sent.replace(/^"(.*)"$/, "$1") : "";
  if (KEY.test(key)) return key;
  throw new Problem({
    status: 400,
    code: "invalid_idempotency_key",
    detail: `The Idempotency-Key must be a string of 1 to 255 letters, digits and . _ : ~ + / = - (a UUID is a good key); got ${JSON.stringify(sent)?.slice(0, 80)}. Nothing was run or charged.`,
  });
}

/**
 * The request an id is bound to: method, path and the parameters as sent, sorted by name (the values of a repeated
 * parameter keep their order). Over MCP the arguments are the parameters, so a tool call and the same GET agree.
 */
export function requestOf(call: Pick<CallRequest, "endpoint" | "query">): string {
  const pairs = Object.entries(call.query)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, typeof v === "string" ? v : JSON.stringify(v)]));
  return `GET /v1/${call.endpoint.key}?${new URLSearchParams(pairs)}`;
}

/** What "the same request" is compared by: a digest of its parts. */
export const fingerprint = (...parts: unknown[]): string => createHash("sha256").update(JSON.stringify(parts)).digest("hex");

type Refusal = { status: number; code: string; detail: string };

/** Why an id cannot run this call: used for another request, or held by a call still running (then retry soon). */
const REFUSALS: Record<OnceKind, { reused: Refusal; inUse: Refusal }> = {
  key: {
    reused: {
      status: 422,
      code: "idempotency_key_reused",
      detail: "This Idempotency-Key was used in the last 24 hours for another request (another endpoint or other parameters): a key stands for one request, whose answer it gets again. Send a new key with a new request. Nothing was run or charged.",
    },
    inUse: {
      status: 409,
      code: "idempotency_key_in_use",
      detail: "A call with this Idempotency-Key is still running. Retry in a moment: once it has finished, the same request with the same key gets its answer, without being charged again.",
    },
  },
  payment: {
    reused: {
      status: 409,
      code: "payment_identifier_reused",
      detail: "This payment identifier was used in the last 24 hours with another payment (another resource or tool arguments, or other payment requirements): an identifier stands for one payment, whose answer a retry gets again. Use a new identifier for a new payment (generatePaymentId() of @x402/extensions makes one). Nothing was charged.",
    },
    inUse: {
      status: 409,
      code: "payment_identifier_in_use",
      detail: "A call paid with this payment identifier is still running, or whether its payment settled is not known yet. Retry in a moment: once it has finished, a retry with the same identifier gets its answer without paying again.",
    },
  },
};

/** A refusal as a problem, made afresh each time (the pipeline adds headers to the problem it is given). */
const refused = ({ status, code, detail }: Refusal, retryAfter?: string) =>
  new Problem({ status, code, detail, headers: { "Cache-Control": "no-store", ...(retryAfter ? { "Retry-After": retryAfter } : {}) } });

export class Idempotency {
  private readonly store: Store;
  private readonly log: Logger;

  constructor(store: Store, log: Logger) {
    this.store = store;
    this.log = log;
  }

  /**
   * Runs `charge` (the access decision) once for this id of this scope (the caller, or the payer), `request` being
   * the fingerprint of the request: an earlier call's answer is replayed; a call still running with the id, or
   * another request with it, is refused. The grant of a claimed id keeps the call's answer when it succeeded and
   * lets the id go when it failed, so that a retry runs again.
   */
  async run(kind: OnceKind, scope: string, id: string, request: string, charge: () => Promise<Grant>): Promise<Grant> {
    const found = await this.store.claimOnce({ scope, id, fingerprint: request, expiresAt: Date.now() + ONCE_TTL_MS });
    if (!found.claimed) {
      if (found.fingerprint !== request) throw refused(REFUSALS[kind].reused);
      if (found.answer === undefined) throw refused(REFUSALS[kind].inUse, "1");
      return replayed(JSON.parse(found.answer) as CallAnswer);
    }
    let grant: Grant;
    try {
      grant = await charge();
    } catch (e) {
      await this.store.releaseOnce(scope, id);
      throw e;
    }
    // Paid with a payment identifier seen before: the answer it replays is this id's answer too.
    if (grant.replay) {
      await this.keep(scope, id, grant.replay);
      return grant;
    }
    return {
      ...grant,
      commit: async () => {
        try {
          return await grant.commit();
        } catch (e) {
          // A payment whose settlement is not known may have been charged: its id stays held, and a retry is told so.
          if (!(e instanceof Problem && e.code === "settlement_unknown")) await this.store.releaseOnce(scope, id);
          throw e;
        }
      },
      release: async (problem) => {
        try {
          return await grant.release(problem);
        } finally {
          await this.store.releaseOnce(scope, id);
        }
      },
      keep: async (answer) => {
        await grant.keep?.(answer);
        await this.keep(scope, id, answer);
      },
    };
  }

  /**
   * The call was charged and is answered: a failure to keep its answer is logged, not sent to the caller, and the id
   * stays held (a retry is told the call is running) rather than freed to charge twice.
   */
  private async keep(scope: string, id: string, answer: CallAnswer): Promise<void> {
    try {
      await this.store.keepOnce(scope, id, JSON.stringify(answer));
    } catch (err) {
      this.log.error({ err, scope }, "the answer of an idempotent call could not be kept");
    }
  }
}

/** The grant of a replay: nothing to charge or give back. */
function replayed(answer: CallAnswer): Grant {
  return {
    paidBy: answer.body.meta.paid_by as PaidBy,
    headers: {},
    replay: answer,
    commit: async () => ({ headers: {}, meta: {} }),
    release: async () => undefined,
  };
}
