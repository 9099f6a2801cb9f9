// Catches any upstream connection a test-mode call would make (test/access/test-mode.test.ts, test/mcp/test-mode.test.ts).
import net from "node:net";
import nock from "nock";

/**
 * Every connection this process opens to anything but the server under test (a Socket.connect spy), and every
 * request nock saw that no interceptor answered (it would have gone out, were nock not blocking it).
 */
export function watchNetwork(serverPort: () => number) {
  const out: string[] = [];
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = args[0] as { port?: number | string; host?: string; path?: string } | number | string;
    const opts = Array.isArray(first) ? first[0] : first;
    const port = typeof opts === "object" ? Number(opts.port) : Number(opts);
    if (port !== serverPort()) out.push(JSON.stringify(typeof opts === "object" ? { host: opts.host, port: opts.port, path: opts.path } : args.slice(0, 2)));
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
  const noMatch = (req: Request) => {
    if (Number(new URL(req.url).port) !== serverPort()) out.push(`nock: ${req.method} ${req.url}`);
  };
  nock.emitter.on("no match", noMatch);
  return {
    connections: out,
    restore: () => {
      net.Socket.prototype.connect = connect;
      nock.emitter.removeListener("no match", noMatch);
    },
  };
}

