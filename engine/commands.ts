// The operator commands of engine/cli.ts, collected from the parts of the engine that own them.
import { serveCommands } from "./serve-command.ts";
import { accessCommands } from "./access/commands.ts";
import { datasetCommands } from "./datasets/commands.ts";

export type Command = (args: string[]) => Promise<void>;

export const commands: Record<string, Command> = { ...serveCommands, ...accessCommands, ...datasetCommands };
