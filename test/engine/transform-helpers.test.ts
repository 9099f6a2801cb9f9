// The JSONata helpers $htmlText and $zonedInstant (engine/endpoints/transform.ts).
import assert from "node:assert/strict";
import { compileTransform, plain } from "../../engine/endpoints/transform.ts";
import { htmlText, londonDay, zonedInstant } from "../../engine/endpoints/transform-helpers.ts";

describe("transform helpers", () => {
  it("$htmlText decodes entities, turns breaks into lines and drops tags, also when the markup arrives escaped", () => {
    assert.equal(htmlText("Sunny.&lt;br/&gt;&lt;br/&gt;A &#39;clean&#39; air feed&lt;br/&gt;"), "Sunny.\n\nA 'clean' air feed");
    assert.equal(htmlText("<p>One <b>two</b></p><p>three &amp; four</p>"), "One two\nthree & four");
    assert.equal(htmlText("  "), null);
    assert.equal(htmlText(null), null);
  });

  it("$zonedInstant gives a local time its zone's offset, in summer and winter", () => {
    assert.equal(zonedInstant("2026-05-29T14:53:00", "Europe/London"), "2026-05-29T14:53:00+01:00");
    assert.equal(zonedInstant("2015-12-21T08:05", "Europe/London"), "2015-12-21T08:05:00+00:00");
    assert.equal(zonedInstant("2026-03-29T03:30:00", "Europe/London"), "2026-03-29T03:30:00+01:00");
    assert.equal(zonedInstant("not a time", "Europe/London"), null);
  });

  it("$londonDay gives the Europe/London day of an instant (ONS dates a 7am release at 23:00 the evening before in UTC)", () => {
    assert.equal(londonDay("2026-04-21T23:00:00.000Z"), "2026-04-22");
    assert.equal(londonDay("2026-01-21T23:00:00.000Z"), "2026-01-21");
    assert.equal(londonDay("2025-10-22"), "2025-10-22");
    assert.equal(londonDay(""), null);
  });

  it("both are callable from a transform", async () => {
    const t = compileTransform('{ "text": $htmlText(a), "at": $zonedInstant(b, "Europe/London") }');
    assert.deepEqual(plain(await t.evaluate({ a: "x&lt;br/&gt;y", b: "2026-01-10T10:00:00" }, { params: {}, vars: {} })), { text: "x\ny", at: "2026-01-10T10:00:00+00:00" });
  });
});
