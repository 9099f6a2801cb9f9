// `npm start` runs the server as npm's own child (the script execs node), so `kill -TERM` on the npm process
// reaches the server: it stops and frees its port.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import { ROOT, tempDir } from "../support/helpers.ts";

/** Whether the port is free: we can listen on it ourselves (a probe connection would go through nock's interceptors). */
const free = (port: number) => new Promise<boolean>((resolve) => {
  const probe = net.createServer();
  probe.once("error", () => resolve(false));
  probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
});

describe("stopping npm start", () => {
  it("kill -TERM on the npm process stops the server and frees the port", async function () {
    this.timeout(30_000);
    const npm = spawn("npm", ["start"], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: tempDir(), DATASET_REFRESH: "off", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so that a failing test can still end the server it started.
      detached: true,
    });
    const exited = new Promise<number | null>((r) => npm.on("exit", (code) => r(code)));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = "";
        npm.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const m = /"url":"http:\/\/127\.0\.0\.1:(\d+)".*"msg":"serving"/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        npm.on("exit", () => reject(new Error(`npm start exited before serving: ${out.slice(-500)}`)));
      });
      assert.equal(await free(port), false, "the server holds the port");
      npm.kill("SIGTERM");
      await exited;
      const deadline = Date.now() + 5_000;
      while (!(await free(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.equal(await free(port), true, "the port is free");
    } finally {
      try {
        process.kill(-npm.pid!, "SIGKILL");
      } catch {
        // The group is gone: everything stopped.
      }
    }
  });
});
