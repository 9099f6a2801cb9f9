// Operator commands of the access layer (`npm run keys`, `npm run credit`). Filled in by the access issue.
import type { Command } from "../commands.ts";

export const accessCommands: Record<string, Command> = {};
