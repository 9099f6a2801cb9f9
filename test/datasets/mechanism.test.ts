// The local dataset mechanism: loading from a folder or a download, atomic versions, refusals that keep the
// previous version, the 503 before the first load, and the `npm run sync` command.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import zlib from "node:zlib";
import { promisify } from "node:util";
import nock from "nock";
import { pino } from "pino";
import { loadConfig } from "../../engine/config.ts";
import { readSources } from "../../engine/upstream/sources.ts";
import { UpstreamClient } from "../../engine/upstream/client.ts";
import { USER_AGENT } from "../../engine/upstream/exchange.ts";
import { Datasets, createDatasets, refreshEnabled } from "../../engine/datasets/index.ts";
import { Problem } from "../../engine/basics/problem.ts";
import { RefreshSchedule } from "../../engine/datasets/refresh.ts";
import { definitionFile } from "../../engine/datasets/definitions.ts";
import { ROOT, isolateNetwork, tempDir } from "../support/helpers.ts";
import type { DatasetDefinition } from "../../engine/datasets/types.ts";
import wordsDataset from "../support/datasets-root/plugins/words/words.dataset.ts";

const log = pino({ level: "silent" });
const quiet = { phase() {}, tick() {}, log() {}, done() {} };

/** The root whose plugins/words/words.dataset.ts declares the words dataset: its load runs from there. */
const WORDS_ROOT = path.join(ROOT, "test", "support", "datasets-root");

/** The words dataset, counting the builds of its index. */
function wordsDefinition(indexBuilds: { n: number } = { n: 0 }): DatasetDefinition<Set<string>> {
  return { ...wordsDataset, index: (db) => (indexBuilds.n++, wordsDataset.index!(db)) };
}

function makeDatasets(dataDir: string, def: DatasetDefinition<unknown>, env: NodeJS.ProcessEnv = {}): Datasets {
  const config = loadConfig({ DATA_DIR: dataDir }, { rootDir: WORDS_ROOT });
  const sources = new Map([
    ["demo", { name: "demo", envVar: "UPSTREAM_DEMO", publisher: "Demo publisher", base_url: env.UPSTREAM_DEMO ?? "https://demo.example", public_base_url: "https://demo.example" }],
    ["other", { name: "other", envVar: "UPSTREAM_OTHER", publisher: "Another publisher", base_url: "https://other.example", public_base_url: "https://other.example" }],
  ]);
  const upstream = new UpstreamClient(sources, { timeoutMs: 2_000, retries: 0, cacheMaxEntries: 10, log, env });
  return new Datasets({ config, log, upstream, env }, new Map([[def.name, def]]));
}

function folder(files: Record<string, string | Buffer>): string {
  const dir = tempDir("pda-from-");
  for (const [name, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), body);
  }
  return dir;
}

const words = (d: Datasets) => (d.use("words").db.prepare("SELECT word FROM words ORDER BY rowid").all() as { word: string }[]).map((r) => r.word);

async function rejects(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: Error) => {
    assert.match(e.message, re);
    return true;
  });
}

describe("datasets", () => {
  let datasets: Datasets;
  afterEach(async () => {
    nock.cleanAll();
    await datasets?.close();
  });

  it("answers 503 dataset_not_loaded, saying how to load it, before the first load", () => {
    datasets = makeDatasets(tempDir(), wordsDefinition());
    assert.throws(() => datasets.use("words"), (e: Problem) => {
      assert.ok(e instanceof Problem);
      assert.equal(e.status, 503);
      assert.equal(e.code, "dataset_not_loaded");
      assert.match(e.detail, /npm run sync -- words/);
      return true;
    });
  });

  it("loads a folder, plain and gzipped files alike, with the optional file in a subfolder, and records the version", async () => {
    const builds = { n: 0 };
    datasets = makeDatasets(tempDir(), wordsDefinition(builds));
    const from = folder({ "words.csv.gz": zlib.gzipSync("alpha\nbeta\n"), "lists/extra.csv": "gamma\n" });
    const v = await datasets.sync("words", { from, progress: quiet });
    assert.deepEqual(words(datasets), ["alpha", "beta", "gamma"]);
    assert.deepEqual(v.counts, { words: 2, extra: 1 });
    assert.deepEqual(v.data_dates, { list: "2026-01-01" });
    assert.deepEqual(v.sources.map((s) => s.file), ["words.csv", "lists/extra.csv"]);
    assert.equal(v.sources[0].url, path.join(from, "words.csv.gz"));
    assert.match(v.sources[0].date ?? "", /^\d{4}-\d\d-\d\dT/);
    assert.ok(typeof v.load_ms === "number");
    const h = datasets.use<Set<string>>("words");
    assert.equal(h.version.version, v.version);
    assert.ok(h.index.has("gamma"));
    datasets.use("words");
    assert.equal(builds.n, 1, "the index is built once per version");
  });

  it("leaves an absent optional file out of input.files", async () => {
    datasets = makeDatasets(tempDir(), wordsDefinition());
    const v = await datasets.sync("words", { from: folder({ "words.csv": "alpha\n" }), progress: quiet });
    assert.deepEqual(v.sources.map((s) => s.file), ["words.csv"]);
    assert.deepEqual(words(datasets), ["alpha"]);
  });

  it("keeps the version in use when a load fails, and says why", async () => {
    datasets = makeDatasets(tempDir(), wordsDefinition());
    const first = await datasets.sync("words", { from: folder({ "words.csv": "alpha\nbeta\n" }), progress: quiet });
    await rejects(datasets.sync("words", { from: folder({ "words.csv": "alpha\nBAD\n" }), progress: quiet }),
      new RegExp(`a bad word.*version ${first.version} .* stays in use`));
    await rejects(datasets.sync("words", { from: folder({ "other.csv": "x\n" }), progress: quiet }), /lacks words\.csv/);
    assert.deepEqual(words(datasets), ["alpha", "beta"]);
    assert.equal(datasets.use("words").version.version, first.version);
    const status = datasets.status()[0];
    assert.equal(status.version?.version, first.version);
    assert.match(status.last_failure?.error ?? "", /lacks words\.csv/);
  });

  it("refuses a truncated gzip file and an empty one", async () => {
    datasets = makeDatasets(tempDir(), wordsDefinition());
    const gz = zlib.gzipSync("alpha\nbeta\ngamma\n".repeat(50));
    await rejects(datasets.sync("words", { from: folder({ "words.csv.gz": gz.subarray(0, gz.length - 20) }), progress: quiet }), /words\.csv is truncated or not valid gzip/);
    await rejects(datasets.sync("words", { from: folder({ "words.csv": "" }), progress: quiet }), /words\.csv is empty/);
    assert.throws(() => datasets.use("words"), { code: "dataset_not_loaded" });
  });

  it("refuses a version with less than half the rows of the one in use, unless forced", async () => {
    datasets = makeDatasets(tempDir(), wordsDefinition());
    await datasets.sync("words", { from: folder({ "words.csv": "a\nb\nc\nd\ne\n" }), progress: quiet });
    await rejects(datasets.sync("words", { from: folder({ "words.csv": "a\nb\n" }), progress: quiet }), /words: 2 rows against 5 .*look truncated/);
    assert.equal(words(datasets).length, 5);
    await datasets.sync("words", { from: folder({ "words.csv": "a\nb\n" }), progress: quiet, force: true });
    assert.deepEqual(words(datasets), ["a", "b"]);
  });

  it("switches versions atomically: a handle taken before a sync still reads the old version, the next use() the new one", async () => {
    const dataDir = tempDir();
    datasets = makeDatasets(dataDir, wordsDefinition());
    await datasets.sync("words", { from: folder({ "words.csv": "old\n" }), progress: quiet });
    const before = datasets.use("words");
    await datasets.sync("words", { from: folder({ "words.csv": "new\n" }), progress: quiet });
    assert.deepEqual(before.db.prepare("SELECT word FROM words").all().map((r) => r.word), ["old"]);
    assert.deepEqual(words(datasets), ["new"]);
    await datasets.sync("words", { from: folder({ "words.csv": "newest\n" }), progress: quiet });
    const files = fs.readdirSync(path.join(dataDir, "datasets", "words")).filter((f) => f.endsWith(".sqlite"));
    assert.equal(files.length, 2, "the current and the previous version are kept, older ones removed");
  });

  it("sees a version loaded by another process (a CLI sync while the server runs)", async () => {
    const dataDir = tempDir();
    datasets = makeDatasets(dataDir, wordsDefinition());
    await datasets.sync("words", { from: folder({ "words.csv": "one\n" }), progress: quiet });
    assert.deepEqual(words(datasets), ["one"]);
    const other = makeDatasets(dataDir, wordsDefinition());
    await new Promise((r) => setTimeout(r, 20)); // a distinct pointer-file mtime
    await other.sync("words", { from: folder({ "words.csv": "two\n" }), progress: quiet });
    await other.close();
    assert.deepEqual(words(datasets), ["two"]);
  });

  describe("download", () => {
    before(isolateNetwork);

    it("downloads from the source's base URL as overridden by UPSTREAM_<NAME>, with the engine's User-Agent", async () => {
      datasets = makeDatasets(tempDir(), wordsDefinition(), { UPSTREAM_DEMO: "http://mirror.test/data" });
      const scope = nock("http://mirror.test", { reqheaders: { "user-agent": USER_AGENT } })
        .get("/data/export/words.csv").reply(200, "alpha\nbeta\n", { "last-modified": "Wed, 05 Aug 2026 10:00:00 GMT" })
        .get("/data/export/extra.csv").reply(404, "not here");
      const v = await datasets.sync("words", { progress: quiet });
      assert.ok(scope.isDone());
      assert.deepEqual(words(datasets), ["alpha", "beta"]);
      assert.deepEqual(v.sources, [{ file: "words.csv", url: "http://mirror.test/data/export/words.csv", date: "2026-08-05T10:00:00.000Z", date_from: "last-modified" }]);
      assert.equal(datasets.provenance(datasets.use("words")).url, "http://mirror.test/data/export/words.csv");
    });

    it("downloads a file that names its own source from that source", async () => {
      const def = wordsDefinition();
      def.files = [def.files[0], { ...def.files[1], source: "other" }];
      datasets = makeDatasets(tempDir(), def);
      const scope = nock("https://demo.example").get("/export/words.csv").reply(200, "alpha\n")
        .intercept("/export/extra.csv", "GET").reply(500, "must not be asked");
      const other = nock("https://other.example").get("/export/extra.csv").reply(200, "omega\n");
      await datasets.sync("words", { progress: quiet });
      assert.ok(other.isDone());
      assert.deepEqual(words(datasets), ["alpha", "omega"]);
      assert.equal(scope.pendingMocks().length, 1, "the dataset's own source was not asked for the other file");
      nock.cleanAll();
    });

    it("keeps the previous version when the download fails, and names the URL and status", async () => {
      datasets = makeDatasets(tempDir(), wordsDefinition());
      await datasets.sync("words", { from: folder({ "words.csv": "kept\n" }), progress: quiet });
      nock("https://demo.example").get("/export/words.csv").reply(503, "busy");
      await rejects(datasets.sync("words", { progress: quiet }), /https:\/\/demo\.example\/export\/words\.csv answered HTTP 503.*stays in use/);
      assert.deepEqual(words(datasets), ["kept"]);
    });

    it("leaves out an optional file the source refuses, saying why, but refuses a version that lost a kind the one in use had", async () => {
      datasets = makeDatasets(tempDir(), wordsDefinition());
      nock("https://demo.example").get("/export/words.csv").reply(200, "alpha\n").get("/export/extra.csv").reply(200, "omega\n");
      await datasets.sync("words", { progress: quiet });
      const said: string[] = [];
      nock("https://demo.example").get("/export/words.csv").reply(200, "alpha\n").get("/export/extra.csv").reply(403, "token needed");
      await rejects(datasets.sync("words", { progress: { ...quiet, log: (m: string) => said.push(m) } }), /extra: 0 rows against 1/);
      assert.match(said.join("\n"), /lists\/extra\.csv left out: https:\/\/demo\.example\/export\/extra\.csv answered HTTP 403/);
      assert.deepEqual(words(datasets), ["alpha", "omega"]);
    });

    it("follows a redirect only on the source's own host: another local port and the metadata address are refused, unasked, and the version in use stays", async () => {
      let otherAsked = 0;
      const other = http.createServer((_req, res) => (otherAsked++, res.end("stolen\n")));
      await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
      let location = "";
      const source = http.createServer((req, res) => {
        if (req.url === "/export/words-moved.csv") return void res.end("moved\n");
        if (req.url === "/export/extra.csv") return void res.writeHead(404).end();
        res.writeHead(302, { location }).end();
      });
      await new Promise<void>((r) => source.listen(0, "127.0.0.1", r));
      try {
        datasets = makeDatasets(tempDir(), wordsDefinition(), { UPSTREAM_DEMO: `http://127.0.0.1:${(source.address() as AddressInfo).port}` });
        const first = await datasets.sync("words", { from: folder({ "words.csv": "kept\n" }), progress: quiet });
        const otherPort = (other.address() as AddressInfo).port;
        for (const [to, host] of [[`http://127.0.0.1:${otherPort}/export/words.csv`, `http://127.0.0.1:${otherPort}`], ["http://169.254.169.254/latest/meta-data/", "http://169.254.169.254"]]) {
          location = to;
          await rejects(datasets.sync("words", { progress: quiet }),
            new RegExp(`export/words\\.csv redirected to another host \\(${host.replace(/\./g, "\\.")}\\), which is not followed.*version ${first.version} .* stays in use`));
        }
        assert.equal(otherAsked, 0, "the other server was not asked");
        assert.deepEqual(words(datasets), ["kept"]);
        location = "/export/words-moved.csv";
        await datasets.sync("words", { progress: quiet });
        assert.deepEqual(words(datasets), ["moved"], "a redirect within the source's host is followed");
      } finally {
        other.close();
        source.close();
      }
    });

    it("refuses a file larger than the dataset's maxBytes, declared or streamed, and keeps the version in use", async () => {
      datasets = makeDatasets(tempDir(), wordsDefinition());
      await datasets.sync("words", { from: folder({ "words.csv": "kept\n" }), progress: quiet });
      nock("https://demo.example").get("/export/words.csv").reply(200, "word\n".repeat(300));
      await rejects(datasets.sync("words", { progress: quiet }), /words\.csv sent more than 1 kB, the most the words dataset takes \(its maxBytes\).*stays in use/);
      // A body without a length that would never end: dropped once past the bound.
      let stopped = false;
      const endless = http.createServer((_req, res) => {
        res.writeHead(200);
        const push = () => { if (!res.destroyed && res.write("word\n".repeat(100))) setImmediate(push); else if (!res.destroyed) res.once("drain", push); };
        res.on("close", () => (stopped = true));
        push();
      });
      await new Promise<void>((r) => endless.listen(0, "127.0.0.1", r));
      try {
        await datasets.close();
        datasets = makeDatasets(tempDir(), wordsDefinition(), { UPSTREAM_DEMO: `http://127.0.0.1:${(endless.address() as AddressInfo).port}` });
        await datasets.sync("words", { from: folder({ "words.csv": "kept\n" }), progress: quiet });
        await rejects(datasets.sync("words", { progress: quiet }), /sent more than 1 kB.*stays in use/);
        const deadline = Date.now() + 5_000;
        while (!stopped && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.ok(stopped, "the connection was closed");
        assert.deepEqual(words(datasets), ["kept"]);
      } finally {
        endless.closeAllConnections();
        endless.close();
      }
    });

    it("refuses a download whose connection drops before its Content-Length, and says so", async () => {
      const server = http.createServer((_req, res) => {
        res.writeHead(200, { "content-length": "500" });
        res.write("alpha\nbe");
        setTimeout(() => res.socket?.destroy(), 10);
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      try {
        datasets = makeDatasets(tempDir(), wordsDefinition(), { UPSTREAM_DEMO: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
        await rejects(datasets.sync("words", { progress: quiet }), /export\/words\.csv could not be downloaded.*no version is loaded/);
        assert.throws(() => datasets.use("words"), { code: "dataset_not_loaded" });
      } finally {
        server.close();
      }
    });
  });

  it("test servers load plugins/<group>/fixtures/<name> once per engine", async () => {
    datasets = await createDatasets({ config: loadConfig({ DATA_DIR: tempDir() }), log, upstream: new UpstreamClient(readSources(path.join(ROOT, "sources.yaml")), { timeoutMs: 1_000, retries: 0, cacheMaxEntries: 1, log }) }, { refresh: false });
    assert.ok(datasets.definitions.has("airports"), "plugins/airports/airports.dataset.ts is discovered");
    await datasets.loadTestDatasets(["airports"]);
    const v = datasets.use("airports").version;
    await datasets.loadTestDatasets(["airports"]);
    assert.equal(datasets.use("airports").version.version, v.version);
  });

  it("finds a definition in any group's folder and refuses two datasets of one name", async () => {
    const root = tempDir();
    const declare = (file: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.copyFileSync(path.join(WORDS_ROOT, "plugins", "words", "words.dataset.ts"), path.join(root, file));
    };
    declare("plugins/alpha/words.dataset.ts");
    assert.equal(definitionFile(root, "words"), path.join(root, "plugins", "alpha", "words.dataset.ts"));
    declare("plugins/beta/words.dataset.ts");
    assert.throws(() => definitionFile(root, "words"), /plugins\/beta\/words\.dataset\.ts: plugins\/alpha\/words\.dataset\.ts declares "words" too/);
  });

  it("a server builds the index of a version another process loaded without waiting for a call", async () => {
    const dir = tempDir();
    const builds = { n: 0 };
    datasets = makeDatasets(dir, wordsDefinition(builds));
    await datasets.sync("words", { from: folder({ "words.csv": "alpha\n" }), progress: quiet });
    void datasets.startBackground(20);
    const cli = makeDatasets(dir, wordsDefinition());
    await cli.sync("words", { from: folder({ "words.csv": "alpha\nbeta\n" }), progress: quiet });
    await cli.close();
    const before = builds.n;
    const deadline = Date.now() + 3_000;
    while (builds.n === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(builds.n, before + 1, "built once, by the check");
    assert.ok(datasets.use<Set<string>>("words").index.has("beta"));
    assert.equal(builds.n, before + 1, "the call found it built");
  });

  it("background refresh is off under NODE_ENV=test and with DATASET_REFRESH=off", () => {
    assert.equal(refreshEnabled({ NODE_ENV: "test" }), false);
    assert.equal(refreshEnabled({ DATASET_REFRESH: "off" }), false);
    assert.equal(refreshEnabled({ NODE_ENV: "production" }), true);
  });

  it("refreshes a dataset whose interval has passed, and tries a failed refresh again", async () => {
    const def = wordsDefinition();
    const calls: string[] = [];
    let succeed!: () => void;
    const refreshed = new Promise<void>((r) => (succeed = r));
    const syncer = {
      async syncInTurn(name: string) {
        calls.push(name);
        if (calls.length === 1) throw new Error("the source is down");
        succeed();
        return { name, version: "v2", loaded_at: new Date().toISOString(), sources: [], counts: { words: 1 } };
      },
    };
    const schedule = new RefreshSchedule(syncer, log, { minDelayMs: 0, retryMs: 0 });
    schedule.schedule(def, { name: "words", version: "v1", loaded_at: "2020-01-01T00:00:00Z", sources: [], counts: { words: 1 } });
    await refreshed;
    schedule.stop();
    assert.deepEqual(calls, ["words", "words"]);
  });

  describe("npm run sync", () => {
    const run = (args: string[], dataDir: string) =>
      promisify(execFile)(process.execPath, ["engine/cli.ts", "sync", ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent", DATASET_REFRESH: "off" } })
        .then((r) => ({ code: 0, ...r }), (e: { code: number; stdout: string; stderr: string }) => e);

    it("loads a dataset from a folder and lists it with its counts", async () => {
      const dataDir = tempDir();
      const sync = await run(["airports", "--from", "plugins/airports/fixtures/airports"], dataDir);
      assert.equal(sync.code, 0, sync.stderr);
      assert.match(sync.stdout, /airports 18, runways 36/);
      const list = await run(["--list"], dataDir);
      assert.match(list.stdout, /^airports {2}OurAirports/m);
      assert.match(list.stdout, /airports\.csv: .*plugins\/airports\/fixtures\/airports\/airports\.csv/);
    });

    it("exits 1 and says why when the folder lacks the files, and 2 for an unknown dataset", async () => {
      const dataDir = tempDir();
      const failed = await run(["airports", "--from", "plugins/airports/fixtures"], dataDir);
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, /lacks airports\.csv/);
      const unknown = await run(["no-such-dataset"], dataDir);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /There is no dataset "no-such-dataset"/);
    });
  });
});
