// Coordinates, numbers and lists, over every endpoint of the registry that takes one: a latitude or longitude that
// is not a finite number in range, or a list given with no item in it, is a 400 naming the parameter, over HTTP
// and MCP, before any upstream request is made; no number parameter takes a value that is not finite or exact.
import assert from "node:assert/strict";
import path from "node:path";
import nock from "nock";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { type Endpoint } from "../../engine/endpoints/model.ts";
import { parseParams, type ParamSpec } from "../../engine/endpoints/params.ts";
import { Problem } from "../../engine/basics/problem.ts";
import type { Running } from "../../engine/http/server.ts";
import { ROOT, freeAccess, getJson, queryString, useTestServer } from "../support/helpers.ts";
import { callTool, connectMcp, textJson } from "../support/mcp-client.ts";

const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
const endpoints = [...registry.endpoints.values()];
const isCoordinate = (spec: ParamSpec) => spec.format === "latitude" || spec.format === "longitude";
const paramsWhere = (e: Endpoint, test: (spec: ParamSpec) => boolean) => Object.keys(e.params).filter((name) => test(e.params[name]));

/** The parameters of the endpoint's first answered example that gives `name` (else of its first answered one). */
function exampleParams(e: Endpoint, name: string): Record<string, unknown> {
  const answered = e.examples.filter((ex) => (ex.status ?? 200) === 200);
  return { ...(answered.find((ex) => name in ex.params) ?? answered[0]).params };
}

// Out of range, not finite, past 2^53, or not a decimal number at all: each as the query text a caller sends.
const BAD_COORDINATES = ["1e26", "-1e26", "NaN", "-Infinity", "Infinity", "9007199254740992", "1e400", "0x10"];
const BAD_LISTS = [",,,,", " , ,", ","];

describe("every coordinate and list parameter of the registry", () => {
  let server: Running;
  let client: Client;
  let upstreamRequests: string[] = [];
  // Any request nock has no recording for, but the calls of the test itself to the server under test.
  const noMatch = (req: Request) => {
    if (!["127.0.0.1", "localhost"].includes(new URL(req.url).hostname)) upstreamRequests.push(`${req.method} ${req.url}`);
  };
  useTestServer({ access: freeAccess }, (s) => {
    server = s;
    // Every upstream request of the engine, steps and plugins alike, goes through this client.
    const fetch = s.engine.upstream.fetch.bind(s.engine.upstream);
    s.engine.upstream.fetch = (req) => {
      upstreamRequests.push(`${req.source} ${req.path}`);
      return fetch(req);
    };
  });
  before(async () => {
    client = await connectMcp(`${server.url}/mcp`);
    nock.emitter.on("no match", noMatch);
  });
  after(async () => {
    nock.emitter.removeListener("no match", noMatch);
    await client?.close();
  });
  beforeEach(() => (upstreamRequests = []));

  const refusedNaming = (name: string, allowed: RegExp, res: { status: number; body: any }, sent: unknown) => {
    assert.equal(res.status, 400, `${JSON.stringify(sent)}: ${JSON.stringify(res.body).slice(0, 300)}`);
    assert.equal(res.body.code, "invalid_parameter");
    assert.equal(res.body.param, name);
    assert.match(res.body.detail, allowed);
  };
  const overMcp = async (e: Endpoint, args: Record<string, unknown>) => {
    const result = await callTool(client, "call_api", { tool: e.toolName, arguments: args });
    assert.equal(result.isError, true, JSON.stringify(result).slice(0, 300));
    const body = textJson(result);
    return { status: body.status, body };
  };

  const withCoordinates = endpoints.filter((e) => paramsWhere(e, isCoordinate).length);
  it("finds coordinate parameters typed as numbers and as strings", () => {
    const types = new Set(withCoordinates.flatMap((e) => paramsWhere(e, isCoordinate).map((n) => e.params[n].type)));
    assert.deepEqual([...types].sort(), ["number", "string"]);
    for (const key of ["earthquakes/near", "global-weather/forecast", "tides/stations-near", "uk-floods/warnings"]) {
      assert.ok(withCoordinates.some((e) => e.key === key), key);
    }
  });
  for (const e of withCoordinates) {
    for (const name of paramsWhere(e, isCoordinate)) {
      const limit = e.params[name].format === "latitude" ? 90 : 180;
      const allowed = new RegExp(`${e.params[name].format} in decimal degrees, -${limit} to ${limit}`);
      it(`${e.key}: ${name} must be a finite number from -${limit} to ${limit}`, async () => {
        const base = exampleParams(e, name);
        for (const bad of [...BAD_COORDINATES, `${limit}.0001`, `-${limit + 1}`]) {
          const params = { ...base, [name]: bad };
          refusedNaming(name, allowed, await getJson(`${server.url}${e.path}${queryString(params)}`), params);
        }
        // Over MCP a coordinate may come as a JSON number.
        for (const bad of [1e26, -9007199254740992, limit + 1e-9]) refusedNaming(name, allowed, await overMcp(e, { ...base, [name]: bad }), bad);
        assert.deepEqual(upstreamRequests, []);
      });
    }
  }

  const withLists = endpoints.filter((e) => paramsWhere(e, (s) => s.type === "array").length);
  it("finds the list parameters", () => {
    for (const key of ["us-vehicle-decoding/decode-batch", "domains/ideas"]) assert.ok(withLists.some((e) => e.key === key), key);
  });
  for (const e of withLists) {
    for (const name of paramsWhere(e, (s) => s.type === "array")) {
      it(`${e.key}: ${name}, when given, must have an item`, async () => {
        const base = exampleParams(e, name);
        const allowed = /must be a comma-separated list of (one or more|1 to \d+) .*; it has no item/;
        for (const bad of BAD_LISTS) {
          const params = { ...base, [name]: bad };
          refusedNaming(name, allowed, await getJson(`${server.url}${e.path}${queryString(params)}`), params);
        }
        for (const bad of [[], ["", " "], ",,"]) refusedNaming(name, allowed, await overMcp(e, { ...base, [name]: bad }), bad);
        assert.deepEqual(upstreamRequests, []);
      });
    }
  }
});

describe("every number parameter of the registry", () => {
  const numeric = endpoints.flatMap((e) => paramsWhere(e, (s) => s.type === "number" || s.type === "integer").map((name) => ({ e, name, spec: e.params[name] })));
  it("refuses what is not a finite number, and a whole number past 2^53, naming the parameter", () => {
    assert.ok(numeric.some((p) => p.spec.type === "number") && numeric.some((p) => p.spec.type === "integer"));
    for (const { e, name, spec } of numeric) {
      // 1e400 reads as Infinity; 2^53 + 1 as 2^53.
      for (const bad of ["1e400", "-1e400", "NaN", "Infinity", ...(spec.type === "integer" ? ["9007199254740993", "1".padEnd(400, "0")] : [])]) {
        assert.throws(() => parseParams({ [name]: spec }, { [name]: bad }), (err) => err instanceof Problem && err.status === 400 && err.param === name, `${e.key} ${name}=${bad}`);
      }
    }
  });
});
