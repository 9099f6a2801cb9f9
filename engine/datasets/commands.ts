// `npm run sync -- <dataset> [--from <dir>]`. Filled in by the datasets issue.
import type { Command } from "../commands.ts";

export const datasetCommands: Record<string, Command> = {};
