// The computed uk-property endpoints: lease-length and estate-deadlines (England and Wales). Information, not
// legal advice: the answers say what the usual rules give for the dates supplied.
import type { PluginContext } from "../engine/plugin.ts";
import { day } from "./calculators/calendar.ts";
import { clock } from "./calculators/clock.ts";
import { assessLease } from "./calculators/lease.ts";
import { estateDeadlines as deadlines } from "./calculators/estate.ts";

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
