// $jsonstat: JSON-stat 2.0 cells decoded into rows (row-major flat index, last dimension fastest), and $distanceKm.
import assert from "node:assert/strict";
import { jsonstatRows } from "../../engine/endpoints/jsonstat.ts";
import { compileTransform, plain } from "../../engine/endpoints/transform.ts";

// Three dimensions of sizes 2 x 3 x 2 (12 cells), in the Eurostat shape: sparse `value` and `status` objects,
// `category.index` as objects for two dimensions and as an array for one.
const cube = {
  version: "2.0", class: "dataset", label: "test cube", id: ["unit", "geo", "time"], size: [2, 3, 2],
  dimension: {
    unit: { label: "unit", category: { index: { PC: 0, NR: 1 }, label: { PC: "Percent", NR: "Number" } } },
    geo: { label: "geo", category: { index: ["DE", "FR", "IT"], label: { DE: "Germany", FR: "France", IT: "Italy" } } },
    time: { label: "time", category: { index: { "2024": 0, "2025": 1 }, label: { "2024": "2024", "2025": "2025" } } },
  },
  // flat = unit*6 + geo*2 + time
  value: { "0": 1.5, "1": 2.5, "3": 3.5, "7": 100, "11": 300 },
  status: { "1": "p", "4": "c", "11": "e" },
};

describe("engine: $jsonstat (JSON-stat 2.0 decoding)", () => {
  it("decodes a sparse multi-dimension cube into rows with every dimension's code", () => {
    const rows = jsonstatRows(cube);
    assert.deepEqual(rows, [
      { unit: "PC", geo: "DE", time: "2024", value: 1.5, status: null },
      { unit: "PC", geo: "DE", time: "2025", value: 2.5, status: "p" },
      { unit: "PC", geo: "FR", time: "2025", value: 3.5, status: null },
      { unit: "PC", geo: "IT", time: "2024", value: null, status: "c" },
      { unit: "NR", geo: "DE", time: "2025", value: 100, status: null },
      { unit: "NR", geo: "IT", time: "2025", value: 300, status: "e" },
    ]);
  });

  it("reads dense arrays, one status for all cells and a single category without an index", () => {
    const rows = jsonstatRows({
      id: ["freq", "time"], size: [1, 3],
      dimension: { freq: { category: { label: { M: "Monthly" } } }, time: { category: { index: ["2025-01", "2025-02", "2025-03"] } } },
      value: [1, null, 3], status: "p",
    });
    assert.deepEqual(rows, [
      { freq: "M", time: "2025-01", value: 1, status: "p" },
      { freq: "M", time: "2025-03", value: 3, status: "p" },
    ]);
  });

  it("refuses what is not a JSON-stat dataset, and a size that does not match the categories", () => {
    assert.throws(() => jsonstatRows({ error: [{ status: "400" }] }), /not a JSON-stat 2.0 dataset/);
    assert.throws(() => jsonstatRows({ ...cube, size: [2, 4, 2] }), /does not have 4 categories/);
  });

  it("is a JSONata helper", async () => {
    const t = compileTransform(`$jsonstat($)[unit = "NR"].{ "geo": geo, "value": value }`);
    assert.deepEqual(plain(await t.evaluate(cube, { params: {}, vars: {} })), [{ geo: "DE", value: 100 }, { geo: "IT", value: 300 }]);
  });

  it("$distanceKm is the great-circle distance", async () => {
    const t = compileTransform(`$round($distanceKm(51.5074, -0.1278, 48.8566, 2.3522), 0)`);
    assert.equal(await t.evaluate({}, { params: {}, vars: {} }), 344);
  });
});
