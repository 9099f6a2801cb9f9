import { startServer } from "./server.ts";
import type { Command } from "./commands.ts";

export const serveCommands: Record<string, Command> = {
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
