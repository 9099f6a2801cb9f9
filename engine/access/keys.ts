// Free API keys: random, shown once, stored only as a SHA-256 hash.
import { createHash, randomBytes } from "node:crypto";

export const newApiKey = (): string => `pda_${randomBytes(24).toString("base64url")}`;

export const hashKey = (key: string): string => createHash("sha256").update(key).digest("hex");

/** The UTC day allowances are counted in, and the seconds until it ends. */
export function utcDay(now = new Date()): { day: string; secondsLeft: number } {
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return { day: now.toISOString().slice(0, 10), secondsLeft: Math.ceil((end - now.getTime()) / 1000) };
}
