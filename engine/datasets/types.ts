// The contract between the dataset mechanism (engine/datasets/) and the datasets plugins declare
// (plugins/<group>/<name>.dataset.ts, each exporting `default` a DatasetDefinition).
import type { DatabaseSync } from "node:sqlite";
import type { ZipEntry } from "./zip.ts";

/** One file a dataset is built from, downloaded from its source's base URL (so UPSTREAM_<SOURCE> redirects a sync). */
export interface DatasetFile {
  /** Local name, as found in a --from folder; "<name>.gz" is read the same way. */
  name: string;
  /** Path under the source's base URL. */
  path: string;
  /** A sync still succeeds without it (e.g. one of several sanctions lists). */
  optional?: boolean;
  /** The sources.yaml source this file downloads from, when not the dataset's own (each list has its publisher). */
  source?: string;
  /** A zip that a --from folder may hold unpacked: its entries are then the folder's own files (read with input.entries). */
  unpacked?: boolean;
}

/** What a load receives: the files that were found, readable as text. */
export interface DatasetInput {
  /** The names of the files that are present. */
  files: string[];
  /** The whole file as text (UTF-8; gzip already undone). */
  text(name: string): Promise<string>;
  /** The raw bytes (for xlsx and other binary formats). */
  bytes(name: string): Promise<Buffer>;
  /**
   * The entries of a zip file, or of the folder that holds it unpacked (DatasetFile.unpacked), names relative to it.
   * The mechanism always gives it; an input made by hand (a test, a bench) may leave it out.
   */
  entries?(name: string): Promise<ZipEntry[]>;
  /** Where each file came from (URL or local path) and its date if known, with whence the date. */
  origin(name: string): FileOrigin;
}

export interface FileOrigin {
  url: string;
  date?: string;
  /** last-modified: the download's Last-Modified header; file-time: a local file's modification time. */
  date_from?: "last-modified" | "file-time";
}

export interface DatasetProgress {
  /** Starts or moves a phase ("parsing airports.csv"), with a total when known. */
  phase(label: string, total?: number): void;
  tick(n?: number): void;
  log(message: string): void;
}

export interface LoadResult {
  /** Row counts per table or kind, e.g. { airports: 85836, runways: 48144 }. */
  counts: Record<string, number>;
  /** The data's own date(s) when the files say (list date, publication date). */
  dataDates?: Record<string, string>;
}

export interface DatasetDefinition<Index = unknown> {
  name: string;
  title: string;
  /** Its subfolder in a folder of local copies of every dataset (the ../shared/data layout): `npm run sync -- all --from <dir>`. */
  folder: string;
  /** A source of sources.yaml. */
  source: string;
  files: DatasetFile[];
  /** How often the running server refreshes it, e.g. "1d", "7d". */
  refresh: string;
  /**
   * The largest file a download of it may bring, in bytes (each file, as received; default 64 MB): a larger one
   * fails the sync and the version in use stays. Set it above the real files' size, with room to grow.
   */
  maxBytes?: number;
  licence: string;
  attribution: string;
  /**
   * Parses the files and fills `db`, a fresh empty SQLite database for this version (create the tables and
   * indexes you need). It runs on a worker thread, which imports the definition from its file
   * (plugins/<group>/<name>.dataset.ts): it shares no state with the server's thread. Throw to reject the version: the previous one stays in use. A load that finds
   * implausibly little data (a truncated download) must throw. For speed, insert with prepared statements inside
   * one transaction (db.exec("BEGIN") ... db.exec("COMMIT")); the mechanism does not open one for you.
   */
  load(input: DatasetInput, db: DatabaseSync, progress: DatasetProgress): Promise<LoadResult>;
  /** Builds an in-memory index from a loaded database (optional): called once per version when first used. */
  index?(db: DatabaseSync): Index;
}

export interface DatasetVersion {
  name: string;
  version: string;
  loaded_at: string;
  /** How long the sync took, download included. */
  load_ms?: number;
  sources: ({ file: string } & FileOrigin)[];
  counts: Record<string, number>;
  data_dates?: Record<string, string>;
}

/** What a plugin gets from ctx.datasets.use(name). Throws a 503 Problem (dataset_not_loaded) with how to load it. */
export interface DatasetHandle<Index = unknown> {
  db: DatabaseSync;
  index: Index;
  version: DatasetVersion;
}
