// GET /: a page a person can read, generated from the same endpoint files as everything else. It lists every group
// (sorted by the title shown) and every endpoint in one line each, with a filter box; each group's full reference
// is its own page (group-page.ts), so that this one stays small and is useful while it is still loading.
import { PROBLEM_TITLES } from "../basics/problem.ts";
import { esc, page } from "./html-page.ts";
import { exampleUrl, groupPath, priceText } from "./group-page.ts";
import type { Registry, Endpoint, Group } from "../endpoints/model.ts";

/**
 * The "For agents" block: where a program starts. Add a machine-readable entry point here (one link each); the
 * page shows them in this order.
 */
export function forAgentsLinks(baseUrl: string): { href?: string; text: string; note: string }[] {
  return [
    { href: "/llms.txt", text: "/llms.txt", note: "what the service is, how to call and pay, every group (llms-full.txt: every endpoint)" },
    { href: "/openapi.json", text: "/openapi.json", note: "every endpoint as OpenAPI 3.1, with its price (x-payment-info) and example parameters" },
    { href: "/.well-known/x402", text: "/.well-known/x402", note: "every paid resource as an x402 discovery list" },
    { href: "/.well-known/mcp/server-card.json", text: "/.well-known/mcp/server-card.json", note: "the MCP server card" },
    { text: `${baseUrl}/mcp`, note: "the MCP server (Streamable HTTP, POST): search_apis, call_api and, with ?groups=, the groups' endpoints as tools" },
  ];
}

const byTitle = (a: Group, b: Group) => a.title.localeCompare(b.title, "en", { sensitivity: "base" });

function endpointLine(g: Group, e: Endpoint): string {
  return `<li><a href="${groupPath(g)}#${esc(e.toolName)}"><code>${esc(e.operation)}</code></a> <span class="price">${priceText(e)}</span> ${esc(e.summary)}</li>`;
}

function groupItem(g: Group): string {
  return `<li><div class="gh"><a href="${groupPath(g)}"><b>${esc(g.title)}</b></a> <small><code>${esc(g.name)}</code> · ${g.endpoints.length} endpoint${g.endpoints.length === 1 ? "" : "s"}</small></div>
<div class="desc">${esc(g.description)}</div>
<ul>${g.endpoints.map((e) => endpointLine(g, e)).join("\n")}</ul></li>`;
}

// Inline and placed before the list, so that it filters as soon as the box is there, also groups that arrive
// later (it filters again when the page has loaded). Every word typed must be in the endpoint's line or the group's
// title and name (not its description, which would keep whole groups for a word that one endpoint is about).
const FILTER_SCRIPT = `<script>
(() => {
  const box = document.getElementById("filter"), shown = document.getElementById("shown");
  box.parentElement.hidden = false;
  const filter = () => {
    const words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let count = 0;
    for (const g of document.querySelectorAll("#groups > li")) {
      const head = g.querySelector(".gh").textContent;
      let any = false;
      for (const e of g.querySelectorAll("ul > li")) {
        const text = (head + " " + e.textContent).toLowerCase();
        e.hidden = !words.every((w) => text.includes(w));
        if (!e.hidden) { any = true; count++; }
      }
      g.hidden = !any;
    }
    shown.textContent = words.length ? count + (count === 1 ? " endpoint" : " endpoints") : "";
  };
  box.addEventListener("input", filter);
  document.addEventListener("DOMContentLoaded", filter);
})();
</script>`;

export function renderDocsPage(registry: Registry, baseUrl: string): string {
  const groups = [...registry.groups.values()].sort(byTitle);
  const endpoints = groups.reduce((n, g) => n + g.endpoints.length, 0);
  const forAgents = forAgentsLinks(baseUrl).map((l) => `<li>${l.href ? `<a href="${esc(l.href)}">${esc(l.text)}</a>` : `<code>${esc(l.text)}</code>`}: ${esc(l.note)}</li>`).join("\n");
  const problems = Object.entries(PROBLEM_TITLES).map(([code, title]) => `<li id="${code}"><code>${code}</code>: ${esc(title)}</li>`).join("");
  return page("Public-data API for AI agents", `<h1>Public-data API for AI agents</h1>
<p>Clean JSON from central banks, statistics offices and other public sources. Every operation is
<code>GET ${esc(baseUrl)}/v1/&lt;group&gt;/&lt;operation&gt;</code> and also an MCP tool at <code>${esc(baseUrl)}/mcp</code>.
Each call has a fixed price in US dollars; pay per call in USDC with <a href="https://x402.org">x402</a> (v2), from prepaid card credit,
or use a <a href="/free">free key</a> within its daily allowance. An unpaid call answers HTTP 402 with the payment requirements.</p>
<p>Every answer is <code>{"data": …, "meta": {"sources": [where it came from, when, cached or not], …}}</code>.
Errors are <a href="#problems">problem details</a> (RFC 9457).</p>
<section id="for-agents"><h2>For agents</h2>
<ul>
${forAgents}
</ul></section>
<h2 id="endpoints">${groups.length} groups, ${endpoints} endpoints</h2>
<p>Each group's page has every endpoint's parameters and an example call.</p>
<p class="filter" hidden><label for="filter">Filter:</label> <input id="filter" type="search" placeholder="e.g. inflation, iban, uk" autocomplete="off"> <span id="shown" aria-live="polite"></span></p>
${FILTER_SCRIPT}
<ul id="groups">
${groups.map(groupItem).join("\n")}
</ul>
<h2 id="problems">Errors</h2>
<p>Every error answers <code>application/problem+json</code> with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, a stable <code>code</code> and, for a bad parameter, <code>param</code>. A call that fails is not charged.</p>
<ul>${problems}</ul>`, { maxWidth: "60rem", style: STYLE });
}

const STYLE = `
h1{margin-bottom:.2rem} h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
#filter{width:100%;max-width:24rem;font-size:1rem;padding:.3rem .5rem} #shown{color:#555}
#groups{list-style:none;padding:0} #groups>li{margin:1.2rem 0} #groups ul{padding-left:1.2rem;margin:.3rem 0}
.gh small,.desc{color:#555} .price{color:#285;font-size:.9rem}`;

/** The call a page shows as an example: an endpoint answered from an upstream (no local dataset to wait for), with its example parameters. */
export function sampleCall(registry: Registry, baseUrl: string): string {
  const endpoints = [...registry.endpoints.values()];
  const e = endpoints.find((x) => !x.plugin) ?? endpoints[0];
  return e ? exampleUrl(e, baseUrl) : `${baseUrl}/openapi.json`;
}
