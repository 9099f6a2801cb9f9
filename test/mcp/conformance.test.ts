// The MCP project's conformance suite (@modelcontextprotocol/conformance 0.1.16, which needs Node 24) against
// the running server. Only the scenarios that apply to a tools-only server: the rest test features we do not
// offer (resources, prompts, sampling, the everything-server's test_* tools).
import assert from "node:assert/strict";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ROOT, startTestServer, tempDir } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

const run = promisify(execFile);
const NODE = path.join(ROOT, "node_modules", ".bin", "node");
const CONFORMANCE = path.join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

describe("MCP conformance (@modelcontextprotocol/conformance)", () => {
  let server: Running;
  before(async () => {
    server = await startTestServer({ env: { BASE_URL: "https://data.example.org" } });
  });
  after(async () => {
    await server?.close();
  });

  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const args = [CONFORMANCE, "server", "--url", `${server.url}/mcp`, "--scenario", scenario, "--output-dir", tempDir("pda-conformance-")];
      const { stdout } = await run(NODE, args, { cwd: tempDir("pda-conformance-cwd-") }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`conformance ${scenario} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}${e.message}`);
      });
      assert.match(stdout, /Passed: (\d+)\/\1, 0 failed/);
    });
  }
});
