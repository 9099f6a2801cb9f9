// The files of one sync, found in a --from folder (or downloaded: download.ts), and read for the dataset's
// load(): gzip is undone by content (so `airports.csv.gz` reads like `airports.csv`), and a file that is empty or
// whose gzip stream stops early is refused with its name.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
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
