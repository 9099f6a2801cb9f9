// GET /.well-known/mcp/server-card.json: the MCP Server Card (SEP-2127, draft: modelcontextprotocol/modelcontextprotocol
// pull 2127, schema.ts of modelcontextprotocol/experimental-ext-server-card): who the server is, where /mcp is and
// over which transport, and, in `_meta` (the card's extension point, since the draft's cards do not list
// primitives), the tools search_apis and call_api with their input schemas and how calls are paid.
import { SUPPORTED_PROTOCOL_VERSIONS, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { SERVICE } from "../../basics/service.ts";

export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json";

/** The draft's `name`: reverse-DNS of the service's host, a slash, the server's name (`org.example.api/public-data-api`). */
function cardName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/[^a-zA-Z0-9.-]/g, "");
  return `${host.split(".").reverse().join(".") || "localhost"}/${SERVICE.id}`;
}

export function serverCard(baseUrl: string, tools: Tool[], x402: { networks: string[] }): Record<string, unknown> {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: cardName(baseUrl),
    version: SERVICE.version,
    title: SERVICE.title,
    description: "Public data as clean JSON (central banks, statistics, registers), paid per call or free with a key",
    websiteUrl: `${baseUrl}/`,
    remotes: [{
      type: "streamable-http",
      url: `${baseUrl}/mcp`,
      headers: [{ name: "X-API-Key", description: `A free key (POST ${baseUrl}/free): a larger daily allowance, and card credit`, isRequired: false, isSecret: true }],
      supportedProtocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
    }],
    _meta: {
      tools: tools.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema })),
      payment: {
        free_allowance: "Each client gets a daily allowance without a key; a free key (X-API-Key on the connection) a larger one.",
        x402: x402.networks.length
          ? { x402Version: 2, networks: x402.networks, how: "Past the allowance a tool result is an x402 PaymentRequired (isError, structuredContent); sign one of its accepts and repeat the call with the PaymentPayload in _meta[\"x402/payment\"]." }
          : null,
        card_credit: `With a key, POST ${baseUrl}/credit/checkout buys prepaid credit that pays once the allowance is spent.`,
        idempotency: "Send _meta.idempotencyKey (a fresh UUID per call, the same on its retries): a retry gets the first answer and is charged once.",
        llms_txt: `${baseUrl}/llms.txt`,
      },
    },
  };
}
