// A fresh server loads every dataset it never loaded, in the background, from its sources: here a loopback upstream
// serving the test fixtures under each source's paths (UPSTREAM_<NAME>), so nothing is downloaded. And
// `npm run sync -- all --from <dir>` loads every dataset from a folder laid out like ../shared/data.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { loadDefinitions } from "../../engine/datasets/definitions.ts";
import { zipEntries } from "../../engine/datasets/zip.ts";
import { readSources } from "../../engine/upstream/sources.ts";
import { datasetCopy, ROOT, freeAccess, getJson, startTestServer, tempDir } from "../support/helpers.ts";
import { fixtureUpstream } from "../support/dataset-upstream.ts";
import type { Running } from "../../engine/http/server.ts";


describe("datasets on a fresh start", () => {
  let server: Running | undefined;
  let upstream: http.Server | undefined;
  after(async () => {
    await server?.close();
    upstream?.close();
  });

  it("loads every dataset never loaded in the background; /health says loading, then loaded; the index is ready", async function () {
    this.timeout(60_000);
    let release!: () => void;
    const up = await fixtureUpstream(new Promise<void>((r) => (release = r)));
    upstream = up.server;
    server = await startTestServer({ access: freeAccess, env: { ...up.env, DATASET_REFRESH: "on", LOG_LEVEL: "silent" } });
    const first = await getJson(`${server.url}/health`);
    const names = first.body.datasets.map((d: { name: string }) => d.name);
    assert.ok(names.includes("sanctions") && names.includes("airports"), names.join(", "));
    for (const d of first.body.datasets) assert.equal(d.state, "loading", `${d.name} is loading`);
    const waiting = await getJson(`${server.url}/v1/airports/airport?code=EGLL`);
    assert.equal(waiting.status, 503);
    assert.equal(waiting.body.loading, true, JSON.stringify(waiting.body));
    assert.match(waiting.body.detail, /being loaded now/);

    release();
    const deadline = Date.now() + 50_000;
    let health = first;
    while (health.body.datasets.some((d: { state: string }) => d.state === "loading") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      health = await getJson(`${server.url}/health`);
    }
    for (const d of health.body.datasets) assert.equal(d.state, "loaded", `${d.name}: ${JSON.stringify(d)}`);
    assert.ok(up.asked.some((p) => p.startsWith("/ofac/")), "the sanctions lists were asked of the loopback upstream");
    // Built right after the load: the first screen does not pay for it.
    const t0 = performance.now();
    const res = await getJson(`${server.url}/v1/sanctions/lists`);
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    assert.ok(performance.now() - t0 < 1_000);
  });
});

describe("npm run sync -- all --from <dir>", () => {
  it("loads every dataset from a folder laid out like ../shared/data, Code-Point Open unpacked", async function () {
    this.timeout(60_000);
    const sources = readSources(path.join(ROOT, "sources.yaml"));
    const definitions = await loadDefinitions(ROOT, sources);
    const from = tempDir("pda-all-");
    for (const def of definitions.values()) {
      const target = path.join(from, def.folder);
      if (def.name !== "gb-postcodes") {
        fs.symlinkSync(datasetCopy(def.name), target);
        continue;
      }
      for (const e of zipEntries(fs.readFileSync(datasetCopy(def.name, "codepo_gb.zip")))) {
        if (e.name.endsWith("/")) continue;
        fs.mkdirSync(path.dirname(path.join(target, e.name)), { recursive: true });
        fs.writeFileSync(path.join(target, e.name), e.read());
      }
    }
    const run = await syncAll(from);
    assert.equal(run.code, 0, run.stderr);
    for (const name of definitions.keys()) assert.match(run.stdout, new RegExp(`^${name} `, "m"));
    assert.match(run.stdout, /postcodes \d+/);
    assert.doesNotMatch(run.stdout, /Skipped/);
  });

  it("exits 0 when the folder holds only some datasets, and lists the others as skipped and why", async function () {
    this.timeout(30_000);
    const from = tempDir("pda-some-");
    const definitions = await loadDefinitions(ROOT, readSources(path.join(ROOT, "sources.yaml")));
    const airports = definitions.get("airports")!;
    fs.symlinkSync(datasetCopy("airports"), path.join(from, airports.folder));
    const run = await syncAll(from);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^airports /m);
    const sanctions = definitions.get("sanctions")!;
    assert.match(run.stdout, new RegExp(`Skipped, no copy in the folder: .*sanctions \\(no ${sanctions.folder}/ in ${from}\\)`));
    assert.doesNotMatch(run.stdout, /airports \(no/);
  });

  it("exits 1 when a dataset whose folder is there fails to load, or when the folder holds none", async function () {
    this.timeout(30_000);
    const from = tempDir("pda-broken-");
    const airports = (await loadDefinitions(ROOT, readSources(path.join(ROOT, "sources.yaml")))).get("airports")!;
    fs.mkdirSync(path.join(from, airports.folder));
    const broken = await syncAll(from);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /Failed to load: airports/);
    const empty = await syncAll(tempDir("pda-empty-"));
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /holds none of the datasets' folders/);
  });
});

/** `npm run sync -- all --from <from>` on a fresh data folder: its exit code and output. */
function syncAll(from: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ["engine/cli.ts", "sync", "all", "--from", from], {
    cwd: ROOT, env: { ...process.env, DATA_DIR: tempDir(), LOG_LEVEL: "silent", DATASET_REFRESH: "off" },
  }).then((r) => ({ code: 0, ...r }), (e: { code: number; stdout: string; stderr: string }) => e);
}
