// DNS-rebinding protection for /mcp: the Host header, and the Origin header when a browser sends one, must name
// this service (the host of BASE_URL, MCP_ALLOWED_HOSTS) or the machine itself. A page on another site that
// got its name pointed at this server is refused before the body is read.
import type { Request, Response, NextFunction, RequestHandler } from "express";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

export function allowedHosts(baseUrl: string, extra: string | undefined): Set<string> {
  return new Set([...LOOPBACK, new URL(baseUrl).hostname, ...(extra ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean)]);
}

function hostnameOf(value: string, withScheme: boolean): string | undefined {
  try {
    return new URL(withScheme ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function hostCheck(allowed: Set<string>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host ? hostnameOf(req.headers.host, false) : undefined;
    const origin = req.headers.origin;
    const originHost = origin ? hostnameOf(origin, true) : undefined;
    const refused = !host || !allowed.has(host) ? `Host ${req.headers.host ?? "(none)"}`
      : origin && (!originHost || !allowed.has(originHost)) ? `Origin ${origin}`
      : undefined;
    if (!refused) return next();
    res.status(403).json({ jsonrpc: "2.0", error: { code: -32000, message: `${refused} is not allowed for this MCP server.` }, id: null });
  };
}
