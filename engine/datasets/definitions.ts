// Dataset definitions: plugins/<group>/<name>.dataset.ts (plugins/shared/ for one several groups use), each
// `export default` a DatasetDefinition named like its file, beside the code that parses and queries it. A
// definition that does not hold together stops start-up with its file and the problem, as endpoint files do.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { durationMs } from "../basics/duration.ts";
import type { Source } from "../upstream/sources.ts";
import type { DatasetDefinition } from "./types.ts";

const SUFFIX = ".dataset.ts";

/** Every definition file under plugins/, by dataset name (the file name without .dataset.ts). */
function definitionFiles(rootDir: string): Map<string, string> {
  const plugins = path.join(rootDir, "plugins");
  const out = new Map<string, string>();
  if (!fs.existsSync(plugins)) return out;
  for (const folder of fs.readdirSync(plugins, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    for (const file of fs.readdirSync(path.join(plugins, folder)).filter((f) => f.endsWith(SUFFIX)).sort()) {
      const name = file.slice(0, -SUFFIX.length);
      if (out.has(name)) throw new Error(`Dataset definitions are not valid:\n  plugins/${folder}/${file}: ${path.relative(rootDir, out.get(name)!)} declares "${name}" too`);
      out.set(name, path.join(plugins, folder, file));
    }
  }
  return out;
}

/** The file that declares a dataset: a load's worker thread imports the definition from there. */
export function definitionFile(rootDir: string, name: string): string {
  const file = definitionFiles(rootDir).get(name);
  if (!file) throw new Error(`no plugins/*/${name}${SUFFIX} declares the dataset ${name}`);
  return file;
}

/** Tests: the small copy of a dataset's files in its upstream's format, beside its definition (fixtures/<name>/). */
export function testCopyDir(rootDir: string, name: string): string {
  return path.join(path.dirname(definitionFile(rootDir, name)), "fixtures", name);
}

export async function loadDefinitions(rootDir: string, sources: Map<string, Source>): Promise<Map<string, DatasetDefinition>> {
  const out = new Map<string, DatasetDefinition>();
  const problems: string[] = [];
  for (const [name, file] of definitionFiles(rootDir)) {
    const rel = path.relative(rootDir, file);
    const def = ((await import(pathToFileURL(file).href)) as { default?: DatasetDefinition }).default;
    const problem = checkDefinition(def, name, sources);
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
