// npm run answers [-- <group> ...]: replays the endpoints' examples and writes each derived answer schema,
// endpoints/<group>/answers/<operation>.json (an endpoint whose file declares `output:` has none). The example
// tests fail while a schema is not what its examples give.
import path from "node:path";
import { loadConfig } from "../config.ts";
import { readSources } from "../upstream/sources.ts";
import { writeAnswerSchema } from "../endpoints/answer-schema.ts";
import type { Command } from "./command.ts";

export const answerCommands: Record<string, Command> = {
  async answers(groups) {
    // The replay needs nock, a development dependency: it is loaded only when this command runs.
    const replay = await import("./example-replay.ts");
    const { rootDir } = loadConfig();
    const credentials = replay.standInCredentials(readSources(path.join(rootDir, "sources.yaml"), {}).values());
    const server = await replay.startReplayServer({ access: replay.freeAccess, env: credentials });
    try {
      const { registry } = server.engine;
      const unknown = groups.filter((g) => !registry.groups.has(g));
      if (unknown.length) {
        console.error(`No such group: ${unknown.join(", ")}. Groups are the folders of endpoints/.`);
        process.exitCode = 2;
        return;
      }
      let written = 0;
      const failed: string[] = [];
      for (const endpoint of registry.endpoints.values()) {
        if (!endpoint.outputFile || (groups.length && !groups.includes(endpoint.group))) continue;
        const answers: unknown[] = [];
        const failedBefore = failed.length;
        for (const [i, example] of endpoint.examples.entries()) {
          const { res, unused } = await replay.replayExample(server, endpoint, example);
          replay.endExample(server);
          if (res.status !== (example.status ?? 200) || unused.length) failed.push(`${endpoint.key}: ${example.title ?? `example ${i + 1}`}`);
          else if (res.status === 200) answers.push(res.body.data);
        }
        if (!answers.length || failed.length > failedBefore) continue;
        writeAnswerSchema(path.join(rootDir, endpoint.outputFile), answers);
        written++;
      }
      console.log(`${written} answer schemas written to endpoints/<group>/answers/.`);
      if (failed.length) {
        // A schema derived without a failing example's answer would be wrong: the tests name the fault.
        console.error(`These examples do not answer as they say (npm test shows why); their endpoints' schemas were left as they were:\n  ${failed.join("\n  ")}`);
        process.exitCode = 1;
      }
    } finally {
      await server.close();
    }
  },
};
