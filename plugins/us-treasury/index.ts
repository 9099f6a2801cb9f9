// us-treasury/yield-history: the daily par yield curve is published as one CSV per year, so a range reads each
// year's file (concurrently, through the shared client and its cache); at most the last MAX_YEARS of a longer
// range. The endpoint's transform picks the maturity and the days.
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

const MAX_YEARS = 5;
const HOUR = 3_600_000;

export const curveRequest = (year: number) => ({
  source: "us-treasury",
  path: `/resource-center/data-chart-center/interest-rates/daily-treasury-rates.csv/${year}/all`,
  query: { type: "daily_treasury_yield_curve", field_tdr_date_value: String(year), _format: "csv" },
  format: "csv" as const,
  cacheMs: HOUR,
  expect: { match: /^\s*"?Date"?,/ },
});

export async function yieldHistory(ctx: PluginContext): Promise<Record<string, unknown>> {
  const { from, to } = ctx.params as { from: string; to: string };
  const last = Number(to.slice(0, 4));
  const first = Math.max(Number(from.slice(0, 4)), last - MAX_YEARS + 1);
  const years = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  const files = await Promise.all(years.map(async (y) => {
    const rows = await ctx.fetch(curveRequest(y));
    if (!Array.isArray(rows)) throw new UpstreamError("unexpected", "us-treasury", `https://home.treasury.gov${curveRequest(y).path}`, "answered without the CSV rows");
    return rows as Record<string, string>[];
  }));
  return { rows: files.flat(), skipped_before: first > Number(from.slice(0, 4)) ? String(first) : null };
}
