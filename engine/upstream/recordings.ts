// A test-mode call's upstream: recorded answers (engine/testmode/ reads them from an endpoint example), and
// nothing else. While a call runs inside withRecordings(), every request that would go out (engine/upstream/exchange.ts, the safe fetcher of
// callers' URLs, OAuth2 token requests) is answered from them instead, and no socket is ever opened: a request
// no recording matches fails as a network error (a 502, never charged). A recording matches on origin, path,
// method and, when the fixture states one, the exact query, as the example tests' nock replay does; each answers
// once, in the order the example lists them.
import { AsyncLocalStorage } from "node:async_hooks";

export interface RecordedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Recording {
  method: string;
  origin: string;
  pathname: string;
  query?: Record<string, unknown>;
  answer: RecordedAnswer;
  used: boolean;
}

export class Recordings {
  private readonly list: Recording[];
  /** What the call keeps for itself instead of in a shared cache (the safe fetcher's robots.txt, by origin). */
  readonly memo = new Map<string, unknown>();

  constructor(list: Recording[]) {
    this.list = list;
  }

  /** The recorded answer to this request (taken: it answers once), or undefined when none matches. */
  take(url: URL, method = "GET"): RecordedAnswer | undefined {
    const hit = this.list.find((r) => !r.used && r.method === method && r.origin === url.origin && r.pathname === url.pathname && sameQuery(url.searchParams, r.query));
    if (hit) hit.used = true;
    return hit?.answer;
  }
}

/** The query a fixture states, exactly (no key more or less); a fixture that states none matches any. */
function sameQuery(actual: URLSearchParams, expected: Record<string, unknown> | undefined): boolean {
  if (!expected) return true;
  const keys = new Set(actual.keys());
  if (keys.size !== Object.keys(expected).length) return false;
  return Object.entries(expected).every(([k, v]) => JSON.stringify(actual.getAll(k)) === JSON.stringify([v].flat().map(String)));
}

const current = new AsyncLocalStorage<Recordings>();

/** The recordings of the test-mode call running here, if it is one. */
export const replaying = (): Recordings | undefined => current.getStore();

/** Runs fn (and everything it awaits) answered by these recordings only. */
export function withRecordings<T>(recordings: Recordings, fn: () => T): T {
  return current.run(recordings, fn);
}

/** What a request without a recording gets in test mode. */
export const NOT_RECORDED = "test mode: no recorded answer for this request (it was not sent)";
