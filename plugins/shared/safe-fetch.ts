// The one way this service fetches a URL a caller names (web-reader, seo-tools): the most dangerous thing it does.
//
// 1. URL gate (engine/upstream/url-gate.ts) on every hop: http/https only, usual ports, no user:pass@, no local names,
//    and an address literal in any spelling (0x7f000001, 2130706433, 127.1) must be public.
// 2. Connect-time check: request-filtering-agent's agents validate the address the socket actually connects to,
//    inside the socket's own DNS lookup, so a name that resolves differently a second time (DNS rebinding) cannot
//    slip a private address past a pre-check: the checked address is the connected one. Our own lookup wrapper
//    runs the same isAllowedAddress() on every resolved address first (it also knows the cloud-metadata hosts).
// 3. Redirects are followed here, one hop at a time (never by got), each hop through 1 and 2 and robots.txt.
// 4. Bodies are capped while streaming (after decompression, so a gzip bomb stops too) and the whole call,
//    redirects included, has one time budget: a body that never ends is cut off.
// 5. robots.txt of each origin is read (cached an hour) and honoured for our User-Agent's product token
//    (RFC 9309: 4xx = no rules; 5xx or unreachable = everything disallowed).
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import got from "got";
import robotsParserModule from "robots-parser";
import { LRUCache } from "lru-cache";
import type { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from "request-filtering-agent";
import { lazy } from "./lazy.ts";
import { USER_AGENT } from "../../engine/upstream/exchange.ts";
import { NOT_RECORDED, replaying } from "../../engine/upstream/recordings.ts";
import { checkUrl, DENIED_ADDRESSES, isAllowedAddress, SafeFetchError, testAddressPolicy, type TestPolicy } from "../../engine/upstream/url-gate.ts";

export { checkUrl, isAllowedAddress, SafeFetchError, setTestAddressPolicy, type SafeFetchFailure } from "../../engine/upstream/url-gate.ts";

/** robots-parser's rules for one file (its bundled types do not resolve under nodenext: the CJS export is the function). */
export interface RobotsRules {
  isAllowed(url: string, ua?: string): boolean | undefined;
  isDisallowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
  getPreferredHost(): string | null;
}
export const robotsParser = robotsParserModule as unknown as (url: string, text: string) => RobotsRules;

export const DEFAULT_MAX_BYTES = 3 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_REDIRECTS = 5;
const ROBOTS_MAX_BYTES = 500 * 1024; // RFC 9309: crawlers must parse at least 500 KiB
const ROBOTS_TTL_MS = 3_600_000;

const filtering = lazy<typeof import("request-filtering-agent")>("request-filtering-agent");

function makeAgents(): { http: RequestFilteringHttpAgent; https: RequestFilteringHttpsAgent } {
  const opts = { keepAlive: false, allowIPAddressList: testAddressPolicy()?.allowAddresses ?? [], denyIPAddressList: DENIED_ADDRESSES };
  const { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } = filtering();
  return { http: new RequestFilteringHttpAgent(opts), https: new RequestFilteringHttpsAgent(opts) };
}
let agents: ReturnType<typeof makeAgents> | undefined;
let agentsPolicy: TestPolicy | undefined;

/** The filtering agents, made when first needed and rebuilt when a test changes the address policy. */
function currentAgents(): ReturnType<typeof makeAgents> {
  if (!agents || agentsPolicy !== testAddressPolicy()) {
    agentsPolicy = testAddressPolicy();
    agents = makeAgents();
  }
  return agents;
}

/** dns.lookup with every answer checked; a name with any forbidden address is refused outright. */
function guardedLookup(base: LookupFunction): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, cb: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    base(hostname, options, ((err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => {
      if (err) return cb(err, address, family);
      const list = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const bad = list.find((a) => !isAllowedAddress(a));
      if (bad) return cb(Object.assign(new Error(`${hostname} resolves to ${bad}, a private, local or reserved address`), { code: "EBLOCKED" }), address, family);
      cb(null, address, family);
    }) as never);
  }) as LookupFunction;
}

export interface SafeFetchOptions {
  maxBytes?: number;
  /** The whole call, redirects and robots.txt included. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** false: answer the first response, a redirect included (its Location unfollowed), for a caller that walks hops itself. */
  followRedirects?: boolean;
  method?: "GET" | "HEAD";
  accept?: string;
  /** Skip robots.txt (only for robots.txt itself, or a caller asking what a site's robots.txt says). */
  ignoreRobots?: boolean;
  /** Tests only: replaces dns.lookup (e.g. to simulate DNS rebinding). */
  lookup?: LookupFunction;
  env?: NodeJS.ProcessEnv;
}

export interface Hop {
  url: string;
  status: number;
  location: string | null;
  ms: number;
}

export interface SafeResponse {
  /** The URL asked for and the one that finally answered. */
  url: string;
  final_url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Every response on the way, redirects first. */
  hops: Hop[];
}

export function userAgent(env: NodeJS.ProcessEnv = process.env): string {
  return env.UPSTREAM_USER_AGENT || USER_AGENT;
}

/** Fetches a caller's URL under every rule above. Throws SafeFetchError; an HTTP error status is an answer, not a throw. */
export async function safeFetch(raw: string, opts: SafeFetchOptions = {}): Promise<SafeResponse> {
  const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const hops: Hop[] = [];
  let current = checkUrl(raw);
  for (;;) {
    if (!opts.ignoreRobots) await assertRobotsAllow(current, { ...opts, deadline });
    const res = await exchange(current, { ...opts, deadline, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES });
    const location = res.status >= 300 && res.status < 400 && typeof res.headers.location === "string" ? res.headers.location : null;
    hops.push({ url: current.href, status: res.status, location, ms: res.ms });
    if (!location || res.status === 304 || opts.followRedirects === false) {
      return { url: hops[0].url, final_url: current.href, status: res.status, headers: res.headers, body: res.body, hops };
    }
    if (hops.length > maxRedirects) throw new SafeFetchError("too_many_redirects", hops[0].url, `redirected more than ${maxRedirects} times`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new SafeFetchError("invalid_url", location, "redirected to something that is not a URL");
    }
    current = checkUrl(next);
  }
}

interface ExchangeOpts extends SafeFetchOptions {
  deadline: number;
  maxBytes: number;
}

function exchange(url: URL, opts: ExchangeOpts): Promise<{ status: number; headers: SafeResponse["headers"]; body: Buffer; ms: number }> {
  const left = opts.deadline - Date.now();
  if (left <= 0) return Promise.reject(new SafeFetchError("timeout", url.href, "did not answer in time"));
  const started = Date.now();
  // A test-mode call is answered from its example's recordings: nothing goes out.
  const recordings = replaying();
  if (recordings) {
    const recorded = recordings.take(url, opts.method ?? "GET");
    if (!recorded) return Promise.reject(new SafeFetchError("network", url.href, NOT_RECORDED));
    return Promise.resolve({ ...recorded, ms: 0 });
  }
  return new Promise((resolve, reject) => {
    const stream = got.stream(url, {
      method: opts.method ?? "GET",
      headers: { "user-agent": userAgent(opts.env), accept: opts.accept ?? "*/*" },
      agent: currentAgents(),
      dnsLookup: guardedLookup(opts.lookup ?? (dns.lookup as unknown as LookupFunction)) as never,
      dnsCache: undefined,
      timeout: { request: left },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      decompress: true,
      https: { rejectUnauthorized: true },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let response: { statusCode: number; headers: SafeResponse["headers"] } | undefined;
    const fail = (e: SafeFetchError) => {
      if (done) return;
      done = true;
      stream.destroy();
      reject(e);
    };
    const tooLarge = () => fail(new SafeFetchError("too_large", url.href, `sent more than ${Math.round(opts.maxBytes / 1024)} kB`));
    stream.on("response", (res: { statusCode: number; headers: SafeResponse["headers"] }) => {
      response = res;
      const declared = Number(res.headers["content-length"]);
      if (!res.headers["content-encoding"] && Number.isFinite(declared) && declared > opts.maxBytes) tooLarge();
      // A redirect's body is never needed.
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        done = true;
        stream.destroy();
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.alloc(0), ms: Date.now() - started });
      }
    });
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > opts.maxBytes) return tooLarge();
      chunks.push(chunk);
    });
    stream.on("end", () => {
      if (done) return;
      done = true;
      if (!response) return reject(new SafeFetchError("network", url.href, "closed the connection without an answer"));
      resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks), ms: Date.now() - started });
    });
    stream.on("error", (e: Error & { code?: string }) => {
      if (e.name === "TimeoutError" || e.code === "ETIMEDOUT") return fail(new SafeFetchError("timeout", url.href, "did not answer in time"));
      if (e.code === "EBLOCKED" || /is not allowed/.test(e.message)) return fail(new SafeFetchError("blocked_address", url.href, e.message.replace(/^DNS lookup /, "resolves to ")));
      if (e.code === "ENOTFOUND" || e.code === "EAI_AGAIN") return fail(new SafeFetchError("network", url.href, `names a host that does not exist (${url.hostname})`));
      fail(new SafeFetchError("network", url.href, `could not be fetched (${e.code ?? e.message})`));
    });
  });
}

// robots.txt per origin: the parsed rules (or null = everything allowed, "all" = everything disallowed).
type Robots = RobotsRules | null | "all";
type RobotsEntry = { robots: Robots; file: RobotsFile };
const robotsCache = new LRUCache<string, RobotsEntry>({ max: 2_000, ttl: ROBOTS_TTL_MS });

/** Tests only: forget cached robots.txt files. */
export function clearRobotsCache(): void {
  robotsCache.clear();
}

export interface RobotsFile {
  url: string;
  /** HTTP status, or null when the site could not be reached. */
  status: number | null;
  text: string | null;
}

/** Reads an origin's robots.txt (no robots check, no redirects beyond 5 checked hops, 500 kB). */
export async function fetchRobots(origin: string, opts: SafeFetchOptions = {}): Promise<RobotsFile> {
  const url = `${origin}/robots.txt`;
  try {
    const res = await safeFetch(url, { ...opts, method: "GET", followRedirects: true, ignoreRobots: true, maxBytes: ROBOTS_MAX_BYTES, accept: "text/plain" });
    return { url, status: res.status, text: res.status < 300 ? res.body.toString("utf8") : null };
  } catch (e) {
    if (e instanceof SafeFetchError && (e.kind === "network" || e.kind === "timeout")) return { url, status: null, text: null };
    throw e;
  }
}

/** An origin's robots.txt, read once an hour (the fetcher checks every URL against it; seo-tools shows it). */
export async function cachedRobots(origin: string, opts: SafeFetchOptions = {}): Promise<RobotsFile> {
  return (await robotsEntry(origin, opts)).file;
}

async function robotsEntry(origin: string, opts: SafeFetchOptions): Promise<RobotsEntry> {
  // A test-mode call's robots.txt is its example's recording: kept for that call only, never served to a live one.
  const cache = replaying()?.memo ?? robotsCache;
  let entry = cache.get(origin) as RobotsEntry | undefined;
  if (!entry) {
    const file = await fetchRobots(origin, opts);
    const robots: Robots = file.status === null || file.status >= 500 ? "all" : file.text === null ? null : robotsParser(file.url, file.text);
    entry = { robots, file };
    cache.set(origin, entry);
  }
  return entry;
}

async function assertRobotsAllow(url: URL, opts: SafeFetchOptions & { deadline: number }): Promise<void> {
  const origin = url.origin;
  const entry = await robotsEntry(origin, { ...opts, timeoutMs: Math.max(1, opts.deadline - Date.now()) });
  const ua = userAgent(opts.env);
  if (entry.robots === "all") {
    const status = entry.file.status;
    throw new SafeFetchError("robots_disallowed", url.href, `cannot be fetched: ${origin}/robots.txt ${status === null ? "could not be reached" : `answered HTTP ${status}`}, which under RFC 9309 means nothing may be crawled`);
  }
  if (entry.robots && entry.robots.isDisallowed(url.href, ua)) {
    const line = entry.robots.getMatchingLineNumber(url.href, ua);
    throw new SafeFetchError("robots_disallowed", url.href, `is disallowed for our crawler by ${origin}/robots.txt (line ${line})`);
  }
}

/** The charset a response declares (header, then BOM, then <meta charset>), as a TextDecoder label; utf-8 when none or unknown. */
export function decodeBody(body: Buffer, contentType?: string): string {
  const label = charsetOf(body, contentType);
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function charsetOf(body: Buffer, contentType?: string): string {
  const header = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  if (header) return header;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  const head = body.subarray(0, 2048).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ?? "utf-8";
}
