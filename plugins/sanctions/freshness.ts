// Whether a list copy can be trusted to be current: every screening answer says, per list, how old it is and
// whence that date, and flags a list older than the refresh interval plus a margin. The margin allows for lists
// that are not republished every day (OFAC publishes when something changes); a flag names the date, so the
// caller can judge.
import { durationMs } from "../../engine/basics/duration.ts";
import type { ListInfo } from "./store.ts";

const DAY_MS = 86_400_000;
/** How much older than the refresh interval a list may be before it is flagged. */
export const STALE_MARGIN_DAYS = 7;

export interface Freshness {
  list_date: string | null;
  list_date_from: ListInfo["list_date_from"] | null;
  /** null when the list's date is unknown. */
  stale: boolean | null;
  stale_reason?: string;
}

export function freshness(l: ListInfo, loadedAt: string, refresh: string, now = Date.now()): Freshness {
  const base = { list_date: l.list_date ?? null, list_date_from: l.list_date_from ?? (l.list_date ? "publication" : null) };
  const limit = durationMs(refresh) + STALE_MARGIN_DAYS * DAY_MS;
  const loaded = Date.parse(loadedAt);
  if (now - loaded > limit) {
    return { ...base, stale: true, stale_reason: `This copy was loaded on ${loadedAt.slice(0, 10)} and has not been refreshed since (due every ${refresh}).` };
  }
  if (!l.list_date) {
    return { ...base, stale: null, stale_reason: "The list's date is unknown: the file carries none and this copy was not downloaded from its publisher." };
  }
  const days = Math.floor((now - Date.parse(l.list_date)) / DAY_MS);
  if (now - Date.parse(l.list_date) > limit) {
    return { ...base, stale: true, stale_reason: `The list is dated ${l.list_date}, ${days} days ago (from its ${base.list_date_from === "publication" ? "publication date" : "download's Last-Modified"}); names listed since are missing.` };
  }
  return { ...base, stale: false };
}

/** One line per list that is stale or of unknown date, for an answer's `warnings`. */
export function staleWarnings(lists: (Freshness & { list: string })[]): string[] {
  return lists.filter((l) => l.stale !== false).map((l) => `${l.list}: ${l.stale_reason}`);
}
