// Free API keys: random, shown once, stored only as a SHA-256 hash.
import { createHash, randomBytes } from "node:crypto";

export const newApiKey = (): string => `pda_${randomBytes(24).toString("base64url")}`;

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
