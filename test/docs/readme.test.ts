// The README and the docs pages are part of the product: a README a newcomer reads to the end, pages that keep
// listing every source and every group, and links that lead somewhere.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { credentialVars, readSources } from "../../engine/upstream/sources.ts";
import { ROOT } from "../support/helpers.ts";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { GROUPS_PAGE, renderGroupsPage } from "../../engine/cli/groups-page.ts";

const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), "utf8");
const docsPages = fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
const groups = fs.readdirSync(path.join(ROOT, "endpoints"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
const groupReadmes = groups.map((g) => `endpoints/${g}/README.md`).filter((f) => fs.existsSync(path.join(ROOT, f)));

/** The anchors a Markdown page offers: its headings as GitHub writes them, and its explicit <a id>. */
function anchors(markdown: string): Set<string> {
  const ids = new Set<string>();
  const outsideCode = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const [, heading] of outsideCode.matchAll(/^#{1,6} (.+)$/gm)) {
    ids.add(heading.toLowerCase().replace(/<[^>]*>/g, "").replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-"));
  }
  for (const [, id] of markdown.matchAll(/<a id="([^"]+)"><\/a>/g)) ids.add(id);
  return ids;
}

/** The sentences (of more than 50 characters) a page's prose says twice, code blocks, tables and headings aside. */
function saidTwice(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").split("\n").filter((l) => !l.startsWith("|") && !l.startsWith("#")).join(" ");
  const seen = new Set<string>();
  return prose.split(/(?<=[.:;])\s+/).map((s) => s.trim()).filter((s) => s.length > 50 && (seen.has(s) || !seen.add(s)));
}

describe("README", () => {
  const readme = read("README.md");

  it("is at most 300 lines", () => {
    assert.ok(readme.split("\n").length <= 300, `${readme.split("\n").length} lines: move a topic to a page of docs/`);
  });

  it("says what it is, how to start, what an answer looks like, how to pay, how to add an endpoint, and the layout", () => {
    for (const h of ["## Quick start", "## What an answer looks like", "## Three ways to pay", "## Adding an endpoint", "### An example or a test?", "## Layout", "## More"]) {
      assert.ok(readme.includes(`\n${h}`), h);
    }
    for (const c of ["npm install", "npm start", "npm test", "endpoints/bank-of-england/sterling-index.yaml"]) assert.ok(readme.includes(c), c);
  });

  it("links every page of docs/", () => {
    for (const page of docsPages) assert.ok(readme.includes(`](${page})`), page);
  });
});

describe("docs pages", () => {
  it("docs/sources.md lists every upstream source with its UPSTREAM_ variable and credentials", () => {
    const page = read("docs/sources.md");
    for (const s of readSources(path.join(ROOT, "sources.yaml"), {}).values()) {
      assert.ok(page.includes(`| \`${s.name}\` |`), `source ${s.name} listed`);
      assert.ok(page.includes(`\`${s.envVar}\``), `${s.envVar} listed`);
      for (const v of credentialVars(s)) assert.ok(page.includes(`\`${v}\``), `${v} listed`);
    }
  });

  it("docs/groups.md is what npm run docs writes from the endpoint files now", async () => {
    const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
    const current = renderGroupsPage(ROOT, registry, readSources(path.join(ROOT, "sources.yaml"), {}));
    assert.ok(read(GROUPS_PAGE) === current, `${GROUPS_PAGE} is not current: run npm run docs and commit it`);
  });

  it("docs/groups.md lists every group with its number of endpoints, and its README where it has one", () => {
    const page = read("docs/groups.md");
    for (const g of groups) {
      const row = page.split("\n").find((l) => l.startsWith(`| \`${g}\` |`));
      assert.ok(row, `group ${g} listed`);
      const count = fs.readdirSync(path.join(ROOT, "endpoints", g)).filter((f) => f.endsWith(".yaml") && f !== "_group.yaml").length;
      assert.match(row, new RegExp(`\\(${count}\\) \\|`), `${g}: ${count} endpoints`);
      if (fs.existsSync(path.join(ROOT, "endpoints", g, "README.md"))) assert.ok(row.includes(`](../endpoints/${g}/README.md)`), `${g}: README linked`);
    }
  });

  for (const file of ["README.md", ...docsPages, ...groupReadmes]) {
    it(`${file}: every link to a file of the repository leads to it, and to its heading`, () => {
      const broken: string[] = [];
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [where, anchor] = target.split("#");
        const linked = where ? path.join(path.dirname(file), where) : file;
        if (!fs.existsSync(path.join(ROOT, linked))) broken.push(target);
        else if (anchor && linked.endsWith(".md") && !anchors(read(linked)).has(anchor)) broken.push(`${target} (no such heading)`);
      }
      assert.deepEqual(broken, []);
    });
  }

  for (const file of ["README.md", ...docsPages]) {
    it(`${file} says no sentence twice`, () => {
      assert.deepEqual(saidTwice(read(file)), []);
    });
  }

  it("finds a sentence said twice, across lines", () => {
    const said = "An example is enough for what a caller can see from one call.";
    assert.deepEqual(saidTwice(`${said} Another sentence, long enough to be counted here.\n\n\`\`\`\n${said}\n\`\`\`\nAn example is enough for\nwhat a caller can see from one call.`), [said]);
  });

  it("finds the anchors GitHub makes of headings", () => {
    const ids = anchors("# Payment: free keys, x402 and card credit\n## Several instances: PostgreSQL and Redis\n```\n# not a heading\n```\n<a id=\"endpoint-upstream\"></a>\n### `upstream[]`");
    assert.deepEqual([...ids].sort(), ["endpoint-upstream", "payment-free-keys-x402-and-card-credit", "several-instances-postgresql-and-redis", "upstream"]);
  });
});
