// Who the service is, as the MCP server, the 402's Bazaar metadata and the discovery documents name it.
export const SERVICE = {
  id: "public-data-api",
  title: "Public-data API for AI agents",
  version: "1.1.0",
  description: "Clean JSON from central banks, statistics offices, registers and other public sources, for AI agents",
};
