// The discovery documents, as the landing page links them.
export const DISCOVERY_LINKS: [string, string][] = [
  ["/llms.txt", "llms.txt"],
  ["/llms-full.txt", "llms-full.txt (every endpoint)"],
  ["/openapi.json", "OpenAPI 3.1"],
  ["/.well-known/x402", "x402 resources"],
  ["/.well-known/mcp/server-card.json", "MCP server card"],
];

export function discoveryLinksHtml(): string {
  return `<p class="discovery">For agents: ${DISCOVERY_LINKS.map(([href, text]) => `<a href="${href}">${text}</a>`).join(" · ")}</p>`;
}
