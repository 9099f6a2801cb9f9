// Search hits say which parameters go together ("give one of" sets), over MCP with the SDK's real client: an
// endpoint whose parameters are each optional shows the sets it takes, and a call without any is refused with the
// same rule the hit gave.
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startTestServer } from "../support/helpers.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";
import type { Running } from "../../engine/http/server.ts";

describe("search hits show 'give one of' parameter sets (MCP search_apis)", () => {
  let server: Running;
  let client: Client;

  before(async () => {
    server = await startTestServer({});
    client = await connectMcp(`${server.url}/mcp`);
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });

  const hitFor = async (query: string, tool: string) => {
    const result = await callTool(client, "search_apis", { query, limit: 10 });
    const hit = (result.structuredContent as any).results.find((r: { tool: string }) => r.tool === tool);
    assert.ok(hit, `${tool} is not among the hits for "${query}"`);
    return hit;
  };

  it("airports__near: no parameter is required alone, but lat and lng, or postcode, must be given", async () => {
    const hit = await hitFor("airports near a point or a postcode", "airports__near");
    assert.deepEqual(hit.required, []);
    assert.deepEqual(hit.give_one_of, [["lat", "lng"], ["postcode"]]);
    assert.equal(hit.parameter_rule, "Give lat and lng, or postcode, not more than one of them.");
  });

  it("a call that follows none of the sets is refused, naming the same choice", async () => {
    const hit = await hitFor("airports near a point or a postcode", "airports__near");
    const refused = await callTool(client, "call_api", { tool: "airports__near", arguments: {} });
    assert.equal(refused.isError, true);
    const problem = refused.structuredContent as any;
    assert.equal(problem.status, 400);
    assert.equal(problem.param, "lat");
    assert.ok(hit.parameter_rule.startsWith(problem.detail.replace(/\.$/, "")), `${problem.detail} vs ${hit.parameter_rule}`);
  });

  it("shows the sets of endpoints keyed by one identifier or another (CIK or ticker)", async () => {
    const hit = await hitFor("Apple 10-K filings by ticker", "us-company-filings__filings");
    assert.deepEqual(hit.give_one_of, [["cik"], ["ticker"]]);
  });

  it("shows no sets where the parameters need none", async () => {
    const hit = await hitFor("how many years are left on my lease", "uk-property__lease-length");
    assert.equal(hit.give_one_of, undefined);
    assert.equal(hit.parameter_rule, undefined);
  });

  it("an endpoint tool's description states the rule too", async () => {
    const c = await connectMcp(`${server.url}/mcp?groups=airports`);
    try {
      const { tools } = await c.listTools();
      assert.match(tools.find((t) => t.name === "airports__near")!.description ?? "", /Give lat and lng, or postcode/);
    } finally {
      await c.close();
    }
  });
});
