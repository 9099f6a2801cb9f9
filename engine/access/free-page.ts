// The /free page: a person gets a key in the browser (shown once). Works with JavaScript (fetch) and without (form post).
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}
code,pre{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}pre{padding:.6rem;overflow-x:auto}
button{font-size:1rem;padding:.5rem 1rem}#key{font-size:1.1rem;word-break:break-all}`;

export function freePage(baseUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Get a free API key</title><style>${STYLE}</style></head>
<body>
<h1>Get a free API key</h1>
<p>No signup. Send the key in the <code>X-API-Key</code> header: calls are free up to a daily allowance (UTC days);
after that, card credit or an x402 payment pays the price of a call.</p>
<form id="get" method="post" action="/free"><button type="submit" id="get-key">Get a key</button></form>
<section id="result" hidden>
<p>Your key (shown once, this service keeps only a hash of it):</p>
<p><code id="key"></code></p>
<pre id="example"></pre>
</section>
<p id="error" role="alert"></p>
<script>
document.getElementById("get").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const res = await fetch("/free", { method: "POST", headers: { accept: "application/json" } });
  const body = await res.json();
  if (!res.ok) { document.getElementById("error").textContent = body.detail; return; }
  document.getElementById("key").textContent = body.key;
  document.getElementById("example").textContent = body.example;
  document.getElementById("result").hidden = false;
  document.getElementById("get").hidden = true;
});
</script>
<p>Programs: <code>curl -X POST ${esc(baseUrl)}/free</code> answers the same as JSON.</p>
</body></html>`;
}

export function keyPage(baseUrl: string, key: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Your free API key</title><style>${STYLE}</style></head>
<body><h1>Your free API key</h1><p>Shown once; this service keeps only a hash of it.</p>
<p><code id="key">${esc(key)}</code></p>
<pre id="example">curl -H "X-API-Key: ${esc(key)}" ${esc(baseUrl)}/account</pre></body></html>`;
}
