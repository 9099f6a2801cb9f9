// Downloads a dataset's files, as untrusted as any upstream answer: redirects follow the API client's rule (the
// source's own host only), each file is bounded in size (the definition's maxBytes) and dropped the moment it
// passes the bound, and stopping the server aborts the download.
import fs from "node:fs";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import got, { HTTPError } from "got";
import { USER_AGENT } from "../upstream/exchange.ts";
import { checkRedirect, ExchangeError, formatBytes, MAX_REDIRECTS } from "../upstream/exchange.ts";
import { authFor, type Source } from "../upstream/sources.ts";
import { DatasetLoadError, type FoundFile } from "./input.ts";
import type { DatasetDefinition } from "./types.ts";

/** The largest file a dataset takes when its definition sets no maxBytes of its own. */
export const DEFAULT_DATASET_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Downloads the definition's files, each from its source's base URL (UPSTREAM_<NAME> redirects it), into `dir`.
 * An optional file that cannot be had is left out (`onSkip` says why); a required one fails the download.
 */
export async function download(def: DatasetDefinition, sourceOf: (name: string) => Source, dir: string, env: NodeJS.ProcessEnv,
  onBytes: (file: string, received: number, total?: number) => void, onSkip: (file: string, why: string) => void = () => {},
  signal?: AbortSignal): Promise<Map<string, FoundFile>> {
  const found = new Map<string, FoundFile>();
  const maxBytes = def.maxBytes ?? DEFAULT_DATASET_MAX_BYTES;
  for (const f of def.files) {
    const source = sourceOf(f.source ?? def.source);
    const auth = authFor(source, env);
    const base = new URL(source.base_url);
    const url = new URL(source.base_url + f.path);
    for (const [k, v] of Object.entries(auth.query)) url.searchParams.set(k, v);
    const publicUrl = source.base_url + f.path;
    const target = path.join(dir, f.name);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const tooLarge = () => new DatasetLoadError(`${publicUrl} sent more than ${formatBytes(maxBytes)}, the most the ${def.name} dataset takes (its maxBytes)`);
    const stream = got.stream(url, {
      headers: { "user-agent": USER_AGENT, accept: "*/*", ...source.headers, ...auth.headers },
      timeout: { connect: 15_000, response: 60_000, socket: 60_000 },
      retry: { limit: 0 },
      maxRedirects: MAX_REDIRECTS,
      hooks: { beforeRedirect: [(options) => checkRedirect(options.url as URL, base)] },
      signal,
    });
    let date: string | undefined;
    let expected: number | undefined;
    stream.on("response", (res: { headers: Record<string, string | undefined> }) => {
      const modified = res.headers["last-modified"];
      date = modified ? new Date(modified).toISOString() : undefined;
      // got undoes content-encoding, so the length only says something about an unencoded body.
      if (!res.headers["content-encoding"] && res.headers["content-length"]) expected = Number(res.headers["content-length"]);
      if (expected !== undefined && expected > maxBytes) stream.destroy(tooLarge());
    });
    stream.on("downloadProgress", (p: { transferred: number; total?: number }) => onBytes(f.name, p.transferred, p.total));
    let received = 0;
    const bounded = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done(received > maxBytes ? tooLarge() : null, chunk);
      },
    });
    try {
      await pipeline(stream, bounded, fs.createWriteStream(target));
    } catch (e) {
      const cause = (e as Error).cause;
      const why = e instanceof DatasetLoadError ? e.message
        : cause instanceof ExchangeError ? `${publicUrl} ${cause.message}`
        : e instanceof HTTPError ? `${publicUrl} answered HTTP ${e.response.statusCode}`
        : `${publicUrl} could not be downloaded (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
      if (!f.optional || signal?.aborted) throw new DatasetLoadError(signal?.aborted ? `${publicUrl}: the download was stopped` : why);
      fs.rmSync(target, { force: true });
      if (!(e instanceof HTTPError && e.response.statusCode === 404)) onSkip(f.name, why);
      continue;
    }
    const size = fs.statSync(target).size;
    if (expected !== undefined && size !== expected) throw new DatasetLoadError(`${publicUrl} was cut short: ${size} of ${expected} bytes`);
    found.set(f.name, { path: target, url: publicUrl, ...(date ? { date, dateFrom: "last-modified" as const } : {}) });
  }
  return found;
}
