// The processes a benchmark measures, started as production starts them: the service as `npm start` does
// (`node engine/cli.ts serve`, its own process), and small helper servers (bare Express, a fake upstream), all on
// the Node that runs the benchmark.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../test/support/free-port.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

export interface Child {
  url: string;
  pid: number;
  /** Milliseconds from the spawn to the first 200 of `readyPath`. */
  readyMs: number;
  /** The child's resident memory (MB) at that moment. */
  readyRssMb: number;
  stop(): Promise<void>;
}


export const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** Resident memory of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
}

/** CPU time (user + system) a process has spent so far, in ms (Linux: /proc/<pid>/stat, in clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Runs `node <args>` (a file of this repository) with PORT set, and waits for readyPath to answer 200. */
export async function startChild(args: string[], env: NodeJS.ProcessEnv, readyPath = "/health"): Promise<Child> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...env, PORT: String(port), HOST: "127.0.0.1" }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited (${child.exitCode}): ${stderr.slice(-2000)}`);
    try {
      if ((await fetch(`${url}${readyPath}`)).ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - t0;
  return { url, pid: child.pid!, readyMs, readyRssMb: rssMb(child.pid!), stop: () => stop(child, exited) };
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null) child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The service as `npm start` runs it. */
export const startService = (env: NodeJS.ProcessEnv) => startChild(["engine/cli.ts", "serve"], env);
