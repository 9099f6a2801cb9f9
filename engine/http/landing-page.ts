// GET /: a page a person can read, generated from the same endpoint files as everything else.
import { PROBLEM_TITLES } from "../basics/problem.ts";
import { describeAllowed } from "../endpoints/params.ts";
import { esc, page } from "./html-page.ts";
import { discoveryLinksHtml } from "./discovery/links.ts";
import type { Registry, Endpoint } from "../endpoints/model.ts";

export function exampleUrl(e: Endpoint, baseUrl: string): string {
  const params = e.examples[0]?.params ?? {};
  const q = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return `${baseUrl}${e.path}${q ? `?${q}` : ""}`;
}

function endpointRow(e: Endpoint, baseUrl: string): string {
  const params = Object.entries(e.params).map(([name, p]) =>
    `<li><code>${esc(name)}</code>${p.required ? " <b>required</b>" : ""}: ${esc(p.description)} <span class="allowed">(${esc(describeAllowed(p))}${p.default !== undefined ? `; default ${esc(p.default)}` : ""})</span></li>`).join("");
  return `<section class="ep" id="${esc(e.toolName)}">
  <h3><code>GET ${esc(e.path)}</code> <span class="price">${e.freeOnly ? "free allowance only" : `$${e.price} a call`}</span></h3>
  <p>${esc(e.summary)}</p>
  ${params ? `<ul class="params">${params}</ul>` : `<p class="none">No parameters.</p>`}
  <p class="example">Example: <code>curl -H "X-API-Key: $KEY" '${esc(exampleUrl(e, baseUrl))}'</code></p>
  <p class="tool">MCP tool: <code>${esc(e.toolName)}</code> · free calls a day: ${e.buckets.map((b) => `${b.anonymous} without a key / ${b.key} with a key (${esc(b.id.split(":")[0])} bucket)`).join(" and ")}</p>
</section>`;
}

export function renderDocsPage(registry: Registry, baseUrl: string): string {
  const groups = [...registry.groups.values()];
  const toc = groups.map((g) => `<li><a href="#g-${esc(g.name)}">${esc(g.title)}</a> <small>(${g.endpoints.length})</small></li>`).join("");
  const body = groups.map((g) => `<h2 id="g-${esc(g.name)}">${esc(g.title)} <small><code>${esc(g.name)}</code></small></h2>
<p>${esc(g.description)}</p>
${g.disclaimers.map((d) => `<p class="disclaimer">${esc(d)}</p>`).join("")}
${g.attribution ? `<p class="attribution">${esc(g.attribution)}</p>` : ""}
${g.endpoints.map((e) => endpointRow(e, baseUrl)).join("\n")}`).join("\n");
  const problems = Object.entries(PROBLEM_TITLES).map(([code, title]) => `<li id="${code}"><code>${code}</code>: ${esc(title)}</li>`).join("");
  return page("Public-data API for AI agents", `<h1>Public-data API for AI agents</h1>
<p>Clean JSON from central banks, statistics offices and other public sources. Every operation is
<code>GET ${esc(baseUrl)}/v1/&lt;group&gt;/&lt;operation&gt;</code> and also an MCP tool at <code>${esc(baseUrl)}/mcp</code>.
Each call has a fixed price in US dollars; pay per call in USDC with <a href="https://x402.org">x402</a> (v2), from prepaid card credit,
or use a <a href="/free">free key</a> within its daily allowance. An unpaid call answers HTTP 402 with the payment requirements.</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are <a href="#problems">problem details</a> (RFC 9457).
Every answer is <code>{"data": …, "meta": {"sources": [where it came from, when, cached or not], …}}</code>.</p>
${discoveryLinksHtml()}
<h2>Groups</h2><ul>${toc}</ul>
${body}
<h2 id="problems">Errors</h2>
<p>Every error answers <code>application/problem+json</code> with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, a stable <code>code</code> and, for a bad parameter, <code>param</code>. A call that fails is not charged.</p>
<ul>${problems}</ul>`, { maxWidth: "60rem", style: STYLE });
}

const STYLE = `
h1{margin-bottom:.2rem} h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2.5rem} h2 small{font-weight:normal;color:#666}
.ep{border-left:3px solid #4a7;padding:.1rem .8rem;margin:1rem 0;background:#fafafa} .ep h3{font-size:1rem;margin:.5rem 0}
.price{float:right;margin-left:.5rem;color:#285;font-weight:normal} .allowed,.tool,.none{color:#555;font-size:.9rem}
ul.params{padding-left:1.2rem}
.disclaimer{background:#fff4e0;padding:.4rem .8rem;border-radius:4px}`;

/** The call a page shows as an example: an endpoint answered from an upstream (no local dataset to wait for), with its example parameters. */
export function sampleCall(registry: Registry, baseUrl: string): string {
  const endpoints = [...registry.endpoints.values()];
  const e = endpoints.find((x) => !x.plugin) ?? endpoints[0];
  return e ? exampleUrl(e, baseUrl) : `${baseUrl}/openapi.json`;
}
