// Where dataset versions live: <DATA_DIR>/datasets/<name>/<version>.sqlite, plus current.json, the pointer to
// the version in use. The pointer is replaced by rename, so a reader sees the old version or the new one, never
// half a load. The previous version's file is kept; older ones are removed.
import fs from "node:fs";
import path from "node:path";
import type { DatasetVersion } from "./types.ts";

export interface Failure { at: string; error: string }

export class DatasetStore {
  readonly root: string;
  constructor(dataDir: string) {
    this.root = path.join(dataDir, "datasets");
  }

  dir(name: string): string {
    return path.join(this.root, name);
  }

  file(name: string, version: string): string {
    return path.join(this.dir(name), `${version}.sqlite`);
  }

  /** A fresh version id that sorts by time: 2026-11-21T23-45-49-123Z-<pid>. */
  newVersion(): string {
    return `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`;
  }

  pointerPath(name: string): string {
    return path.join(this.dir(name), "current.json");
  }

  current(name: string): DatasetVersion | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.pointerPath(name), "utf8")) as DatasetVersion;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  /** The pointer file's change time, to notice a version switched by another process (a CLI sync). */
  pointerStamp(name: string): number | undefined {
    try {
      return fs.statSync(this.pointerPath(name)).mtimeMs;
    } catch {
      return undefined;
    }
  }

  /** Makes `version` the current one, atomically, and removes versions older than the previous one. */
  switchTo(v: DatasetVersion): void {
    const dir = this.dir(v.name);
    const tmp = path.join(dir, `current.json.${process.pid}.tmp`);
    const previous = this.current(v.name)?.version;
    fs.writeFileSync(tmp, JSON.stringify(v, null, 2));
    fs.renameSync(tmp, this.pointerPath(v.name));
    fs.rmSync(path.join(dir, "last-failure.json"), { force: true });
    const keep = new Set([v.version, previous].filter(Boolean).map((x) => `${x}.sqlite`));
    for (const f of fs.readdirSync(dir)) {
      if (f.endsWith(".sqlite") && !keep.has(f)) fs.rmSync(path.join(dir, f), { force: true });
    }
  }

  recordFailure(name: string, error: string): void {
    fs.mkdirSync(this.dir(name), { recursive: true });
    fs.writeFileSync(path.join(this.dir(name), "last-failure.json"), JSON.stringify({ at: new Date().toISOString(), error } satisfies Failure, null, 2));
  }

  lastFailure(name: string): Failure | undefined {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.dir(name), "last-failure.json"), "utf8")) as Failure;
    } catch {
      return undefined;
    }
  }
}
