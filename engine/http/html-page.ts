// What the pages a person opens (/ and /free) share: the head, the icon and a layout that fits a 390 px phone
// screen as well as a desktop (long URLs and code wrap instead of widening the page).
export const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#285"/>` +
  `<path d="M8 10h16M8 16h16M8 22h10" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>`;

const BASE_STYLE = `*,*::before,*::after{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;padding:0 1rem;color:#222;overflow-wrap:anywhere}
code,pre{background:#eef;border-radius:3px}code{padding:0 .2rem;word-break:break-all}
pre{padding:.6rem;white-space:pre-wrap;word-break:break-all}
button{font-size:1rem;padding:.5rem 1rem}`;

export function page(title: string, body: string, opts: { maxWidth: string; style?: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>${BASE_STYLE}
body{max-width:${opts.maxWidth}}${opts.style ?? ""}</style></head>
<body>
${body}
</body></html>`;
}
