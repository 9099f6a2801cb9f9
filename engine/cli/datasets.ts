// `npm run sync -- <dataset> [--from <dir>]` loads a dataset; `npm run sync -- all [--from <dir>]` loads every one,
// from a folder laid out like ../shared/data (each dataset in its definition's `folder`); `--list` shows what is loaded.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { createLogger } from "../basics/log.ts";
import { readSources } from "../upstream/sources.ts";
import { UpstreamClient } from "../upstream/client.ts";
import { createDatasets, type Datasets, type DatasetStatus } from "../datasets/index.ts";
import type { Command } from "./command.ts";

const USAGE = "Usage: npm run sync -- <dataset> [--from <folder>] [--force]   |   npm run sync -- all [--from <folder of every dataset>]   |   npm run sync -- --list";

async function openDatasets(): Promise<Datasets> {
  const env = process.env;
  const config = loadConfig(env);
  const log = createLogger(config.logLevel);
  const sources = readSources(path.join(config.rootDir, "sources.yaml"), env);
  const upstream = new UpstreamClient(sources, { timeoutMs: config.upstreamTimeoutMs, retries: config.upstreamRetries, cacheMaxEntries: 1, log, env });
  return createDatasets({ config, log, upstream, env }, { refresh: false });
}

export function describeStatus(s: DatasetStatus): string {
  const lines = [`${s.name}  ${s.title}  (source ${s.source}, refresh every ${s.refresh})`];
  if (s.version) {
    const counts = Object.entries(s.version.counts).map(([k, n]) => `${k} ${n}`).join(", ");
    lines.push(`  version ${s.version.version}, loaded ${s.version.loaded_at}${s.version.load_ms !== undefined ? ` in ${(s.version.load_ms / 1000).toFixed(1)} s` : ""}: ${counts}`);
    for (const src of s.version.sources) lines.push(`  ${src.file}: ${src.url}${src.date ? ` (${src.date})` : ""}`);
  } else {
    lines.push(`  not loaded: npm run sync -- ${s.name}`);
  }
  if (s.last_failure) lines.push(`  last sync failed ${s.last_failure.at}: ${s.last_failure.error}`);
  return lines.join("\n");
}

export const datasetCommands: Record<string, Command> = {
  async sync(args) {
    let parsed;
    try {
      parsed = parseArgs({ args, allowPositionals: true, options: { from: { type: "string" }, list: { type: "boolean" }, force: { type: "boolean" } } });
    } catch (e) {
      console.error(`${(e as Error).message}\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    const { values, positionals } = parsed;
    const datasets = await openDatasets();
    try {
      if (values.list) {
        const all = datasets.status();
        console.log(all.length ? all.map(describeStatus).join("\n\n") : "No datasets are defined (plugins/*/*.dataset.ts).");
        return;
      }
      if (positionals.length !== 1) {
        console.error(`${USAGE}\nDatasets: ${[...datasets.definitions.keys()].join(", ") || "none"}`);
        process.exitCode = 2;
        return;
      }
      const [name] = positionals;
      if (name === "all") {
        process.exitCode = await syncAll(datasets, values.from, values.force);
        return;
      }
      if (!datasets.definitions.has(name)) {
        console.error(`There is no dataset "${name}". Datasets: ${[...datasets.definitions.keys()].join(", ") || "none"}`);
        process.exitCode = 2;
        return;
      }
      const v = await datasets.sync(name, { from: values.from, force: values.force });
      console.log(describeStatus({ ...datasets.status().find((s) => s.name === name)!, version: v }));
    } catch (e) {
      console.error((e as Error).message);
      process.exitCode = 1;
    } finally {
      await datasets.close();
    }
  },
};

/**
 * Every dataset in turn, each from its subfolder of `from` or downloaded. A dataset whose subfolder `from` lacks is
 * skipped, and listed as such: the exit code is 1 only when a dataset that was there (or downloaded) failed to load,
 * or when `from` holds none of them.
 */
async function syncAll(datasets: Datasets, from: string | undefined, force: boolean | undefined): Promise<number> {
  if (from && !fs.existsSync(from)) {
    console.error(`${from} does not exist.`);
    return 1;
  }
  const failed: string[] = [];
  const skipped: string[] = [];
  for (const def of datasets.definitions.values()) {
    const folder = from && path.join(from, def.folder);
    if (folder && !fs.existsSync(folder)) {
      skipped.push(`${def.name} (no ${def.folder}/ in ${from})`);
      continue;
    }
    try {
      const v = await datasets.sync(def.name, { from: folder, force });
      console.log(describeStatus({ ...datasets.status().find((s) => s.name === def.name)!, version: v }));
    } catch (e) {
      console.error((e as Error).message);
      failed.push(def.name);
    }
  }
  if (skipped.length) {
    console.log(`Skipped, no copy in the folder: ${skipped.join(", ")}. Load them from their sources with npm run sync -- <dataset>.`);
  }
  if (failed.length) console.error(`Failed to load: ${failed.join(", ")}`);
  if (skipped.length === datasets.definitions.size) {
    const folders = [...datasets.definitions.values()].map((d) => d.folder);
    console.error(`${from} holds none of the datasets' folders (${folders.join(", ")}).`);
    return 1;
  }
  return failed.length ? 1 : 0;
}
