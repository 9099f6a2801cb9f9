#!/usr/bin/env node
// npm start | npm run sync -- <dataset> [--from dir] | npm run keys | npm run credit
import { startServer } from "./server.ts";

const [command = "serve", ...args] = process.argv.slice(2);

const commands: Record<string, (args: string[]) => Promise<void>> = {
  async serve() {
    const t0 = performance.now();
    const running = await startServer();
    const { engine } = running;
    engine.log.info({ url: running.url, endpoints: engine.registry.endpoints.size, groups: engine.registry.groups.size, ms: Math.round(performance.now() - t0) }, "serving");
    const stop = async () => {
      engine.log.info("stopping");
      await running.close();
      process.exit(0);
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  },
};

const run = commands[command];
if (!run) {
  console.error(`Unknown command "${command}". Commands: ${Object.keys(commands).join(", ")}`);
  process.exit(2);
}
await run(args);
