// Allowance state on every response, as draft-ietf-httpapi-ratelimit-headers (RateLimit-Policy and RateLimit):
//   RateLimit-Policy: "group:bank-of-england";q=1000;w=86400
//   RateLimit: "group:bank-of-england";r=998;t=3600
import type { BucketClaim } from "./store/types.ts";

export function rateLimitHeaders(claims: BucketClaim[], used: Map<string, number>, secondsLeft: number): Record<string, string> {
  if (!claims.length) return {};
  return {
    "RateLimit-Policy": claims.map((c) => `"${c.id}";q=${c.limit};w=86400`).join(", "),
    RateLimit: claims.map((c) => `"${c.id}";r=${Math.max(0, c.limit - (used.get(c.id) ?? 0))};t=${secondsLeft}`).join(", "),
  };
}
