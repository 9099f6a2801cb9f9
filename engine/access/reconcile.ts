// npm run payments -- reconcile: settles the ledger's settlement_unknown calls against the chain. A payment whose
// authorization was used is recorded as paid (with its transaction); one that can no longer settle (its
// authorization expired unused) as not charged; the rest stay unknown until the next run.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Store } from "./store/types.ts";
import { authorizationOf, type SettlementCheck } from "./settlement-check.ts";

export interface ReconcileReport { settled: number; not_settled: number; still_unknown: number }

export async function reconcileSettlements(store: Store, check: SettlementCheck): Promise<ReconcileReport> {
  const report: ReconcileReport = { settled: 0, not_settled: 0, still_unknown: 0 };
  for (const { callId, payment: json } of await store.unknownSettlements()) {
    const { payment, requirements } = JSON.parse(json) as { payment: PaymentPayload; requirements: PaymentRequirements };
    const chain = await check.check(payment, requirements);
    if (chain?.used) {
      await store.finishCall(callId, "ok", { paymentTx: chain.transaction, detail: "settlement confirmed on chain by reconcile; the answer had been withheld" });
      report.settled++;
    } else if (chain?.used === false && (authorizationOf(payment)?.validBefore ?? 0) * 1000 < Date.now()) {
      await store.finishCall(callId, "error", { detail: "never settled: the authorization expired unused (reconcile)" });
      report.not_settled++;
    } else {
      report.still_unknown++;
    }
  }
  return report;
}
