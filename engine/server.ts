// Starts the HTTP server on an engine; used by `npm start` and by the tests (port 0).
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createEngine, type Engine, type EngineOptions } from "./engine.ts";
import { createHttpApp } from "./http.ts";

export interface Running {
  engine: Engine;
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startServer(opts: EngineOptions & { port?: number; host?: string } = {}): Promise<Running> {
  const engine = await createEngine(opts);
  const app = createHttpApp(engine);
  const port = opts.port ?? engine.config.port;
  const host = opts.host ?? engine.config.host;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, () => resolve(s));
    s.on("error", reject);
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${addr.address === "0.0.0.0" || addr.address === "::" ? "127.0.0.1" : addr.address}:${addr.port}`;
  return {
    engine, server, url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await engine.close();
    },
  };
}
