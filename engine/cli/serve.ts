import { startServer, StartError, type Running } from "../http/server.ts";
import type { Command } from "./command.ts";

export const serveCommands: Record<string, Command> = {
  async serve() {
    const t0 = performance.now();
    let running: Running;
    try {
      running = await startServer();
    } catch (e) {
      if (!(e instanceof StartError)) throw e;
      console.error(e.message);
      process.exit(1);
    }
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
