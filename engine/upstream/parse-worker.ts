// Parses large upstream bodies off the event loop, so one big CSV or XML answer does not stall other calls.
import { parentPort } from "node:worker_threads";
import { parseBody, type BodyFormat, type CsvOptions } from "./parse-body.ts";

parentPort!.on("message", (m: { id: number; text: string; format: BodyFormat; csv?: CsvOptions }) => {
  try {
    parentPort!.postMessage({ id: m.id, body: parseBody(m.text, m.format, m.csv) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: (e as Error).message });
  }
});
