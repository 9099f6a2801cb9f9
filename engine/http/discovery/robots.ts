// GET /robots.txt: crawlers may read the pages and the discovery documents; the calls themselves (each one priced)
// and the account routes are not for crawling.
export function robotsTxt(baseUrl: string): string {
  return `User-agent: *
Disallow: /v1/
Disallow: /mcp
Disallow: /account
Disallow: /credit/
Allow: /

# For language models: ${baseUrl}/llms.txt (every endpoint: ${baseUrl}/llms-full.txt)
# OpenAPI: ${baseUrl}/openapi.json; x402 resources: ${baseUrl}/.well-known/x402
`;
}
