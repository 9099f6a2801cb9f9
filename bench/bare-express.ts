// Bare Express, the baseline of the access benchmark: run as its own process (`node bench/bare-express.ts <file>`,
// PORT set), it answers GET <path> with the JSON body the file gives for that path ({ "<path>": "<body>" }).
import fs from "node:fs";
import express from "express";

const bodies = JSON.parse(fs.readFileSync(process.argv[2], "utf8")) as Record<string, string>;
const app = express();
for (const [route, body] of Object.entries(bodies)) app.get(route, (_req, res) => void res.type("application/json").send(body));
app.get("/health", (_req, res) => void res.json({ status: "ok" }));
app.listen(Number(process.env.PORT), process.env.HOST ?? "127.0.0.1");
