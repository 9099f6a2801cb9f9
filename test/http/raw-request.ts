// An HTTP request whose answer is kept as sent (fetch would decompress it), and the body decoded as a browser would.
import http from "node:http";
import zlib from "node:zlib";

export interface RawAnswer { status: number; headers: http.IncomingHttpHeaders; raw: Buffer; text: () => string }

export function rawRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? "GET", headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers["content-encoding"];
        const decode = () => (encoding === "br" ? zlib.brotliDecompressSync(raw) : encoding === "gzip" ? zlib.gunzipSync(raw) : raw).toString("utf8");
        resolve({ status: res.statusCode!, headers: res.headers, raw, text: decode });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}
