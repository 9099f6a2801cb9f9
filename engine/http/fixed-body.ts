// An answer that does not change while the server runs (/, the group pages, /openapi.json), compressed once per
// encoding when first asked for instead of on every request: compressing /openapi.json (1.6 MB) took 0.15-0.45 s
// of CPU each time. The body itself is made by the first request too, not at start-up. Chosen as the compression middleware chooses (br before gzip at equal q), which leaves an
// answer that already has its Content-Encoding alone.
import zlib from "node:zlib";
import { promisify } from "node:util";
import Negotiator from "negotiator";
import type { Request, Response } from "express";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
// Quality 9: 15% smaller than the middleware's 4 for a quarter of a second, once (11 would take seconds).
const ENCODERS = {
  br: (b: Buffer) => brotli(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }),
  gzip: (b: Buffer) => gzip(b, { level: 9 }),
};
type Encoding = keyof typeof ENCODERS;
const ENCODINGS = Object.keys(ENCODERS) as Encoding[];

export function fixedBody(type: string, make: () => string): (req: Request, res: Response) => Promise<void> {
  let plain: Buffer | undefined;
  const encoded = new Map<Encoding, Promise<Buffer>>();
  return async (req, res) => {
    plain ??= Buffer.from(make());
    res.vary("Accept-Encoding").type(type);
    const encoding = new Negotiator(req).encoding([...ENCODINGS, "identity"], { preferred: ENCODINGS }) as Encoding | "identity" | undefined;
    if (!encoding || encoding === "identity") return void res.send(plain);
    if (!encoded.has(encoding)) encoded.set(encoding, ENCODERS[encoding](plain!));
    res.set("content-encoding", encoding).send(await encoded.get(encoding)!);
  };
}
