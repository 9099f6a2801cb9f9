// The worker thread of load-off-thread.ts: imports the dataset's definition from its file, runs its load() into
// the new version's SQLite file, and closes that file (on disk) before saying it is done.
import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { parentPort, workerData } from "node:worker_threads";
import { definitionFile } from "./definitions.ts";
import { inputOf } from "./input.ts";
import type { LoadJob, LoadMessage } from "./load-off-thread.ts";
import type { DatasetDefinition, DatasetProgress } from "./types.ts";

/** Ticks are passed on at most this often: a load may tick once a row. */
const TICK_EVERY_MS = 100;

const job = workerData as LoadJob;
const say = (m: LoadMessage) => parentPort!.postMessage(m);

let ticks = 0;
let lastTick = 0;
const flushTicks = () => {
  if (ticks) say({ tick: ticks });
  ticks = 0;
  lastTick = Date.now();
};
const progress: DatasetProgress = {
  phase: (label, total) => (flushTicks(), say({ phase: label, total })),
  tick: (n = 1) => {
    ticks += n;
    if (Date.now() - lastTick >= TICK_EVERY_MS) flushTicks();
  },
  log: (message) => (flushTicks(), say({ log: message })),
};

const file = definitionFile(job.rootDir, job.name);
const def = ((await import(pathToFileURL(file).href)) as { default?: DatasetDefinition }).default;
const db = new DatabaseSync(job.file);
try {
  if (def?.name !== job.name) throw new Error(`${file} does not export the ${job.name} definition`);
  // A version being loaded is thrown away on any failure, so it needs neither a journal nor fsync.
  db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;");
  const result = await def.load(inputOf(new Map(job.found)), db, progress);
  if (db.isTransaction) throw new Error("load() left a transaction open (missing COMMIT)");
  db.exec("PRAGMA optimize");
  db.close();
  flushToDisk(job.file);
  flushTicks();
  say({ result });
} catch (e) {
  if (db.isOpen) db.close();
  say({ error: (e as Error).message });
}

/** The load ran without fsync; the file must be on disk before the pointer names it. */
function flushToDisk(path: string): void {
  const fd = fs.openSync(path, "r+");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
