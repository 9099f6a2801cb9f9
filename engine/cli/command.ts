// One operator command of engine/cli.ts: it gets the words after its name.
export type Command = (args: string[]) => Promise<void>;
