// The files of one sync, found in a --from folder or downloaded from the source, and read for the dataset's
// load(): gzip is undone by content (so `airports.csv.gz` reads like `airports.csv`), and a file that is empty or
// whose gzip stream stops early is refused with its name.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { pipeline } from "node:stream/promises";
import got, { HTTPError } from "got";
import { USER_AGENT } from "../upstream.ts";
import { authFor, type Source } from "../sources.ts";
import { zipEntries, type ZipEntry } from "./zip.ts";
import type { DatasetDefinition, DatasetInput } from "./types.ts";

export interface FoundFile {
  /** Where it is on disk now: the file, or for an unpacked zip the folder holding its entries. */
  path: string;
  unpacked?: boolean;
  /** Where it came from: the URL it was downloaded from, or the local path. */
  url: string;
  date?: string;
  /** Whence the date: the download's Last-Modified, or a local file's time (when it was copied, perhaps not published). */
  dateFrom?: "last-modified" | "file-time";
}

export class DatasetLoadError extends Error {}

/** The definition's files in a local folder: `<name>` or `<name>.gz`, names relative to the folder. */
export function findLocal(def: DatasetDefinition, from: string): Map<string, FoundFile> {
  if (!fs.existsSync(from) || !fs.statSync(from).isDirectory()) throw new DatasetLoadError(`--from ${from} is not a folder`);
  const found = new Map<string, FoundFile>();
  const missing: string[] = [];
  for (const f of def.files) {
    const candidates = [f.name, `${f.name}.gz`].map((n) => path.resolve(from, n));
    const hit = candidates.find((c) => fs.existsSync(c));
    if (hit) found.set(f.name, { path: hit, url: hit, date: fs.statSync(hit).mtime.toISOString(), dateFrom: "file-time" });
    else if (f.unpacked && fs.readdirSync(from).length) found.set(f.name, { path: from, url: from, unpacked: true });
    else if (!f.optional) missing.push(f.name);
  }
  if (missing.length) throw new DatasetLoadError(`${from} lacks ${missing.join(", ")} (also looked for ${missing.map((m) => `${m}.gz`).join(", ")})`);
  return found;
}

/**
 * Downloads the definition's files, each from its source's base URL (UPSTREAM_<NAME> redirects it), into `dir`.
 * An optional file that cannot be had is left out (`onSkip` says why); a required one fails the download.
 */
export async function download(def: DatasetDefinition, sourceOf: (name: string) => Source, dir: string, env: NodeJS.ProcessEnv,
  onBytes: (file: string, received: number, total?: number) => void, onSkip: (file: string, why: string) => void = () => {},
  signal?: AbortSignal): Promise<Map<string, FoundFile>> {
  const found = new Map<string, FoundFile>();
  for (const f of def.files) {
    const source = sourceOf(f.source ?? def.source);
    const auth = authFor(source, env);
    const url = new URL(source.base_url + f.path);
    for (const [k, v] of Object.entries(auth.query)) url.searchParams.set(k, v);
    const publicUrl = source.base_url + f.path;
    const target = path.join(dir, f.name);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const stream = got.stream(url, {
      headers: { "user-agent": USER_AGENT, accept: "*/*", ...source.headers, ...auth.headers },
      timeout: { connect: 15_000, response: 60_000, socket: 60_000 },
      retry: { limit: 0 },
      signal,
    });
    let date: string | undefined;
    let expected: number | undefined;
    stream.on("response", (res: { headers: Record<string, string | undefined> }) => {
      const modified = res.headers["last-modified"];
      date = modified ? new Date(modified).toISOString() : undefined;
      // got undoes content-encoding, so the length only says something about an unencoded body.
      if (!res.headers["content-encoding"] && res.headers["content-length"]) expected = Number(res.headers["content-length"]);
    });
    stream.on("downloadProgress", (p: { transferred: number; total?: number }) => onBytes(f.name, p.transferred, p.total));
    try {
      await pipeline(stream, fs.createWriteStream(target));
    } catch (e) {
      const why = e instanceof HTTPError ? `${publicUrl} answered HTTP ${e.response.statusCode}`
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

const isGzip = (b: Buffer) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

export function inputOf(found: Map<string, FoundFile>): DatasetInput {
  const get = (name: string) => {
    const f = found.get(name);
    if (!f) throw new DatasetLoadError(`${name} is not among the files of this sync (${[...found.keys()].join(", ")})`);
    return f;
  };
  const bytes = async (name: string) => {
    const raw = await fs.promises.readFile(get(name).path);
    if (!raw.length) throw new DatasetLoadError(`${name} is empty`);
    if (!isGzip(raw)) return raw;
    try {
      return zlib.gunzipSync(raw);
    } catch (e) {
      throw new DatasetLoadError(`${name} is truncated or not valid gzip (${(e as Error).message})`);
    }
  };
  const entries = async (name: string): Promise<ZipEntry[]> => {
    const f = get(name);
    if (!f.unpacked) return zipEntries(await bytes(name));
    return fs.readdirSync(f.path, { recursive: true, withFileTypes: true }).filter((d) => d.isFile())
      .map((d) => path.join(d.parentPath, d.name))
      .map((file) => ({ name: path.relative(f.path, file).split(path.sep).join("/"), read: () => fs.readFileSync(file) }));
  };
  return {
    files: [...found.keys()],
    bytes,
    entries,
    text: async (name) => (await bytes(name)).toString("utf8"),
    origin: (name) => {
      const f = get(name);
      return { url: f.url, ...(f.date ? { date: f.date, date_from: f.dateFrom } : {}) };
    },
  };
}
