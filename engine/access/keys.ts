// Free API keys: random, shown once, stored only as a SHA-256 hash. Test keys (pda_test_…) answer in test mode.
import { createHash, randomBytes } from "node:crypto";

const TEST_PREFIX = "pda_test_";

/** A live key; never one that reads as a test key. */
export function newApiKey(): string {
  for (;;) {
    const key = `pda_${randomBytes(24).toString("base64url")}`;
    if (!isTestKey(key)) return key;
  }
}

/** A test-mode key (docs/test-mode.md): its prefix says so, and it is all that decides a call's mode. */
export const newTestKey = (): string => `${TEST_PREFIX}${randomBytes(24).toString("base64url")}`;

export const isTestKey = (key: string | undefined): boolean => key?.startsWith(TEST_PREFIX) ?? false;

export const hashKey = (key: string): string => createHash("sha256").update(key).digest("hex");

let today = { day: "", start: 0, end: 0 };

/** The UTC day allowances are counted in, and the seconds until it ends. */
export function utcDay(now = new Date()): { day: string; secondsLeft: number } {
  const ms = now.getTime();
  // Worked out once a day: every call asks.
  if (ms < today.start || ms >= today.end) {
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    today = { day: now.toISOString().slice(0, 10), start, end: start + 86_400_000 };
  }
  return { day: today.day, secondsLeft: Math.ceil((today.end - ms) / 1000) };
}
