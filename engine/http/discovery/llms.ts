// GET /llms.txt and /llms-full.txt (the llmstxt.org convention: a markdown file for language models): what the service
// is, how to call it over HTTP and MCP, the free key and the three ways to pay, then every group in one line
// (llms.txt) or every endpoint in one line (llms-full.txt). Generated from the endpoint files.
import { SERVICE } from "../../basics/service.ts";
import { describeAllowed, type ParamSpec } from "../../endpoints/params.ts";
import { groupPath } from "../group-page.ts";
import type { Endpoint, Group, Registry } from "../../endpoints/model.ts";


const price = (e: Endpoint) => (e.freeOnly ? "free allowance only" : `$${e.price}`);
const firstSentence = (text: string) => /^.*?[.!?](?=\s|$)/s.exec(text.trim())?.[0] ?? text.trim();

function intro(registry: Registry, baseUrl: string): string {
  const sample = [...registry.endpoints.values()].find((e) => e.key === "bank-of-england/bank-rate") ?? registry.endpoints.values().next().value!;
  return `# ${SERVICE.title}

> ${SERVICE.description}.
> ${registry.endpoints.size} endpoints in ${registry.groups.size} groups. Every operation is \`GET ${baseUrl}/v1/<group>/<operation>\`
> and also an MCP tool; each call has a fixed price in US dollars, and a free key gives a daily allowance.

## How to call

- HTTP: \`GET ${baseUrl}${sample.path}\` with the parameters in the query string. An answer is
  \`{"data": ..., "meta": {"sources": [...], "price_usd": ..., "paid_by": ...}}\`; an error is an RFC 9457 problem
  (\`application/problem+json\`) with a stable \`code\` and, for a bad parameter, \`param\`. A failed call costs nothing.
- MCP: \`${baseUrl}/mcp\` (Streamable HTTP). \`search_apis\` finds the endpoint for a task in your own words;
  \`call_api\` runs it (\`{"tool": "<group>__<operation>", "arguments": {...}}\`). \`${baseUrl}/mcp?groups=a,b\` also
  lists those groups' endpoints as tools of their own.
- Machine-readable: [OpenAPI 3.1](${baseUrl}/openapi.json) (every operation with its price, \`x-payment-info\` and
  an example for each parameter), [x402 resources](${baseUrl}/.well-known/x402),
  [MCP server card](${baseUrl}/.well-known/mcp/server-card.json), [every endpoint in one line](${baseUrl}/llms-full.txt).

## Free key

\`POST ${baseUrl}/free\` (or the page ${baseUrl}/free) gives a key at once, no signup. Send it as the \`X-API-Key\`
header (over MCP, as a header of the connection): calls are free within a daily allowance per group;
\`GET ${baseUrl}/account\` shows what is left.

## Three ways to pay

A call is paid, in this order, by:

1. x402 (USDC, no account): an unpaid call answers 402 with a \`PAYMENT-REQUIRED\` header; sign one of its
   \`accepts\` with an x402 v2 client and repeat the call with \`PAYMENT-SIGNATURE\` (over MCP, the tool result is the
   PaymentRequired; repeat the call with \`_meta["x402/payment"]\`). Settled only when the call succeeds.
2. The free allowance of the key (\`X-API-Key\`), or over MCP of the client.
3. Prepaid card credit on the key: \`POST ${baseUrl}/credit/checkout\` with the key answers a Stripe Checkout URL.

A retry with the same \`Idempotency-Key\` header (or x402 payment identifier) gets the first answer and is charged once.

## Test mode (free, offline, deterministic)

\`POST ${baseUrl}/free?mode=test\` gives a \`pda_test_…\` key. Every call with it is answered from the endpoint's own
examples (recorded upstream answers) through the real engine, with \`meta.test_mode: true\` and
\`meta.test_mode_example\` (the example's title): parameters that are an example's get that example's answer, other
valid parameters the first example's (with \`meta.test_mode_note\`), invalid ones the same 400 as live.
\`Test-Example: <n>\` (MCP \`_meta.testExample\`) picks the n-th example. Nothing is charged and no upstream is called;
an x402 payment gets a test settlement. Go live by changing only the key.
`;
}

function groupLine(g: Group, baseUrl: string): string {
  return `- [${g.title}](${baseUrl}${groupPath(g)}): \`${g.name}\`, ${g.endpoints.length} endpoint${g.endpoints.length > 1 ? "s" : ""}. ${firstSentence(g.description)}`;
}

function paramText(name: string, spec: ParamSpec): string {
  const dflt = spec.default !== undefined ? `, default ${spec.default}` : "";
  return `${name}${spec.required ? " (required" : " ("}${spec.required ? ", " : ""}${describeAllowed(spec)}${dflt})`;
}

function endpointLine(e: Endpoint): string {
  const params = Object.entries(e.params).map(([n, s]) => paramText(n, s));
  const sets = e.paramSets && [...(e.paramSets.one_of ?? []), ...(e.paramSets.any_of ?? [])].map((s) => s.join("+")).join(" | ");
  const rule = sets ? ` Give ${e.paramSets!.one_of ? "one" : "at least one"} of: ${sets}.` : "";
  return `- \`${e.toolName}\` ${price(e)}: ${e.summary}. Parameters: ${params.length ? params.join("; ") : "none"}.${rule}`;
}

export function llmsTxt(registry: Registry, baseUrl: string): string {
  return `${intro(registry, baseUrl)}
## Groups

${[...registry.groups.values()].map((g) => groupLine(g, baseUrl)).join("\n")}
`;
}

export function llmsFullTxt(registry: Registry, baseUrl: string): string {
  const groups = [...registry.groups.values()].map((g) => `### ${g.title} (\`${g.name}\`)

${g.endpoints.map(endpointLine).join("\n")}`);
  return `${intro(registry, baseUrl)}
## Endpoints

Each line: the MCP tool name (over HTTP: \`GET ${baseUrl}/v1/<group>/<operation>\`), the price of a call, what it
answers, and its parameters.

${groups.join("\n\n")}
`;
}
