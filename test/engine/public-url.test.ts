// The public-url parameter format: a caller's URL that the service would fetch is refused before payment when
// it can only be unsafe (engine/upstream/url-gate.ts), and a good one is normalised.
import assert from "node:assert/strict";
import { parseParams, type ParamSpec } from "../../engine/endpoints/params.ts";
import { Problem } from "../../engine/basics/problem.ts";

const specs: Record<string, ParamSpec> = { url: { type: "string", format: "public-url", required: true, description: "a page" } };

describe("engine: public-url parameters", () => {
  it("normalises a public URL", () => {
    assert.equal(parseParams(specs, { url: "HTTPS://Example.COM/a b?x=1" }).values.url, "https://example.com/a%20b?x=1");
  });
  for (const url of ["http://127.0.0.1/", "http://0x7f000001/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/latest/", "http://localhost:8080/", "file:///etc/passwd", "http://user:pw@example.com/", "http://example.com:25/", "not a url"]) {
    it(`refuses ${url} as a 400 naming the parameter`, () => {
      assert.throws(() => parseParams(specs, { url }), (e: unknown) => e instanceof Problem && e.status === 400 && e.param === "url");
    });
  }
});
