// Upstream bodies to JSON before the transform: CSV rows become objects (or arrays), XML becomes a tree.
import { parse as parseCsv } from "csv-parse/sync";
import { XMLParser } from "fast-xml-parser";
import { Worker } from "node:worker_threads";

export type BodyFormat = "json" | "csv" | "xml" | "text";
export interface CsvOptions { header?: boolean; skip_lines?: number; delimiter?: string }

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", parseTagValue: false, trimValues: true });

export function parseBody(text: string, format: BodyFormat, csv: CsvOptions = {}): unknown {
  switch (format) {
    case "json":
      return JSON.parse(text);
    case "csv":
      return parseCsv(text, {
        columns: csv.header !== false,
        from_line: (csv.skip_lines ?? 0) + 1,
        delimiter: csv.delimiter ?? ",",
        skip_empty_lines: true,
        relax_column_count: true,
        relax_quotes: true,
        bom: true,
        trim: true,
      });
    case "xml": {
      if (!/^\s*(<\?xml|<[A-Za-z])/.test(text)) throw new Error("the body is not XML");
      return xml.parse(text, true);
    }
    case "text":
      return text;
  }
}

/** Bodies above this size are parsed in a worker thread. */
export const OFF_THREAD_BYTES = 256 * 1024;

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

/** parseBody, on a worker thread for large bodies (JSON stays here: JSON.parse is fast and its result cheap to keep). */
export function parseBodyOffThread(text: string, format: BodyFormat, csv?: CsvOptions): Promise<unknown> {
  if (text.length < OFF_THREAD_BYTES || format === "json" || format === "text") {
    try {
      return Promise.resolve(parseBody(text, format, csv));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  if (!worker) {
    worker = new Worker(new URL("./parse-worker.ts", import.meta.url));
    worker.on("message", (m: { id: number; body?: unknown; error?: string }) => {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      // An idle worker is ended: the heap a 10 MB parse grew goes back to the system with it.
      if (!waiting.size) {
        void worker?.terminate();
        worker = undefined;
      }
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve(m.body);
    });
    worker.on("error", (e: Error) => {
      for (const w of waiting.values()) w.reject(e);
      waiting.clear();
      worker = undefined;
    });
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker!.ref();
    worker!.postMessage({ id, text, format, csv });
  });
}
