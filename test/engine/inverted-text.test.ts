// $invertedText: OpenAlex sends abstracts as an inverted index { word: [positions] }; the helper rebuilds the text.
import assert from "node:assert/strict";
import { compileTransform } from "../../engine/endpoints/transform.ts";
import { invertedText } from "../../engine/endpoints/transform-helpers.ts";

describe("engine: $invertedText", () => {
  it("puts every word back at its positions, in order", () => {
    assert.equal(invertedText({ Despite: [0], growing: [1], interest: [2], in: [3, 5], Open: [4], Access: [6] }), "Despite growing interest in Open in Access");
  });
  it("answers null for a missing or empty index, and skips gaps and bad positions", () => {
    assert.equal(invertedText(null), null);
    assert.equal(invertedText({}), null);
    assert.equal(invertedText({ a: [0], b: [3], c: [-1, "x"] }), "a b");
  });
  it("is available in transforms", async () => {
    const t = compileTransform("$invertedText(abstract_inverted_index)");
    assert.equal(await t.evaluate({ abstract_inverted_index: { world: [1], Hello: [0] } }, { params: {}, vars: {} }), "Hello world");
  });
});
