// GET /groups/<group>: one group's full reference (every endpoint with its price, parameters and an example call),
// generated from the same endpoint files as everything else.
import { describeAllowed } from "../endpoints/params.ts";
import { esc, page } from "./html-page.ts";
import type { Endpoint, Group } from "../endpoints/model.ts";

export function exampleUrl(e: Endpoint, baseUrl: string): string {
  const params = e.examples[0]?.params ?? {};
  const q = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return `${baseUrl}${e.path}${q ? `?${q}` : ""}`;
}

export const groupPath = (g: Group) => `/groups/${g.name}`;
export const priceText = (e: Endpoint) => (e.freeOnly ? "free allowance only" : `$${e.price} a call`);

function endpointSection(e: Endpoint, baseUrl: string): string {
  const params = Object.entries(e.params).map(([name, p]) =>
    `<li><code>${esc(name)}</code>${p.required ? " <b>required</b>" : ""}: ${esc(p.description)} <span class="allowed">(${esc(describeAllowed(p))}${p.default !== undefined ? `; default ${esc(p.default)}` : ""})</span></li>`).join("");
  return `<section class="ep" id="${esc(e.toolName)}">
  <h3><code>GET ${esc(e.path)}</code> <span class="price">${priceText(e)}</span></h3>
  <p>${esc(e.summary)}</p>
  ${params ? `<ul class="params">${params}</ul>` : `<p class="none">No parameters.</p>`}
  <p class="example">Example: <code>curl -H "X-API-Key: $KEY" '${esc(exampleUrl(e, baseUrl))}'</code></p>
  <p class="tool">MCP tool: <code>${esc(e.toolName)}</code> · free calls a day: ${e.buckets.map((b) => `${b.anonymous} without a key / ${b.key} with a key (${esc(b.id.split(":")[0])} bucket)`).join(" and ")}</p>
</section>`;
}

export function renderGroupPage(g: Group, baseUrl: string): string {
  return page(`${g.title}: Public-data API for AI agents`, `<p><a href="/">← All groups</a></p>
<h1>${esc(g.title)} <small><code>${esc(g.name)}</code></small></h1>
<p>${esc(g.description)}</p>
${g.disclaimers.map((d) => `<p class="disclaimer">${esc(d)}</p>`).join("")}
${g.attribution ? `<p class="attribution">${esc(g.attribution)}</p>` : ""}
<p>${g.endpoints.length} endpoint${g.endpoints.length === 1 ? "" : "s"}, each <code>GET ${esc(baseUrl)}/v1/${esc(g.name)}/&lt;operation&gt;</code>
and an MCP tool; <code>${esc(baseUrl)}/mcp?groups=${esc(g.name)}</code> lists them as direct tools. Errors are
<a href="/problems">problem details</a>.</p>
${g.endpoints.map((e) => endpointSection(e, baseUrl)).join("\n")}`, { maxWidth: "60rem", style: STYLE });
}

const STYLE = `
h1 small{font-weight:normal;color:#666;font-size:1rem}
.ep{border-left:3px solid #4a7;padding:.1rem .8rem;margin:1rem 0;background:#fafafa} .ep h3{font-size:1rem;margin:.5rem 0}
.price{float:right;margin-left:.5rem;color:#285;font-weight:normal} .allowed,.tool,.none{color:#555;font-size:.9rem}
ul.params{padding-left:1.2rem}
.disclaimer{background:#fff4e0;padding:.4rem .8rem;border-radius:4px}`;
