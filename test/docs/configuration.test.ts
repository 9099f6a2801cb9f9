// docs/configuration.md is the one table of environment variables: every variable the service, its plugins, the
// benchmarks and the test support read must be in it, and every credential sources.yaml names.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { credentialVars, readSources } from "../../engine/upstream/sources.ts";
import { ROOT } from "../support/helpers.ts";

/** The variables a piece of TypeScript reads by name: process.env.X, env.X, env?.X, env["X"]. */
export function variablesRead(source: string): string[] {
  const names = new Set<string>();
  for (const m of source.matchAll(/\b(?:process\.env|env)\??\.([A-Z][A-Z0-9_]+)\b|\b(?:process\.env|env)\[["'`]([A-Z][A-Z0-9_]+)["'`]\]/g)) {
    names.add(m[1] ?? m[2]);
  }
  return [...names];
}

/** Every .ts file under dir, test files (*.test.ts: their own switches) excepted. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((f) => f.isFile() && f.name.endsWith(".ts") && !f.name.endsWith(".test.ts"))
    .map((f) => path.join(f.parentPath, f.name));
}

/** The names in the variable column of the page's table. */
function tableVariables(page: string): Set<string> {
  const rows = page.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| part") && !l.startsWith("|---"));
  return new Set(rows.flatMap((row) => [...row.split(" | ")[1].matchAll(/`([^`]+)`/g)].map((m) => m[1])));
}

describe("docs/configuration.md", () => {
  const page = fs.readFileSync(path.join(ROOT, "docs", "configuration.md"), "utf8");
  const documented = tableVariables(page);

  it("finds the variables a file reads, however it names the environment", () => {
    const code = 'const a = process.env.PORT ?? 1; f(env.X402_PAY_TO, opts.env?.LOG_JSON, env["REDIS_URL"], env.lower, env[name]);';
    assert.deepEqual(variablesRead(code).sort(), ["LOG_JSON", "PORT", "REDIS_URL", "X402_PAY_TO"]);
  });

  it("lists every variable the code reads", () => {
    const read = new Map<string, string>();
    for (const dir of ["engine", "plugins", "bench", "test"]) {
      for (const file of sourceFiles(path.join(ROOT, dir))) {
        for (const v of variablesRead(fs.readFileSync(file, "utf8"))) read.set(v, path.relative(ROOT, file));
      }
    }
    assert.ok(read.has("PORT") && read.has("X402_PAY_TO") && read.has("BENCH_SECONDS"), "the scan reads the service, the payments and the benchmarks");
    const missing = [...read].filter(([v]) => !documented.has(v)).map(([v, file]) => `${v} (read in ${file})`);
    assert.deepEqual(missing, [], "add these to the table of docs/configuration.md");
  });

  it("lists every credential and contact variable sources.yaml names", () => {
    const missing: string[] = [];
    for (const s of readSources(path.join(ROOT, "sources.yaml"), {}).values()) {
      const vars = [...credentialVars(s), ...(s.auth?.fallback_env ? [s.auth.fallback_env] : []), ...Object.values(s.query_env ?? {}).map((q) => q.env)];
      missing.push(...vars.filter((v) => !documented.has(v)).map((v) => `${v} (source ${s.name})`));
    }
    assert.deepEqual(missing, []);
  });

  it("lists the variables whose names are made from a source, a group or an operation", () => {
    for (const v of ["UPSTREAM_<NAME>", "UPSTREAM_<NAME>_TOKEN_URL", "ALLOWANCE_<GROUP>", "ALLOWANCE_<GROUP>__<OPERATION>"]) assert.ok(documented.has(v), v);
  });

  it("is the only table of variables: the README and the other pages link to it", () => {
    for (const file of ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f !== "configuration.md").map((f) => `docs/${f}`)]) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      assert.ok(!/^\| *variable *\|/m.test(text), `${file} has a table of variables of its own`);
    }
  });
});
