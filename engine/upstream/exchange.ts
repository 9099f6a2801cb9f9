// One bounded HTTP exchange with an upstream: the body is read as a stream and dropped the moment it passes
// the size cap (counted after decompression, so a small gzip bomb is caught too), and a redirect is followed
// only to the source's own host, over https unless the base itself is plain http (a loopback override).
// Dataset downloads follow redirects by the same rule (checkRedirect).
import got from "got";
import { NOT_RECORDED, replaying } from "./recordings.ts";

/** Sent to every upstream that does not need another; UPSTREAM_USER_AGENT replaces it (name a contact there). */
export const USER_AGENT = "public-data-api/1.1 (+https://github.com/public-data-api; pay-per-call public data for AI agents)";

export interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The URL that finally answered (after any same-host redirects). */
  url: URL;
}

export class ExchangeError extends Error {
  readonly kind: "too_large" | "redirect" | "timeout" | "network";
  constructor(kind: ExchangeError["kind"], message: string) {
    super(message);
    this.kind = kind;
  }
}

export const MAX_REDIRECTS = 3;

export interface ExchangeOptions {
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
  /** The source's effective base URL: redirects may only stay on its host. */
  base: URL;
}

export async function exchange(url: URL, opts: ExchangeOptions): Promise<Exchange> {
  let current = url;
  let method = opts.method ?? "GET";
  let body = opts.body;
  const deadline = Date.now() + opts.timeoutMs;
  for (let hop = 0; ; hop++) {
    const res = await readOnce(current, { ...opts, method, body, timeoutMs: Math.max(1, deadline - Date.now()) });
    if (res.status < 300 || res.status >= 400 || res.status === 304) return res;
    const location = res.headers.location;
    if (!location || typeof location !== "string") return res;
    const next = new URL(location, current);
    checkRedirect(next, opts.base);
    if (hop >= MAX_REDIRECTS) throw new ExchangeError("redirect", `redirected more than ${MAX_REDIRECTS} times`);
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
    current = next;
  }
}

/**
 * The one redirect rule, for API calls and dataset downloads alike: the same host and port as the source's base
 * URL, over https unless the base itself is plain http. A redirect can therefore never reach a private, loopback or
 * link-local address (or a metadata service) that the source is not itself on; an ExchangeError says where it led.
 */
export function checkRedirect(next: URL, base: URL): void {
  const sameHost = next.hostname === base.hostname && next.port === base.port;
  if (!sameHost || (next.protocol !== "https:" && next.protocol !== base.protocol)) {
    throw new ExchangeError("redirect", `redirected to another host (${next.protocol}//${next.host}), which is not followed`);
  }
}

function readOnce(url: URL, opts: ExchangeOptions & { method: "GET" | "POST" }): Promise<Exchange> {
  // A test-mode call is answered from its example's recordings: nothing goes out.
  const recordings = replaying();
  if (recordings) {
    const recorded = recordings.take(url, opts.method);
    if (!recorded) return Promise.reject(new ExchangeError("network", NOT_RECORDED));
    return Promise.resolve({ status: recorded.status, headers: recorded.headers, body: recorded.body.toString("utf8"), url });
  }
  return new Promise((resolve, reject) => {
    const stream = got.stream(url, {
      method: opts.method,
      headers: opts.headers,
      body: opts.body,
      timeout: { request: opts.timeoutMs },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      decompress: true,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let response: { statusCode: number; headers: Exchange["headers"] } | undefined;
    const tooLarge = () => {
      stream.destroy();
      reject(new ExchangeError("too_large", `sent more than ${formatBytes(opts.maxBytes)}`));
    };
    stream.on("response", (res: { statusCode: number; headers: Exchange["headers"] }) => {
      response = res;
      const declared = Number(res.headers["content-length"]);
      const encoded = res.headers["content-encoding"];
      if (!encoded && Number.isFinite(declared) && declared > opts.maxBytes) tooLarge();
    });
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > opts.maxBytes) return tooLarge();
      chunks.push(chunk);
    });
    stream.on("end", () => {
      if (!response) return reject(new ExchangeError("network", "closed the connection without an answer"));
      resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString("utf8"), url });
    });
    stream.on("error", (e: Error & { code?: string }) => {
      if (size > opts.maxBytes) return;
      const timedOut = e.name === "TimeoutError" || e.code === "ETIMEDOUT";
      reject(timedOut ? new ExchangeError("timeout", "timeout") : new ExchangeError("network", e.code ?? e.message));
    });
  });
}

export function formatBytes(n: number): string {
  return n >= 1_048_576 ? `${Math.round(n / 104_857.6) / 10} MB` : `${Math.round(n / 102.4) / 10} kB`;
}
