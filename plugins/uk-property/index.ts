// The uk-property plugins. Computed here: lease-length and estate-deadlines (England and Wales; information, not
// legal advice). From upstreams, beside this file: planning constraints (planning.ts, planning.data.gov.uk) and the
// area report (area.ts, with prices.ts). Sold prices, the price summary, the house price index and revaluation are
// YAML steps.
import { badParam } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { day } from "../shared/calendar.ts";
import { clock } from "../shared/clock.ts";
import { assessLease } from "./lease.ts";
import { estateDeadlines as deadlines } from "./estate.ts";

export function leaseLength(ctx: PluginContext) {
  return assessLease(day(ctx.params.lease_start as string), ctx.params.term_years as number, clock.today());
}

export function estateDeadlines(ctx: PluginContext) {
  const p = ctx.params;
  const opt = (name: string) => (p[name] === undefined ? undefined : day(p[name] as string));
  const input = { dateOfDeath: opt("date_of_death"), grantDate: opt("grant_date"), noticeDate: opt("notice_claim_date"), grossEstate: p.gross_estate as number | undefined };
  // The endpoint file has checked the dates (none in the future, none before the death) and that one is given.
  return deadlines(input, clock.today());
}
