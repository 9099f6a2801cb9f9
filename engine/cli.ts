#!/usr/bin/env node
// npm start | npm run sync -- <dataset> [--from dir] | npm run keys -- ... | npm run credit -- ...
import { commands } from "./commands.ts";

const [command = "serve", ...args] = process.argv.slice(2);
const run = commands[command];
if (!run) {
  console.error(`Unknown command "${command}". Commands: ${Object.keys(commands).join(", ")}`);
  process.exit(2);
}
await run(args);
