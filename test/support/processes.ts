// Servers run as child processes (`node engine/cli.ts serve`), as in production: crash and scale-out tests.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { ROOT } from "./helpers.ts";

export { freePort } from "./free-port.ts";

export function serve(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(path.join(ROOT, "node_modules", ".bin", "node"), ["engine/cli.ts", "serve"], { cwd: ROOT, env, stdio: "ignore" });
}

/** Resolves when the child has exited, also when it exited before this was called. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once("exit", () => r()));
}

export async function waitHealthy(url: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the server did not start");
}
