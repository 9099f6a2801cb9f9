/** "30s", "15m", "1h", "1d" or "0" -> milliseconds. */
export function durationMs(text: string | undefined): number {
  if (!text || text === "0") return 0;
  const m = /^(\d+)(s|m|h|d)$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "s" | "m" | "h" | "d"];
  return Number(m[1]) * unit;
}
