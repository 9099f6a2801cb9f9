// What an agent finds at the origin before its first call: the x402 resources list, the MCP server card, llms.txt
// and llms-full.txt, robots.txt, all generated from the endpoint files and linked from the landing page.
import assert from "node:assert/strict";
import { validateAndExtract, type DiscoveryExtension } from "@x402/extensions/bazaar";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getJson, startTestServer } from "../support/helpers.ts";
import { connectMcp } from "../support/mcp-client.ts";
import type { Running } from "../../engine/http/server.ts";
import type { Endpoint } from "../../engine/endpoints/model.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const BASE_URL = "https://api.example.org";

async function text(url: string): Promise<{ status: number; type: string | null; body: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
}

describe("discovery from the origin", function () {
  this.timeout(120_000);
  let server: Running;
  let endpoints: Endpoint[];

  before(async () => {
    server = await startTestServer({ env: { X402_PAY_TO: PAY_TO, X402_NETWORKS: "eip155:8453", BASE_URL } });
    endpoints = [...server.engine.registry.endpoints.values()];
  });
  after(async () => {
    await server?.close();
  });

  it("GET /.well-known/x402 lists every paid resource: URL, price, network, asset, description", async () => {
    const { status, body } = await getJson(`${server.url}/.well-known/x402`);
    assert.equal(status, 200);
    const paid = endpoints.filter((e) => !e.freeOnly);
    assert.equal(body.x402Version, 2);
    assert.deepEqual(body.pagination, { limit: paid.length, offset: 0, total: paid.length });
    assert.deepEqual(body.items.map((i: { resource: string }) => i.resource), paid.map((e) => `${BASE_URL}${e.path}`));
    assert.ok(!body.items.some((i: { resource: string }) => endpoints.find((e) => e.freeOnly && i.resource.endsWith(e.path))), "no free-allowance-only endpoint");
    for (const [n, item] of body.items.entries()) {
      const e = paid[n];
      assert.equal(item.type, "http");
      assert.equal(item.x402Version, 2);
      assert.ok(Number.isInteger(item.lastUpdated) && item.lastUpdated > 1.6e9, "lastUpdated in Unix seconds");
      assert.deepEqual({ network: item.accepts[0].network, asset: item.accepts[0].asset, amount: item.accepts[0].amount, payTo: item.accepts[0].payTo },
        { network: "eip155:8453", asset: BASE_USDC, amount: String(Math.round(e.price * 1e6)), payTo: PAY_TO });
      assert.equal(item.description, e.summary.slice(0, 450).length === e.summary.length ? e.summary : item.description);
      assert.ok(item.description.length <= 450);
      assert.equal(item.metadata.price_usd, e.price);
      assert.equal(item.metadata.mcp_tool, e.toolName);
      assert.ok(validateAndExtract(item.extensions.bazaar as DiscoveryExtension).valid, `${e.key}: its bazaar metadata`);
    }
  });

  it("GET /.well-known/x402 pages with offset and limit", async () => {
    const { body } = await getJson(`${server.url}/.well-known/x402?offset=10&limit=5`);
    const all = (await getJson(`${server.url}/.well-known/x402`)).body;
    assert.deepEqual(body.items.map((i: { resource: string }) => i.resource), all.items.slice(10, 15).map((i: { resource: string }) => i.resource));
    assert.deepEqual(body.pagination, { limit: 5, offset: 10, total: all.pagination.total });
  });

  describe("the MCP server card", () => {
    let client: Client;
    before(async () => {
      client = await connectMcp(`${server.url}/mcp`);
    });
    after(async () => {
      await client?.close();
    });

    it("says what the server says once connected: name, version, /mcp over streamable HTTP, the tools and their input schemas", async () => {
      const { status, body: card } = await getJson(`${server.url}/.well-known/mcp/server-card.json`);
      assert.equal(status, 200);
      assert.equal(card.$schema, "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json");
      assert.match(card.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
      assert.equal(card.name, "org.example.api/public-data-api");
      assert.ok(card.description.length <= 100);
      assert.equal(card.version, client.getServerVersion()!.version);
      assert.equal(card.title, client.getServerVersion()!.title);
      assert.deepEqual(card.remotes.map((r: { type: string; url: string }) => [r.type, r.url]), [["streamable-http", `${BASE_URL}/mcp`]]);
      const listed = (await client.listTools()).tools;
      assert.deepEqual(card._meta.tools.map((t: { name: string }) => t.name), ["search_apis", "call_api"]);
      for (const tool of card._meta.tools) assert.deepEqual(tool.inputSchema, listed.find((t) => t.name === tool.name)!.inputSchema);
      assert.deepEqual(card._meta.payment.x402.networks, ["eip155:8453"]);
      assert.match(card._meta.payment.card_credit, /\/credit\/checkout/);
      const reserved = await fetch(`${server.url}/mcp/server-card`, { headers: { accept: "application/mcp-server-card+json" } });
      assert.match(reserved.headers.get("content-type")!, /^application\/mcp-server-card\+json/);
      assert.deepEqual(await reserved.json(), card);
    });
  });

  it("GET /llms.txt says what the service is, how to call it and pay, and has one line per group with its page", async () => {
    const { status, type, body } = await text(`${server.url}/llms.txt`);
    assert.equal(status, 200);
    assert.match(type!, /^text\/plain/);
    assert.match(body, /^# Public-data API for AI agents\n\n> /);
    for (const needed of [`GET ${BASE_URL}/v1/`, `${BASE_URL}/mcp`, "search_apis", "call_api", `POST ${BASE_URL}/free`, "X-API-Key", "PAYMENT-SIGNATURE", "credit/checkout", "## Three ways to pay", `POST ${BASE_URL}/free?mode=test`, "pda_test_", "meta.test_mode"]) {
      assert.ok(body.includes(needed), `llms.txt mentions ${needed}`);
    }
    const groupLines = body.split("\n").filter((l) => l.startsWith("- [") && l.includes("/groups/"));
    const groups = [...server.engine.registry.groups.values()];
    assert.equal(groupLines.length, groups.length);
    for (const g of groups) assert.ok(groupLines.some((l) => l.startsWith(`- [${g.title}](${BASE_URL}/groups/${g.name}): \`${g.name}\`, ${g.endpoints.length} endpoint`)), g.name);
  });

  it("GET /llms-full.txt has every endpoint in one line: tool name, price, parameters", async () => {
    const { status, body } = await text(`${server.url}/llms-full.txt`);
    assert.equal(status, 200);
    const lines = body.split("\n").filter((l) => l.startsWith("- `"));
    assert.equal(lines.length, endpoints.length);
    for (const e of endpoints) {
      const line = lines.find((l) => l.startsWith(`- \`${e.toolName}\` `));
      assert.ok(line, e.toolName);
      assert.ok(line.includes(e.freeOnly ? "free allowance only" : `$${e.price}:`), `${e.toolName} price`);
      for (const [name, spec] of Object.entries(e.params)) assert.ok(line.includes(`${name} (${spec.required ? "required, " : ""}`), `${e.toolName} ${name}`);
    }
    assert.match(lines.find((l) => l.startsWith("- `airports__near`"))!, /Give one of: lat\+lng \| postcode\./);
  });

  it("GET /robots.txt keeps crawlers off the priced calls and points to llms.txt", async () => {
    const { status, body } = await text(`${server.url}/robots.txt`);
    assert.equal(status, 200);
    assert.match(body, /^User-agent: \*$/m);
    assert.match(body, /^Disallow: \/v1\/$/m);
    assert.ok(body.includes(`${BASE_URL}/llms.txt`));
  });

  it("the landing page links every discovery document, and each answers", async () => {
    const { body } = await text(`${server.url}/`);
    for (const href of ["/llms.txt", "/openapi.json", "/.well-known/x402", "/.well-known/mcp/server-card.json"]) {
      assert.ok(body.includes(`href="${href}"`), href);
      assert.equal((await fetch(`${server.url}${href}`)).status, 200, href);
    }
  });

  it("every group page llms.txt links to exists", async () => {
    const { body } = await text(`${server.url}/llms.txt`);
    const pages = [...body.matchAll(/\]\((https:\/\/api\.example\.org\/groups\/[a-z0-9-]+)\)/g)].map((m) => m[1].replace(BASE_URL, server.url));
    assert.equal(pages.length, server.engine.registry.groups.size);
    for (const url of pages) assert.equal((await fetch(url)).status, 200, url);
  });
});
