// A loopback upstream serving every dataset's test files under its sources' paths (UPSTREAM_<NAME>), so that
// background loads download nothing real.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { loadDefinitions } from "../../engine/datasets/definitions.ts";
import { readSources, sourceEnvVar } from "../../engine/upstream/sources.ts";
import { datasetCopy, ROOT } from "./helpers.ts";


export /** Serves /<source><file path> from each dataset's test copy (plugins/<group>/fixtures/<dataset>/<file name>); other paths are 404. */
async function fixtureUpstream(hold: Promise<void>): Promise<{ server: http.Server; env: Record<string, string>; asked: string[] }> {
  const sources = readSources(path.join(ROOT, "sources.yaml"));
  const definitions = await loadDefinitions(ROOT, sources);
  const files = new Map<string, string>();
  const usedSources = new Set<string>();
  for (const def of definitions.values()) {
    for (const f of def.files) {
      const source = f.source ?? def.source;
      usedSources.add(source);
      files.set(`/${source}${f.path.split("?")[0]}`, datasetCopy(def.name, f.name));
    }
  }
  const asked: string[] = [];
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    asked.push(url.pathname);
    await hold;
    const file = files.get(url.pathname);
    if (!file || !fs.existsSync(file)) {
      res.writeHead(404).end("not here");
      return;
    }
    res.writeHead(200, { "last-modified": "Tue, 05 May 2026 10:00:00 GMT" }).end(fs.readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = Object.fromEntries([...usedSources].map((s) => [sourceEnvVar(s), `${base}/${s}`]));
  return { server, env, asked };
}
