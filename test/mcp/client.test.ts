// /mcp with the SDK's real Client over Streamable HTTP, against the running server and the real endpoint files.
// Upstream: the Bank of England CSV fixtures (endpoints/bank-of-england/fixtures), replayed with nock.
import assert from "node:assert/strict";
import nock from "nock";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { getJson, startTestServer } from "../support/helpers.ts";
import { mockBankOfEngland } from "../support/x402-service.ts";
import { INITIALIZE, callTool, connectMcp, rawPost, textJson } from "../support/mcp-client.ts";
import type { Running } from "../../engine/http/server.ts";

describe("MCP server (/mcp)", () => {
  let server: Running;
  let client: Client;

  before(async () => {
    server = await startTestServer({ env: { BASE_URL: "https://data.example.org" } });
    mockBankOfEngland();
    client = await connectMcp(`${server.url}/mcp`);
  });
  after(async () => {
    await client?.close();
    nock.cleanAll();
    await server?.close();
  });

  describe("tools/list", () => {
    it("lists only search_apis and call_api by default, each with an input schema", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["search_apis", "call_api"]);
      assert.deepEqual(tools[0].inputSchema.required, ["query"]);
      assert.deepEqual(tools[1].inputSchema.required, ["tool"]);
      assert.match(tools[0].description ?? "", /bank-of-england \(Central-bank rates/);
    });

    it("adds the endpoints of the groups in ?groups= as tools, with JSON Schema from their files", async () => {
      const c = await connectMcp(`${server.url}/mcp?groups=bank-of-england,uk-property`);
      try {
        const { tools } = await c.listTools();
        const names = tools.map((t) => t.name);
        assert.equal(names.length, 2 + server.engine.registry.groups.get("bank-of-england")!.endpoints.length + server.engine.registry.groups.get("uk-property")!.endpoints.length);
        assert.ok(names.includes("bank-of-england__gbp-usd"));
        assert.ok(!names.some((n) => n.startsWith("uk-economy__")));
        const series = tools.find((t) => t.name === "bank-of-england__series")!;
        assert.deepEqual(series.inputSchema.required, ["code"]);
        assert.equal((series.inputSchema.properties!.from as { format: string }).format, "date");
        const lease = tools.find((t) => t.name === "uk-property__lease-length")!;
        const termYears = lease.inputSchema.properties!.term_years as { type: string; minimum: number };
        assert.equal(termYears.type, "integer");
        assert.equal(termYears.minimum, 1);
        assert.match(lease.description ?? "", /Price: \$0\.003 a call/);
        assert.equal(lease.annotations?.readOnlyHint, true);
      } finally {
        await c.close();
      }
    });

    it("lists every endpoint with ?groups=all", async () => {
      const c = await connectMcp(`${server.url}/mcp?groups=all`);
      try {
        const { tools } = await c.listTools();
        assert.equal(tools.length, 2 + server.engine.registry.endpoints.size);
      } finally {
        await c.close();
      }
    });

    it("refuses an unknown group in ?groups=, naming the groups there are", async () => {
      await assert.rejects(connectMcp(`${server.url}/mcp?groups=bank-of-england,no-such-group`), /Unknown group in \?groups=: no-such-group\. Groups: .*bank-of-england/);
    });
  });

  describe("search_apis", () => {
    it("puts the endpoint for a plain-words question first, with all it takes to call it", async () => {
      const result = await callTool(client, "search_apis", { query: "what is the UK base rate" });
      assert.equal(result.isError, undefined);
      assert.deepEqual(textJson(result), result.structuredContent);
      const top = (result.structuredContent as any).results[0];
      assert.equal(top.tool, "bank-of-england__bank-rate");
      assert.equal(top.path, "/v1/bank-of-england/bank-rate");
      assert.equal(top.price_usd, 0.001);
      assert.equal(top.free_calls_per_day.mcp_without_key, server.engine.registry.byTool("bank-of-england__bank-rate")!.buckets[0].anonymous);
      assert.equal(top.parameters.from.format, "date");
      assert.match(top.parameters.from.description, /YYYY-MM-DD/);
      assert.deepEqual(top.required, []);
    });

    it("gives required parameters, bounds and defaults", async () => {
      const result = await callTool(client, "search_apis", { query: "how many years are left on my lease", limit: 1 });
      const [hit] = (result.structuredContent as any).results;
      assert.equal(hit.tool, "uk-property__lease-length");
      assert.deepEqual(hit.required.sort(), ["lease_start", "term_years"]);
      assert.equal(hit.parameters.term_years.type, "integer");
      assert.equal(hit.parameters.term_years.minimum, 1);
    });

    it("keeps to one group and to the limit asked for", async () => {
      const result = await callTool(client, "search_apis", { query: "rate", group: "uk-economy", limit: 2 });
      const results = (result.structuredContent as any).results;
      assert.equal(results.length, 2);
      for (const r of results) assert.equal(r.group, "uk-economy");
    });

    it("refuses a limit out of bounds the way the HTTP API refuses a parameter", async () => {
      const result = await callTool(client, "search_apis", { query: "gilts", limit: 50 });
      assert.equal(result.isError, true);
      const problem = result.structuredContent as any;
      assert.equal(problem.status, 400);
      assert.equal(problem.param, "limit");
      assert.match(problem.detail, /limit must be a whole number from 1 to 20/);
    });
  });

  describe("call_api and endpoint tools", () => {
    it("runs an endpoint through the pipeline: the envelope as structured content and as text", async () => {
      const result = await callTool(client, "call_api", { tool: "bank-of-england__bank-rate", arguments: { from: "2025-08-01" } });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.deepEqual(textJson(result), result.structuredContent);
      const body = result.structuredContent as any;
      assert.equal(body.data.latest.value, 4);
      assert.equal(body.data.in_effect_since, "2025-08-07");
      assert.equal(body.meta.endpoint, "bank-of-england/bank-rate");
      assert.equal(body.meta.paid_by, "allowance");
    });

    it("answers an endpoint's own tool exactly as call_api does", async () => {
      const direct = await callTool(client, "bank-of-england__bank-rate", { from: "2025-08-01" });
      const viaCallApi = await callTool(client, "call_api", { tool: "bank-of-england__bank-rate", arguments: { from: "2025-08-01" } });
      assert.deepEqual((direct.structuredContent as any).data, (viaCallApi.structuredContent as any).data);
    });

    it("takes arguments as JSON numbers", async () => {
      const result = await callTool(client, "call_api", { tool: "uk-property__lease-length", arguments: { lease_start: "2000-01-01", term_years: 99 } });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal((result.structuredContent as any).data.expiry_date, "2098-12-31");
    });

    it("returns a bad argument as a tool error carrying the same problem document as HTTP", async () => {
      const result = await callTool(client, "call_api", { tool: "bank-of-england__bank-rate", arguments: { from: "2025-02-30" } });
      const http = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-02-30`);
      assert.equal(result.isError, true);
      assert.equal(http.status, 400);
      const { instance: mcpInstance, ...mcpProblem } = result.structuredContent as any;
      const { instance: httpInstance, ...httpProblem } = http.body;
      assert.deepEqual(mcpProblem, httpProblem);
      assert.equal(mcpInstance, "mcp://tool/bank-of-england__bank-rate");
      assert.equal(httpInstance, "/v1/bank-of-england/bank-rate?from=2025-02-30");
      assert.deepEqual(textJson(result), result.structuredContent);
    });

    it("names the parameters an endpoint takes when given one it does not", async () => {
      const result = await callTool(client, "bank-of-england__series", { code: "IUDBEDR", to: "2025-01-01" });
      assert.equal(result.isError, true);
      assert.equal((result.structuredContent as any).code, "unknown_parameter");
      assert.match((result.structuredContent as any).detail, /This endpoint takes: .*code/);
    });

    it("answers call_api with an unknown tool with a 404 that says how to find one", async () => {
      const notATool = await callTool(client, "call_api", { tool: "base-rate" });
      assert.equal(notATool.isError, true);
      assert.equal((notATool.structuredContent as any).status, 404);
      assert.match((notATool.structuredContent as any).detail, /search_apis/);
    });

    it("refuses call_api without a tool, or with arguments that are not an object", async () => {
      const noTool = await callTool(client, "call_api", { arguments: {} });
      assert.equal((noTool.structuredContent as any).param, "tool");
      const badArgs = await callTool(client, "call_api", { tool: "bank-of-england__bank-rate", arguments: ["2025-01-01"] });
      assert.equal((badArgs.structuredContent as any).param, "arguments");
    });

    it("returns an upstream failure as a 502 tool error, and does not count it against the allowance", async () => {
      const before = await callTool(client, "call_api", { tool: "bank-of-england__sonia", arguments: { from: "2025-08-01" } });
      const left = (before.structuredContent as any).meta.allowance_left["group:bank-of-england"];
      const failed = await callTool(client, "call_api", { tool: "bank-of-england__sonia", arguments: { from: "1999-01-01" } });
      assert.equal(failed.isError, true);
      assert.equal((failed.structuredContent as any).status, 502);
      const after = await callTool(client, "call_api", { tool: "bank-of-england__sonia", arguments: { from: "2025-08-02" } });
      assert.equal((after.structuredContent as any).meta.allowance_left["group:bank-of-england"], left - 1);
    });

    it("passes X-API-Key on the MCP request to the access layer: an unknown key is refused as over HTTP", async () => {
      const keyed = await connectMcp(`${server.url}/mcp`, { "X-API-Key": "not-a-key" });
      try {
        const result = await callTool(keyed, "call_api", { tool: "bank-of-england__bank-rate", arguments: {} });
        assert.equal(result.isError, true);
        assert.equal((result.structuredContent as any).status, 401);
        assert.equal((result.structuredContent as any).code, "invalid_api_key");
      } finally {
        await keyed.close();
      }
    });
  });

  describe("JSON-RPC errors", () => {
    const rejection = async (call: Promise<unknown>) => {
      try {
        await call;
      } catch (e) {
        return e as McpError;
      }
      assert.fail("the call was not refused");
    };

    it("refuses tools/call of an unknown tool with -32602, saying what there is", async () => {
      const unknown = await rejection(client.callTool({ name: "no-such-tool", arguments: {} }));
      assert.ok(unknown instanceof McpError);
      assert.equal(unknown.code, -32602);
      assert.match(unknown.message, /Unknown tool: no-such-tool\. .*search_apis/);
      const noSuchOperation = await rejection(client.callTool({ name: "bank-of-england__base-rate", arguments: {} }));
      assert.equal(noSuchOperation.code, -32602);
      assert.match(noSuchOperation.message, /The bank-of-england group has no endpoint base-rate\. Its endpoints: .*bank-rate/);
    });

    it("refuses tools/call params of the wrong shape with -32602 in words, not a schema dump", async () => {
      const port = new URL(server.url).port;
      const call = (id: number, params: unknown) => rawPost(`${server.url}/mcp`, { host: `localhost:${port}` }, { jsonrpc: "2.0", id, method: "tools/call", params });
      const cases: [unknown, RegExp][] = [
        [{ arguments: {} }, /name must be the tool's name as a string.*\(got nothing\)/],
        [{ name: 7 }, /name must be the tool's name as a string.*\(got a number\)/],
        [{ name: "search_apis", arguments: "UK base rate" }, /arguments must be an object.*\(got a string\)/],
        [{ name: "search_apis", arguments: ["UK base rate"] }, /arguments must be an object.*\(got an array\)/],
        ["search_apis", /params must be an object/],
      ];
      for (const [i, [params, message]] of cases.entries()) {
        const res = await call(i + 10, params);
        assert.equal(res.status, 200);
        assert.equal(res.body.id, i + 10);
        assert.equal(res.body.error.code, -32602, JSON.stringify(res.body));
        assert.match(res.body.error.message, /^Invalid tools\/call params: /);
        assert.match(res.body.error.message, message);
        assert.doesNotMatch(res.body.error.message, /invalid_type|"path"|\[\s*\{/);
      }
      const viaClient = await rejection(client.request({ method: "tools/call", params: { name: "search_apis", arguments: 5 } } as never, CallToolResultSchema));
      assert.equal(viaClient.code, -32602);
      assert.match(viaClient.message, /arguments must be an object/);
    });

    it("answers a body that is not JSON with -32700", async () => {
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"',
      });
      assert.equal(res.status, 400);
      const body = (await res.json()) as any;
      assert.equal(body.jsonrpc, "2.0");
      assert.equal(body.id, null);
      assert.equal(body.error.code, -32700);
      assert.match(body.error.message, /^Parse error: the body is not valid JSON/);
    });
  });

  describe("HTTP transport", () => {
    it("refuses a foreign Host or Origin (DNS rebinding) and accepts the BASE_URL host and localhost", async () => {
      const url = `${server.url}/mcp`;
      const port = new URL(server.url).port;
      assert.equal((await rawPost(url, { host: "evil.example.com" }, INITIALIZE)).status, 403);
      assert.equal((await rawPost(url, { host: `localhost:${port}`, origin: "http://evil.example.com" }, INITIALIZE)).status, 403);
      const mine = await rawPost(url, { host: "data.example.org", origin: "https://data.example.org" }, INITIALIZE);
      assert.equal(mine.status, 200);
      assert.equal(mine.body.result.serverInfo.name, "public-data-api");
      assert.equal((await rawPost(url, { host: `localhost:${port}`, origin: `http://localhost:${port}` }, INITIALIZE)).status, 200);
    });

    it("is stateless: GET and DELETE are 405", async () => {
      for (const method of ["GET", "DELETE"]) {
        const res = await fetch(`${server.url}/mcp`, { method, headers: { accept: "text/event-stream" } });
        assert.equal(res.status, 405);
        assert.equal(res.headers.get("allow"), "POST");
      }
    });
  });
});
