// A test-mode call's recordings: the recorded upstream answers of one endpoint example (engine/upstream/recordings.ts
// answers every request of the call from them).
import fs from "node:fs";
import type { Example, Registry } from "../endpoints/model.ts";
import { Recordings } from "../upstream/recordings.ts";
import { fixtureContentType, fixtureFile } from "./fixtures.ts";

/** The example's fixtures, read from disk now (a missing file fails here, before the call runs). */
export function recordingsOfExample(rootDir: string, registry: Registry, group: string, example: Example): Recordings {
  return new Recordings((example.fixtures ?? []).map((f) => {
    const base = f.origin ?? f.base_url ?? registry.sources.get(f.source ?? "")?.base_url;
    if (!base) throw new Error(`fixture names unknown source ${f.source}`);
    const url = new URL(base.replace(/\/$/, "") + f.path);
    const body = fs.readFileSync(fixtureFile(rootDir, f.file, group));
    return {
      method: f.method ?? "GET", origin: url.origin, pathname: url.pathname, query: f.query, used: false,
      answer: { status: f.status ?? 200, headers: { "content-type": fixtureContentType(f), ...lowerKeys(f.reply_headers) }, body },
    };
  }));
}

function lowerKeys(h: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
