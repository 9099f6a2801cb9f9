// Dataset definitions: plugins/datasets/<name>.ts, each `export default` a DatasetDefinition named like its file.
// A definition that does not hold together stops start-up with its file and the problem, as endpoint files do.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { durationMs } from "../basics/duration.ts";
import type { Source } from "../upstream/sources.ts";
import type { DatasetDefinition } from "./types.ts";

/** The file that declares a dataset: a load's worker thread imports the definition from there. */
export function definitionFile(rootDir: string, name: string): string {
  return path.join(rootDir, "plugins", "datasets", `${name}.ts`);
}

export async function loadDefinitions(rootDir: string, sources: Map<string, Source>): Promise<Map<string, DatasetDefinition>> {
  const dir = path.dirname(definitionFile(rootDir, "-"));
  const out = new Map<string, DatasetDefinition>();
  if (!fs.existsSync(dir)) return out;
  const problems: string[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".ts")).sort()) {
    const rel = `plugins/datasets/${file}`;
    const def = ((await import(pathToFileURL(path.join(dir, file)).href)) as { default?: DatasetDefinition }).default;
    const problem = checkDefinition(def, path.basename(file, ".ts"), sources);
    if (problem) problems.push(`${rel}: ${problem}`);
    else out.set(def!.name, def!);
  }
  if (problems.length) throw new Error(`Dataset definitions are not valid:\n  ${problems.join("\n  ")}`);
  return out;
}

function checkDefinition(def: DatasetDefinition | undefined, fileName: string, sources: Map<string, Source>): string | undefined {
  if (!def || typeof def !== "object") return "has no default export (a DatasetDefinition)";
  if (def.name !== fileName) return `name "${def.name}" must match the file name "${fileName}"`;
  if (typeof def.load !== "function") return "has no load() function";
  if (!Array.isArray(def.files) || !def.files.length) return "declares no files";
  if (def.maxBytes !== undefined && !(Number.isSafeInteger(def.maxBytes) && def.maxBytes > 0)) return `maxBytes ${def.maxBytes} must be a positive whole number of bytes`;
  for (const name of [def.source, ...def.files.map((f) => f.source)]) {
    if (name !== undefined && !sources.has(name)) return `source "${name}" is not declared in sources.yaml`;
  }
  try {
    if (!durationMs(def.refresh)) return `refresh "${def.refresh}" must be a duration such as 1d`;
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}
