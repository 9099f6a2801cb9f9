// The HTTP surface at its edges: methods other than GET, oversized headers, parameter names that are Object's own
// properties, the full range of calendar years, and a port that is already taken.
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { spawn } from "node:child_process";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { ROOT, freeAccess, getJson, tempDir, useTestServer } from "../support/helpers.ts";
import { parseParams } from "../../engine/endpoints/params.ts";
import type { Running } from "../../engine/http/server.ts";

describe("HTTP edges", () => {
  let server: Running;
  useTestServer({ access: freeAccess }, (s) => (server = s));

  it("answers HEAD with 405 and Allow: GET, without running the call", async () => {
    const res = await fetch(`${server.url}/v1/imei/validate?imei=490154203237518`, { method: "HEAD" });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET");
  });

  for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
    it(`answers ${method} on /v1 with a 405 problem and Allow: GET`, async () => {
      const res = await fetch(`${server.url}/v1/imei/validate?imei=490154203237518`, { method });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get("allow"), "GET");
      assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
      assert.equal(((await res.json()) as { code: string }).code, "method_not_allowed");
    });
  }

  it("answers headers too large with a 431 problem", async () => {
    const { port } = new URL(server.url);
    const res = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = http.get({ host: "127.0.0.1", port, path: "/health", headers: { "x-big": "x".repeat(40_000) } }, (r) => {
        let body = "";
        r.on("data", (c) => (body += c));
        r.on("end", () => resolve({ status: r.statusCode!, type: String(r.headers["content-type"]), body }));
      });
      req.on("error", reject);
    });
    assert.equal(res.status, 431);
    assert.match(res.type, /problem\+json/);
    assert.equal(JSON.parse(res.body).code, "headers_too_large");
  });

  for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
    it(`refuses the parameter name ${name} like any unknown parameter`, async () => {
      const res = await getJson(`${server.url}/v1/imei/validate?imei=490154203237518&${name}=1`);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "unknown_parameter");
      assert.equal(res.body.param, name);
    });
  }

  it("takes every day from 0001-01-01 to 9999-12-31 as a date", () => {
    const spec = { d: { type: "string" as const, format: "date" as const, description: "a day" } };
    assert.equal(parseParams(spec, { d: "0001-01-01" }).values.d, "0001-01-01");
    assert.equal(parseParams(spec, { d: "0099-12-31" }).values.d, "0099-12-31");
    assert.equal(parseParams(spec, { d: "9999-12-31" }).values.d, "9999-12-31");
    assert.throws(() => parseParams(spec, { d: "0000-01-01" }), /d must be a date/);
  });

  it("refuses an answer that would fall past 9999-12-31 with a 400 that says so", async () => {
    const res = await getJson(`${server.url}/v1/uk-property/lease-length?lease_start=9000-01-01&term_years=5000`);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "date_out_of_range");
    assert.doesNotMatch(JSON.stringify(res.body), /\+0\d{5}/);
  });
});

describe("start-up on a port in use", () => {
  it("says the port is in use and exits 1", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const child = spawn(process.execPath, [path.join(ROOT, "engine", "cli.ts"), "serve"], {
        env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: tempDir(), DATASET_REFRESH: "off", LOG_LEVEL: "silent" },
      });
      let stderr = "";
      child.stderr.on("data", (c) => (stderr += c));
      const code = await new Promise<number | null>((r) => child.on("exit", r));
      assert.equal(code, 1);
      assert.match(stderr, new RegExp(`port ${port} is in use`));
      assert.doesNotMatch(stderr, /TypeError/);
    } finally {
      blocker.close();
    }
  });
});
