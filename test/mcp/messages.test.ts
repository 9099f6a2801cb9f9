// JSON-RPC at /mcp message by message: every request of a batch gets its answer (MCP 2025-03-26 batches), a batch
// is refused whole where the protocol version has none (2025-06-18 on), a message that is not a JSON-RPC request
// is -32600 and params a method does not take are -32602 in words; -32700 is only for a body that is not JSON.
// Batches go through the SDK's own client transport where it can send them; malformed messages as raw POSTs.
import assert from "node:assert/strict";
import nock from "nock";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { freeAccess, startTestServer } from "../support/helpers.ts";
import { INITIALIZE, rawPost } from "../support/mcp-client.ts";
import type { Running } from "../../engine/http/server.ts";

const request = (id: unknown, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const searchCall = (id: number) => request(id, "tools/call", { name: "search_apis", arguments: { query: "UK base rate", limit: 1 } });
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

describe("MCP JSON-RPC messages and batches (/mcp)", () => {
  let server: Running;
  let upstreamRequests = 0;
  let post: (body: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;
  before(async () => {
    server = await startTestServer({ access: freeAccess });
    const fetch = server.engine.upstream.fetch.bind(server.engine.upstream);
    server.engine.upstream.fetch = (req) => {
      upstreamRequests++;
      return fetch(req);
    };
    post = (body, headers = {}) => rawPost(`${server.url}/mcp`, { host: `localhost:${new URL(server.url).port}`, ...headers }, body);
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });

  /** The SDK's client transport, without the Client (which sends one message at a time): what it receives. */
  async function clientTransport(protocolVersion?: string) {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    const received: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    transport.onmessage = (m) => received.push(m);
    transport.onerror = (e) => errors.push(e);
    await transport.start();
    if (protocolVersion) transport.setProtocolVersion(protocolVersion);
    return { transport, received, errors };
  }

  describe("a batch (MCP 2025-03-26, no MCP-Protocol-Version header)", () => {
    it("answers every request of a 100-message batch in order, the malformed tools/call too; notifications get none", async () => {
      const batch = Array.from({ length: 100 }, (_, i) =>
        i % 25 === 24 ? INITIALIZED
        : i === 5 ? request(i, "tools/call", { name: 7 })
        : i === 6 ? request(i, "tools/call", { name: "search_apis", arguments: "UK base rate" })
        : [request(i, "ping"), request(i, "tools/list"), searchCall(i)][i % 3]);
      const res = await post(batch);
      assert.equal(res.status, 200);
      const requests = batch.filter((m) => "id" in m) as { id: number }[];
      assert.equal(res.body.length, 96);
      assert.deepEqual(res.body.map((a: { id: number }) => a.id), requests.map((m) => m.id));
      for (const answer of res.body) {
        if (answer.id === 5 || answer.id === 6) {
          assert.equal(answer.error.code, -32602);
          assert.match(answer.error.message, /^Invalid tools\/call params: (name|arguments) must be/);
        } else {
          assert.ok(answer.result, JSON.stringify(answer));
        }
      }
      assert.equal(res.body[2].result.structuredContent.results.length, 1);
    });

    it("answers each malformed message of a batch with -32600, and the others as usual, through the SDK's client transport", async () => {
      const { transport, received, errors } = await clientTransport();
      const batch = [
        request(1, "ping"),
        { jsonrpc: "1.0", id: 2, method: "ping" },
        request({ not: "an id" }, "ping"),
        { jsonrpc: "2.0", id: 4 },
        request(null, "ping"),
        searchCall(6),
        request(7, "tools/list", { cursor: 7 }),
        request(8, "no/such-method"),
        INITIALIZED,
      ];
      await transport.send(batch as JSONRPCMessage[]);
      await transport.close();
      assert.deepEqual(errors, []);
      const answers = received as any[];
      assert.equal(answers.length, 8);
      assert.deepEqual(answers[0], { jsonrpc: "2.0", id: 1, result: {} });
      assert.deepEqual(answers.slice(1, 5).map((a) => [a.id, a.error.code]), [[2, -32600], [undefined, -32600], [4, -32600], [undefined, -32600]]);
      assert.match(answers[1].error.message, /^Invalid Request: jsonrpc must be "2\.0" \(got "1\.0"\)/);
      assert.match(answers[2].error.message, /id must be a string or an integer \(got an object\)/);
      assert.match(answers[3].error.message, /method is missing/);
      assert.match(answers[4].error.message, /got null, which MCP does not allow/);
      assert.equal(answers[5].id, 6);
      assert.ok(answers[5].result.structuredContent.results.length);
      assert.deepEqual([answers[6].id, answers[6].error.code], [7, -32602]);
      assert.match(answers[6].error.message, /^Invalid tools\/list params: params\.cursor must be a string \(got a number\)\.$/);
      assert.deepEqual([answers[7].id, answers[7].error.code], [8, -32601]);
    });

    it("refuses initialize and a second use of an id within a batch, answering the rest", async () => {
      const res = await post([request(1, "ping"), INITIALIZE, request(1, "tools/list"), request(2, "tools/list")]);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.map((a: any) => [a.id, a.error?.code ?? "result"]), [[1, "result"], [1, -32600], [1, -32600], [2, "result"]]);
      assert.match(res.body[1].error.message, /initialize must be sent on its own, not in a batch/);
      assert.match(res.body[2].error.message, /id 1 is already used by another request of this batch/);
    });

    it("answers a request even when the same batch cancels it (each POST has a server of its own: nothing else to cancel)", async () => {
      const res = await post([searchCall(1), { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }, request(2, "ping")]);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.map((a: any) => a.id), [1, 2]);
      assert.ok(res.body[0].result.structuredContent);
    });

    it("refuses an empty batch, and one of more than 100 messages, whole with -32600", async () => {
      for (const [batch, why] of [[[], /the batch is empty/], [Array.from({ length: 101 }, (_, i) => request(i, "ping")), /at most 100 messages \(got 101\)/]] as const) {
        const res = await post(batch);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, -32600);
        assert.equal(res.body.id, null);
        assert.match(res.body.error.message, why);
      }
    });
  });

  describe("a batch under MCP 2025-06-18 or later (which removed batches)", () => {
    for (const version of ["2025-06-18", "2025-11-25"]) {
      it(`is refused whole with one -32600 and nothing in it runs (MCP-Protocol-Version: ${version})`, async () => {
        const { transport } = await clientTransport(version);
        const batch = [request(1, "tools/call", { name: "bank-of-england__bank-rate", arguments: {} }), request(2, "ping")];
        upstreamRequests = 0;
        const refused = await transport.send(batch as JSONRPCMessage[]).then(() => undefined, (e: unknown) => e);
        await transport.close();
        assert.ok(refused instanceof StreamableHTTPError, String(refused));
        assert.equal(refused.code, 400);
        const res = await post(batch, { "mcp-protocol-version": version });
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, -32600);
        assert.match(res.body.error.message, new RegExp(`MCP ${version} has no JSON-RPC batches .*nothing in this one was run`));
        assert.equal(upstreamRequests, 0);
      });
    }
    it("still answers a single message", async () => {
      const res = await post(request(1, "ping"), { "mcp-protocol-version": "2025-11-25" });
      assert.deepEqual([res.status, res.body], [200, { jsonrpc: "2.0", id: 1, result: {} }]);
    });
  });

  describe("a single message", () => {
    it("initialize with params of the wrong types is -32602 saying what is wrong, not -32603 and a schema dump", async () => {
      const res = await post({ ...INITIALIZE, params: { protocolVersion: 20251125, capabilities: "all", clientInfo: { name: "raw" } } });
      assert.equal(res.status, 200);
      assert.equal(res.body.id, 1);
      assert.equal(res.body.error.code, -32602);
      assert.equal(res.body.error.message,
        "Invalid initialize params: params.protocolVersion must be a string (got a number); params.capabilities must be an object (got a string); params.clientInfo.version is required.");
      const none = await post({ jsonrpc: "2.0", id: 2, method: "initialize" });
      assert.equal(none.body.error.code, -32602);
      assert.match(none.body.error.message, /^Invalid initialize params: params is required\.$/);
    });

    it("a missing method, a jsonrpc other than 2.0, or an id that is not a string or an integer is -32600, not -32700", async () => {
      const cases: [unknown, unknown, RegExp][] = [
        [{ jsonrpc: "2.0", id: 1 }, 1, /method is missing/],
        [{ jsonrpc: "2.0", id: 1, method: 42 }, 1, /method must be a string \(got a number\)/],
        [{ id: 2, method: "ping" }, 2, /jsonrpc must be "2\.0" \(got nothing\)/],
        [{ jsonrpc: "1.0", id: 3, method: "ping" }, 3, /jsonrpc must be "2\.0" \(got "1\.0"\)/],
        [request({ id: 4 }, "ping"), undefined, /id must be a string or an integer \(got an object\)/],
        [request([5], "ping"), undefined, /id must be a string or an integer \(got an array\)/],
        [request(6.5, "ping"), undefined, /id must be a string or an integer \(got a number\)/],
        [request(null, "ping"), undefined, /got null, which MCP does not allow/],
        [{ ...request(9, "ping"), extra: true }, 9, /members JSON-RPC does not define: extra/],
        ["ping", undefined, /a message must be a JSON object \(got a string\)/],
        [null, undefined, /a message must be a JSON object \(got null\)/],
      ];
      for (const [message, id, why] of cases) {
        const res = await post(message);
        assert.equal(res.status, 400, JSON.stringify(message));
        assert.equal(res.body.error.code, -32600, JSON.stringify(res.body));
        assert.equal(res.body.id, id);
        assert.match(res.body.error.message, /^Invalid Request: /);
        assert.match(res.body.error.message, why);
      }
    });

    it("a notification is accepted (202) and never answered, even with params it cannot use", async () => {
      for (const message of [INITIALIZED, { ...INITIALIZED, params: 5 }, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }]) {
        const res = await post(message);
        assert.deepEqual([res.status, res.body], [202, ""]);
      }
    });
  });
});
