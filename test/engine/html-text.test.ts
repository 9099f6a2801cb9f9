// $htmlText: HTML fragments from upstreams (bill descriptions, news articles) as plain text.
import assert from "node:assert/strict";
import { compileTransform } from "../../engine/endpoints/transform.ts";
import { htmlText } from "../../engine/endpoints/transform-helpers.ts";

describe("$htmlText", () => {
  it("drops tags, decodes entities and keeps one line per paragraph", () => {
    assert.equal(htmlText("<p>The Bill was carried over to the 2026&#8211;27 session &amp; will   continue.</p><p>Next: <b>report</b>&nbsp;stage.</p>"),
      "The Bill was carried over to the 2026\u201327 session & will continue.\nNext: report stage.");
    assert.equal(htmlText("a<br/>b &#x2014; &lt;c&gt; &unknown;"), "a\nb \u2014 <c> &unknown;");
  });
  it("answers null for nothing", () => {
    assert.equal(htmlText(null), null);
    assert.equal(htmlText(undefined), null);
    assert.equal(htmlText("<p> </p>"), null);
  });
  it("is a helper of every transform", async () => {
    const t = compileTransform("$htmlText(body)");
    assert.equal(await t.evaluate({ body: "<p>x &amp; y</p>" }, { params: {}, vars: {} }), "x & y");
  });
});
