// The server's registry (lazy) starts without compiling a transform or loading a plugin module: each is done by
// the first call that needs it. The tests' registry (not lazy) still finds every fault at load.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { ROOT, tempDir } from "../support/helpers.ts";

const GROUP = `title: Demo\ndescription: A demo group.\n`;
const ENDPOINT = (extra: string) => `operation: thing\nsummary: A thing\ndescription: A thing.\nprice: 0.001\n${extra}\nexamples:\n  - params: {}\n`;

/** A project folder of one group, demo, with its plugin file; schemas and sources are the project's. */
function project(endpoint: string, plugin?: string): string {
  const root = tempDir("pda-lazy-");
  fs.writeFileSync(path.join(root, "package.json"), `{ "type": "module" }\n`);
  fs.symlinkSync(path.join(ROOT, "schemas"), path.join(root, "schemas"));
  fs.copyFileSync(path.join(ROOT, "sources.yaml"), path.join(root, "sources.yaml"));
  fs.mkdirSync(path.join(root, "endpoints", "demo"), { recursive: true });
  fs.writeFileSync(path.join(root, "endpoints", "demo", "_group.yaml"), GROUP);
  fs.writeFileSync(path.join(root, "endpoints", "demo", "thing.yaml"), endpoint);
  if (plugin) {
    fs.mkdirSync(path.join(root, "plugins", "demo"), { recursive: true });
    fs.writeFileSync(path.join(root, "plugins", "demo", "index.ts"), plugin);
  }
  return root;
}

const load = (root: string, lazy: boolean) => loadRegistry({ rootDir: root, endpointsDir: path.join(root, "endpoints"), lazy });

describe("the server's registry, lazy", () => {
  it("compiles a transform by its first call: a syntax error fails that call (with its line), not the start", async () => {
    const root = project(ENDPOINT(`upstream:\n  source: fsa\n  path: /x\ntransform: |\n  (\n    $a := 1;\n    { "x": $a + }\n  )`));
    await assert.rejects(load(root, false), /thing\.yaml: transform: .*\(line 3, column \d+/);
    const registry = await load(root, true);
    const endpoint = registry.find("demo", "thing")!;
    await assert.rejects(endpoint.transform!.evaluate({}, { params: {}, vars: {} }), /line 3, column \d+/);
  });

  it("loads a plugin module by the first use of its function, once", async () => {
    const key = `pdaLazyPlugin${Date.now()}`;
    const root = project(ENDPOINT("plugin: thing"),
      `(globalThis as Record<string, unknown>).${key} = ((globalThis as Record<string, unknown>).${key} as number ?? 0) + 1;\nexport function thing() {\n  return { answer: 42 };\n}\n`);
    const registry = await load(root, true);
    const global = globalThis as Record<string, unknown>;
    assert.equal(global[key], undefined, "not loaded at start");
    const endpoint = registry.find("demo", "thing")!;
    assert.deepEqual(await endpoint.plugin!.fn({} as never), { answer: 42 });
    assert.deepEqual(await endpoint.plugin!.fn({} as never), { answer: 42 });
    assert.equal(global[key], 1, "loaded once, by the first use");
  });

  it("says at the first use, not at the start, that a plugin file lacks the function the endpoint names", async () => {
    const root = project(ENDPOINT("plugin: missing"), "export function thing() {\n  return {};\n}\n");
    await assert.rejects(load(root, false), /plugins\/demo\/index\.ts exports no function "missing"/);
    const endpoint = (await load(root, true)).find("demo", "thing")!;
    assert.throws(() => endpoint.plugin!.fn, /plugins\/demo\/index\.ts exports no function "missing"/);
  });
});
