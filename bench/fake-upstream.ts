// A fake upstream for the benchmarks, run as its own process (`node bench/fake-upstream.ts <file> <content-type>`,
// PORT set): every GET is answered 200 with the file, as the real upstream answers (see the fixture's README).
import fs from "node:fs";
import http from "node:http";

const body = fs.readFileSync(process.argv[2]);
const type = process.argv[3];
http.createServer((_req, res) => void res.writeHead(200, { "content-type": type }).end(body)).listen(Number(process.env.PORT), process.env.HOST ?? "127.0.0.1");
