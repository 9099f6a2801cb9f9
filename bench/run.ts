// npm run bench [-- name ...]: runs every bench/*.bench.ts (or the named ones) one after another.
// Each exports `default` an async function that prints its own results and returns nothing.
import fs from "node:fs";
import path from "node:path";

const dir = import.meta.dirname;
const wanted = process.argv.slice(2);
const files = fs.readdirSync(dir).filter((f) => f.endsWith(".bench.ts") && (!wanted.length || wanted.some((w) => f.startsWith(w)))).sort();
for (const f of files) {
  console.log(`\n=== ${f.replace(".bench.ts", "")} ===`);
  const mod = (await import(path.join(dir, f))) as { default: () => Promise<void> };
  await mod.default();
}
