// The operator commands of engine/cli.ts, collected from the parts of the engine that own them.
import { serveCommands } from "./cli/serve.ts";
import { accessCommands } from "./cli/access.ts";
import { datasetCommands } from "./cli/datasets.ts";

export type Command = (args: string[]) => Promise<void>;

export const commands: Record<string, Command> = { ...serveCommands, ...accessCommands, ...datasetCommands };
