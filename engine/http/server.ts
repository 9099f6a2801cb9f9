// Starts the HTTP server on an engine; used by `npm start` and by the tests (port 0).
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { createEngine, type Engine, type EngineOptions } from "../engine.ts";
import { createHttpApp } from "./app.ts";
import { Problem } from "../basics/problem.ts";

/** A start-up failure to say in one line (no stack): the port is taken. */
export class StartError extends Error {}

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
    const s = createServer(app);
    s.once("error", (e: NodeJS.ErrnoException) => {
      void engine.close();
      reject(e.code === "EADDRINUSE" ? new StartError(`port ${port} is in use (set PORT to another one)`) : e);
    });
    s.listen(port, host, () => resolve(s));
  });
  // Headers too large for Node's parser never reach Express: answer them as a problem too.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
    const problem = new Problem(tooLarge
      ? { status: 431, code: "headers_too_large", detail: "The request headers are larger than the service takes." }
      : { status: 400, code: "invalid_request", title: "The request could not be read", detail: "The request is not valid HTTP." });
    const body = JSON.stringify(problem.body());
    socket.end(`HTTP/1.1 ${problem.status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  const inFlight = countRequests(server);
  const addr = server.address() as AddressInfo;
  const url = `http://${addr.address === "0.0.0.0" || addr.address === "::" ? "127.0.0.1" : addr.address}:${addr.port}`;
  return {
    engine, server, url,
    // A graceful stop: no new connections; the calls in flight get the grace period to finish (and be charged or
    // given back) while the store is still open; then every connection is cut and the engine closes.
    close: async () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      await inFlight.drained(engine.config.shutdownGraceMs);
      server.closeAllConnections();
      await closed;
      await engine.close();
    },
  };
}

/** Counts the requests being answered, and waits (at most graceMs) for none to be left. */
function countRequests(server: Server): { drained(graceMs: number): Promise<void> } {
  let active = 0;
  let onIdle: (() => void) | undefined;
  server.on("request", (_req, res) => {
    active++;
    res.once("close", () => {
      if (--active === 0) onIdle?.();
    });
  });
  return {
    drained: (graceMs) => new Promise<void>((resolve) => {
      if (active === 0) return resolve();
      const timer = setTimeout(resolve, graceMs);
      onIdle = () => (clearTimeout(timer), resolve());
    }),
  };
}
