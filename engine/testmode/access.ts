// Who pays for a test-mode call: nobody. A test key (pda_test_…) must be a key of this service (401 otherwise);
// its calls are counted against its own daily bucket (TEST_CALLS_PER_DAY, not the live allowances) and written to
// the ledger at price 0 under the principal "test:<key id>", apart from every live key's and payer's rows. An x402
// payment sent with it is read for shape only and answered with a test settlement: nothing reaches a facilitator.
import { Problem } from "../basics/problem.ts";
import { isAccessService, type AccessService } from "../access/index.ts";
import { utcDay } from "../access/keys.ts";
import { encodePaymentResponseHeader, type PaymentPayload, type SettleResponse } from "../access/x402.ts";
import { rateLimitHeaders } from "../access/allowance-headers.ts";
import type { Access, CallRequest, Grant, Receipt } from "../access/types.ts";
import type { KeyRecord } from "../access/store/types.ts";

/** Calls a test key may make a UTC day (all endpoints together). */
export const TEST_CALLS_PER_DAY = 10_000;
export const TEST_BUCKET = "test-mode";

export const testPrincipal = (key: KeyRecord) => `test:${key.id}`;

/** The access layer of one test-mode call, made with this test key. */
export function testAccess(access: Access, apiKey: string): Access {
  return {
    authorize: (call) => (isAccessService(access) ? authorizeTest(access, apiKey, call) : Promise.resolve(uncounted(call))),
    close: async () => {},
  };
}

async function authorizeTest(access: AccessService, apiKey: string, call: CallRequest): Promise<Grant> {
  const key = await access.keyFor(apiKey);
  const settlement = testSettlement(access, call);
  const { day, secondsLeft } = utcDay();
  const claims = [{ id: TEST_BUCKET, limit: TEST_CALLS_PER_DAY }];
  const begun = await access.store.beginCall({ endpoint: call.endpoint.key, principal: testPrincipal(key), channel: call.channel, priceMicro: 0, paidBy: "allowance", day, buckets: claims });
  const headers = begun.ok && begun.used ? rateLimitHeaders(claims, begun.used, secondsLeft) : {};
  if (!begun.ok) {
    throw new Problem({
      status: 429,
      code: "test_allowance_exhausted",
      detail: `This test key made its ${TEST_CALLS_PER_DAY} test calls today (UTC); retry in ${secondsLeft} seconds, or get another test key at POST /free?mode=test.`,
      headers: { "Retry-After": String(secondsLeft), "Cache-Control": "no-store" },
      extra: { test_mode: true, retry_after_seconds: secondsLeft },
    });
  }
  return {
    paidBy: settlement ? "x402" : "free",
    headers,
    commit: async (): Promise<Receipt> => {
      await access.store.finishCall(begun.callId, "ok");
      return settlement ? { headers: { "PAYMENT-RESPONSE": encodePaymentResponseHeader(settlement) }, meta: { payment_response: settlement } } : { headers: {}, meta: {} };
    },
    release: async (problem) => void (await access.store.finishCall(begun.callId, "error", { detail: `${problem.status} ${problem.code}` })),
  };
}

/** Without the service's access layer (engine tests), a test call is let through and counted nowhere. */
function uncounted(_call: CallRequest): Grant {
  return { paidBy: "free", headers: {}, commit: async () => ({ headers: {}, meta: {} }), release: async () => {} };
}

/**
 * The settlement a test-mode x402 payment gets: a payment that reads as an x402 v2 PaymentPayload is "settled"
 * with a zero transaction hash and extra.test_mode; anything else is refused as a live one would be.
 */
function testSettlement(access: AccessService, call: CallRequest): SettleResponse | undefined {
  if (call.paymentSignature === undefined && call.paymentPayload === undefined) return undefined;
  const payment: PaymentPayload | undefined = access.payments.decode(call.paymentSignature, call.paymentPayload);
  if (!payment) {
    throw new Problem({
      status: 402,
      code: "payment_invalid",
      detail: "The payment could not be read: it must be an x402 v2 PaymentPayload (base64 JSON in PAYMENT-SIGNATURE; an object in _meta[\"x402/payment\"] over MCP). Test mode: nothing was sent to a facilitator.",
      headers: { "Cache-Control": "no-store" },
      extra: { x402_error: "invalid_payload", test_mode: true },
    });
  }
  const from = (payment.payload as { authorization?: { from?: string } }).authorization?.from;
  return {
    success: true,
    transaction: `0x${"0".repeat(64)}`,
    network: payment.accepted.network,
    ...(from ? { payer: from } : {}),
    amount: "0",
    extra: { test_mode: true, note: "A test settlement: nothing was sent to a facilitator and nothing was charged." },
  };
}
