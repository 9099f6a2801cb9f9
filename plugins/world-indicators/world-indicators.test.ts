// world-indicators: the indicator list dataset (the World Bank API has no indicator search) loads the API's
// [meta, rows] answer and refuses a list cut short by per_page, a list shorter than it says, or an error body.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import definition from "./world-bank-indicators.dataset.ts";
import type { DatasetInput } from "../../engine/datasets/types.ts";
import { datasetCopy } from "../../test/support/helpers.ts";

const input = (text: string): DatasetInput => ({
  files: ["indicators.json"],
  text: async () => text,
  bytes: async () => Buffer.from(text),
  origin: () => ({ url: "test" }),
});
const progress = { phase() {}, tick() {}, log() {} };
const real = fs.readFileSync(datasetCopy("world-bank-indicators", "indicators.json"), "utf8");

describe("world-bank-indicators dataset", () => {
  it("loads the list and counts indicators and sources", async () => {
    const db = new DatabaseSync(":memory:");
    const result = await definition.load(input(real), db, progress);
    assert.deepEqual(result.counts, { indicators: 9, sources: 3 });
    const index = definition.index!(db);
    assert.equal(index.indicators.find((i) => i.id === "CC.EST")?.source, "Worldwide Governance Indicators");
  });

  it("refuses page 1 of several (per_page too small)", async () => {
    const [meta, rows] = JSON.parse(real);
    const cut = JSON.stringify([{ ...meta, pages: 3, total: 27 }, rows]);
    await assert.rejects(definition.load(input(cut), new DatabaseSync(":memory:"), progress), /page 1 of 3/);
  });

  it("refuses a list with fewer rows than it announces, and an error body", async () => {
    const [meta, rows] = JSON.parse(real);
    await assert.rejects(definition.load(input(JSON.stringify([meta, rows.slice(1)])), new DatabaseSync(":memory:"), progress), /holds 8 indicators but says it has 9/);
    const error = '[{"message":[{"id":"120","key":"Invalid value","value":"The provided parameter value is not valid"}]}]';
    await assert.rejects(definition.load(input(error), new DatabaseSync(":memory:"), progress), /not the Indicators API/);
  });
});
