#!/usr/bin/env node
// npm start | npm run sync -- <dataset> [--from dir] | npm run keys -- ... | npm run credit -- ... | npm run answers | npm run docs
// The operator commands, collected from engine/cli/ (each file the commands of one part of the engine).
import type { Command } from "./cli/command.ts";
import { serveCommands } from "./cli/serve.ts";
import { accessCommands } from "./cli/access.ts";
import { datasetCommands } from "./cli/datasets.ts";
import { answerCommands } from "./cli/answers.ts";
import { docsCommands } from "./cli/endpoint-format.ts";

const commands: Record<string, Command> = { ...serveCommands, ...accessCommands, ...datasetCommands, ...answerCommands, ...docsCommands };

const [command = "serve", ...args] = process.argv.slice(2);
const run = commands[command];
if (!run) {
  console.error(`Unknown command "${command}". Commands: ${Object.keys(commands).join(", ")}`);
  process.exit(2);
}
await run(args);
