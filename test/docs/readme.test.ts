// The README is part of the product: it must keep listing every upstream source and its override variable.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { credentialVars, readSources } from "../../engine/upstream/sources.ts";
import { ROOT } from "../support/helpers.ts";

describe("README", () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  it("shows the two set-up commands and the test command", () => {
    for (const c of ["npm install", "npm start", "npm test"]) assert.ok(readme.includes(c), c);
  });
  it("lists every upstream source with its UPSTREAM_ variable", () => {
    for (const s of readSources(path.join(ROOT, "sources.yaml"), {}).values()) {
      assert.ok(readme.includes(`| \`${s.name}\` |`), `source ${s.name} listed`);
      assert.ok(readme.includes(`\`${s.envVar}\``), `${s.envVar} listed`);
      for (const v of credentialVars(s)) assert.ok(readme.includes(`\`${v}\``), `${v} listed`);
    }
  });
});
