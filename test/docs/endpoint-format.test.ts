// docs/endpoint-format.md is generated from the schemas' descriptions (npm run docs): every key must have one, and
// the committed page must be what the generator writes from the schemas as they are now.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ENDPOINT_FORMAT_PAGE, readSchemas, renderEndpointFormat, undescribedProperties } from "../../engine/cli/endpoint-format.ts";
import { ROOT } from "../support/helpers.ts";

describe("docs/endpoint-format.md", () => {
  for (const { file, schema } of readSchemas(ROOT)) {
    it(`every property of ${file} has a description`, () => {
      assert.deepEqual(undescribedProperties(schema), [], `${file}: add a "description" to these properties, then run npm run docs`);
    });
  }

  it("finds a nested property without a description, and takes one from what a property $refs", () => {
    const schema = {
      properties: {
        a: { type: "object", description: "A.", properties: { b: { type: "string" }, c: { $ref: "#/$defs/c" } } },
        d: { type: "array", description: "D.", items: { type: "object", properties: { e: { type: "string" } } } },
      },
      $defs: { c: { type: "string", description: "C." } },
    };
    assert.deepEqual(undescribedProperties(schema), ["#/properties/a/properties/b", "#/properties/d/items/properties/e"]);
  });

  it("is what npm run docs writes from the schemas now", () => {
    const committed = fs.readFileSync(path.join(ROOT, ENDPOINT_FORMAT_PAGE), "utf8");
    assert.ok(committed === renderEndpointFormat(ROOT), `${ENDPOINT_FORMAT_PAGE} is not current: run npm run docs and commit it`);
  });

  it("lists every key of both files, nested ones too", () => {
    const page = fs.readFileSync(path.join(ROOT, ENDPOINT_FORMAT_PAGE), "utf8");
    for (const key of ["operation", "upstream", "as", "when", "optional", "fixtures", "reply_headers", "skip_lines", "functions", "defaults", "with_group"]) {
      assert.ok(page.includes(`| \`${key}\``), key);
    }
  });
});
