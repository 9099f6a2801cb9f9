// The /free page: a person gets a key in the browser (shown once). Works with JavaScript (fetch) and without (form
// post), and shows a real call with the new key. It offers only the ways to pay this server can take.
import { esc, page } from "./html-page.ts";

/** What the pages need to know about the server. */
export interface FreePageInfo {
  baseUrl: string;
  /** A /v1 call to show with the new key. */
  sampleCall: string;
  /** Whether the server takes x402 payments (X402_PAY_TO set) and card credit (Stripe configured). */
  x402: boolean;
  credit: boolean;
}

const STYLE = `#key{font-size:1.1rem}#error{color:#a22}`;

/**
 * After the daily allowance, in words: credit on the key always pays (the operator may grant it even where it cannot
 * be bought), x402 where the server takes it; only without either, or for the free-allowance-only endpoints, do
 * calls wait for the next day.
 */
function afterAllowance(info: FreePageInfo): string {
  const credit = info.credit ? "card credit on your key (POST /credit/checkout buys it)" : "card credit on your key, if it has any,";
  const ways = [credit, info.x402 ? "an x402 payment (USDC)" : ""].filter(Boolean).join(" or ");
  return `after that, ${ways} pays the price of a call; otherwise calls wait for the next UTC day, as calls to the `
    + "endpoints served within the free allowance only always do";
}

/** The two commands to try a key with: a real call, and what is left of its allowance. */
function examples(info: FreePageInfo, key: string): string {
  return `curl -H "X-API-Key: ${key}" '${info.sampleCall}'\n\ncurl -H "X-API-Key: ${key}" ${info.baseUrl}/account`;
}

export function freePage(info: FreePageInfo): string {
  return page("Get a free API key", `<h1>Get a free API key</h1>
<p>No signup. Send the key in the <code>X-API-Key</code> header: calls are free up to a daily allowance (UTC days);
${esc(afterAllowance(info))}.</p>
<form id="get" method="post" action="/free"><button type="submit" id="get-key">Get a key</button></form>
<p>Building an agent? A <strong>test key</strong> answers every endpoint from its own examples (recorded upstream
answers, marked <code>meta.test_mode</code>): free, offline and the same every time; switch to a live key by changing
only the key.</p>
<form id="get-test" method="post" action="/free?mode=test"><button type="submit" id="get-test-key">Get a test key</button></form>
<section id="result" hidden>
<p>Your <span id="mode">key</span> (shown once, this service keeps only a hash of it):</p>
<p><code id="key"></code></p>
<p>Try it, then see what is left of today's allowance:</p>
<pre id="example"></pre>
</section>
<p id="error" role="alert"></p>
<script>
const EXAMPLES = ${JSON.stringify(examples(info, "KEY"))};
for (const form of document.querySelectorAll("#get, #get-test")) form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const res = await fetch(form.getAttribute("action"), { method: "POST", headers: { accept: "application/json" } });
  const body = await res.json();
  if (!res.ok) { document.getElementById("error").textContent = body.detail; return; }
  document.getElementById("key").textContent = body.key;
  document.getElementById("mode").textContent = body.mode === "test" ? "test key" : "key";
  document.getElementById("example").textContent = EXAMPLES.replaceAll("KEY", body.key);
  document.getElementById("result").hidden = false;
  document.getElementById("get").hidden = true;
  document.getElementById("get-test").hidden = true;
});
</script>
<p>Programs: <code>curl -X POST ${esc(info.baseUrl)}/free</code> (a test key: <code>/free?mode=test</code>) answers the same as JSON.</p>`, { maxWidth: "42rem", style: STYLE });
}

export function keyPage(info: FreePageInfo, key: string, test = false): string {
  const what = test ? "test key" : "free API key";
  const testNote = test ? "<p>Every call with it is answered from the endpoint's own examples, free and offline (<code>meta.test_mode</code>).</p>" : "";
  return page(`Your ${what}`, `<h1>Your ${what}</h1><p>Shown once; this service keeps only a hash of it.</p>${testNote}
<p><code id="key">${esc(key)}</code></p>
<p>Try it, then see what is left of today's allowance:</p>
<pre id="example">${esc(examples(info, key))}</pre>`, { maxWidth: "42rem", style: STYLE });
}

/** The answer to the page's form when this address has had its keys for today (a 429, as a page, not JSON). */
export function limitPage(detail: string): string {
  return page("No more free keys today", `<h1>No more free keys today</h1>
<p id="error" role="alert">${esc(detail)}</p>
<p><a href="/">The endpoints and their prices</a></p>`, { maxWidth: "42rem", style: STYLE });
}

/** The 429's detail: only the ways to pay this server takes. */
export function keyLimitDetail(info: FreePageInfo, perDay: number): string {
  const ways = [info.credit ? "add card credit to one (POST /credit/checkout)" : "", info.x402 ? "pay per call with x402" : ""].filter(Boolean);
  return `This address already got ${perDay} free keys today (UTC). Use one of them${ways.length ? `, or ${ways.join(", or ")}` : ""}.`;
}
