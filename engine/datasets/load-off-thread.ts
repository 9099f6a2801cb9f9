// A dataset's load() runs on a worker thread (load-worker.ts): parsing a large or hostile file there does not
// stall the calls the server answers, its memory goes back to the system when the thread ends, and a stopping
// server ends the thread at once instead of waiting for the parse.
import { Worker } from "node:worker_threads";
import type { FoundFile } from "./input.ts";
import type { DatasetProgress, LoadResult } from "./types.ts";

export interface LoadJob {
  /** The project root: the worker imports plugins/<group>/<name>.dataset.ts from there. */
  rootDir: string;
  name: string;
  found: [string, FoundFile][];
  /** The new version's SQLite file, written and closed by the worker. */
  file: string;
}

/** What the worker says: progress as it goes, then the result or the error. */
export type LoadMessage =
  | { phase: string; total?: number }
  | { tick: number }
  | { log: string }
  | { result: LoadResult }
  | { error: string };

export function loadOffThread(job: LoadJob, progress: DatasetProgress, signal: AbortSignal): Promise<LoadResult> {
  if (signal.aborted) return Promise.reject(new Error("the load was stopped"));
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./load-worker.ts", import.meta.url), { workerData: job });
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", stop);
      void worker.terminate();
      settle();
    };
    const stop = () => finish(() => reject(new Error("the load was stopped")));
    signal.addEventListener("abort", stop, { once: true });
    worker.on("message", (m: LoadMessage) => {
      if ("phase" in m) progress.phase(m.phase, m.total);
      else if ("tick" in m) progress.tick(m.tick);
      else if ("log" in m) progress.log(m.log);
      else if ("error" in m) finish(() => reject(new Error(m.error)));
      else finish(() => resolve(m.result));
    });
    worker.on("error", (e: Error) => finish(() => reject(new Error(`the load's thread failed (${e.message})`))));
    worker.on("exit", (code: number) => finish(() => reject(new Error(`the load's thread ended (exit code ${code}) before the load did`))));
  });
}
