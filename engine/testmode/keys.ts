// Test keys: minted like free keys (as many per client address a day, counted apart from them: the address is
// recorded as "test:<address>"), labelled "test", and told apart by their prefix.
import type { AccessService } from "../access/index.ts";
import type { KeyRecord } from "../access/store/types.ts";
import { hashKey, newTestKey, utcDay } from "../access/keys.ts";
import { TEST_BUCKET, TEST_CALLS_PER_DAY, testPrincipal } from "./access.ts";

export const TEST_KEY_NOTE = "A test key: every call is answered from the endpoint's own examples (recorded upstream answers, meta.test_mode: true), free, offline and the same every time. Switch to a live key (POST /free) by changing only the key.";

export async function mintTestKey(access: AccessService, clientId: string): Promise<{ key: string; record: KeyRecord } | undefined> {
  const key = newTestKey();
  const record = await access.store.mintKey({ hash: hashKey(key), clientId: `test:${clientId}`, day: utcDay().day, maxPerDay: access.settings.freeKeysPerDay, label: "test" });
  return record && { key, record };
}

/** GET /account for a test key: its test calls today and its recent calls (ledger rows at price 0). */
export async function testAccount(access: AccessService, key: KeyRecord): Promise<Record<string, unknown>> {
  const { day, secondsLeft } = utcDay();
  const principal = testPrincipal(key);
  const used = (await access.store.usage(principal, day)).get(TEST_BUCKET) ?? 0;
  const recent = await access.store.recentCalls(principal, 20);
  return {
    mode: "test",
    key_id: key.id,
    created_at: new Date(key.createdAt).toISOString(),
    note: TEST_KEY_NOTE,
    day,
    resets_in_seconds: secondsLeft,
    test_calls: { limit: TEST_CALLS_PER_DAY, used, left: Math.max(0, TEST_CALLS_PER_DAY - used) },
    recent_calls: recent.map((c) => ({ at: new Date(c.at).toISOString(), endpoint: c.endpoint, channel: c.channel, price_usd: 0, outcome: c.outcome })),
  };
}
