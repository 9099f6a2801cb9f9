// The ECB series keys this group asks for, checked against the documented key structure of each dataflow: the
// number and order of dimensions, and the codes used in each. Both the paths the engine renders (every rating
// and curve type, every policy rate) and the recorded fixtures are checked, so a key with a dimension too many,
// too few or in the wrong place fails here rather than as a 404 from the ECB.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { type Registry } from "../../engine/endpoints/model.ts";
import { ROOT } from "../support/helpers.ts";

// Data structure definitions (ECB Data Portal, https://data.ecb.europa.eu/help/api/data: "take the value for each
// of the Dimensions following the order in which the Dimensions are defined in the DSD"). FM and YC share
// ECB_FMD1 (the column order of the real YC answer in shared/upstream-samples/euro-area-rates); EST is ECB_EST1.
const DIMENSIONS: Record<string, string[]> = {
  FM: ["FREQ", "REF_AREA", "CURRENCY", "PROVIDER_FM", "INSTRUMENT_FM", "PROVIDER_FM_ID", "DATA_TYPE_FM"],
  YC: ["FREQ", "REF_AREA", "CURRENCY", "PROVIDER_FM", "INSTRUMENT_FM", "PROVIDER_FM_ID", "DATA_TYPE_FM"],
  EST: ["FREQ", "BENCHMARK_ITEM", "DATA_TYPE_EST"],
};
const TENORS = ["3M", "6M", "1Y", "2Y", "3Y", "5Y", "7Y", "10Y", "15Y", "20Y", "30Y"];
// The codes this group uses, per dimension (code lists CL_FREQ, CL_AREA, CL_CURRENCY, CL_PROVIDER_FM, ...).
const CODES: Record<string, Record<string, (code: string) => boolean>> = {
  FM: {
    FREQ: (c) => c === "B",
    REF_AREA: (c) => c === "U2",
    CURRENCY: (c) => c === "EUR",
    PROVIDER_FM: (c) => c === "4F",
    INSTRUMENT_FM: (c) => c === "KR",
    PROVIDER_FM_ID: (c) => ["DFR", "MRR_FR", "MLFR"].includes(c),
    DATA_TYPE_FM: (c) => c === "LEV",
  },
  YC: {
    FREQ: (c) => c === "B",
    REF_AREA: (c) => c === "U2",
    CURRENCY: (c) => c === "EUR",
    PROVIDER_FM: (c) => c === "4F",
    INSTRUMENT_FM: (c) => c === "G_N_A" || c === "G_N_C",
    PROVIDER_FM_ID: (c) => c === "SV_C_YM",
    DATA_TYPE_FM: (c) => /^(SR|PY|IF)_/.test(c) && TENORS.includes(c.slice(3)),
  },
  EST: {
    FREQ: (c) => c === "B",
    BENCHMARK_ITEM: (c) => c === "EU000A2X2A25",
    DATA_TYPE_EST: (c) => ["WT", "TT", "NT"].includes(c),
  },
};

function checkKey(flow: string, key: string): void {
  const dims = DIMENSIONS[flow];
  assert.ok(dims, `flow ${flow} is documented`);
  const parts = key.split(".");
  assert.equal(parts.length, dims.length, `${flow}/${key} has ${dims.length} dimensions (${dims.join(".")})`);
  parts.forEach((part, i) => {
    for (const code of part.split("+")) assert.ok(CODES[flow][dims[i]](code), `${flow}/${key}: "${code}" is a ${dims[i]} code this group uses`);
  });
}

/** "/data/FM/B.U2..." -> ["FM", "B.U2..."] */
function flowAndKey(p: string): [string, string] {
  const m = /^\/data\/([A-Z]+)\/([^/?]+)$/.exec(p);
  assert.ok(m, `${p} is /data/<flow>/<key>`);
  return [m[1], m[2]];
}

describe("euro-area-rates series keys", () => {
  let registry: Registry;
  before(async () => {
    registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
  });
  const render = async (operation: string, params: Record<string, unknown>) => {
    const ep = registry.find("euro-area-rates", operation)!;
    return ep.steps![0].path.render({ params, vars: ep.vars, steps: {} }, encodeURIComponent);
  };

  it("every policy-rate endpoint asks for an FM key of the documented structure", async () => {
    for (const op of ["key-rates", "deposit-rate", "mro-rate", "marginal-lending-rate"]) checkKey(...flowAndKey(await render(op, {})));
  });

  it("every yield-curve and yield-history key, for every rating, type and tenor", async () => {
    for (const rating of ["aaa", "all"]) {
      for (const type of ["spot", "par", "forward"]) {
        const curve = flowAndKey(await render("yield-curve", { rating, type }));
        checkKey(...curve);
        assert.equal(curve[1].split(".")[6].split("+").length, 11, "11 tenors");
        for (const tenor of TENORS) checkKey(...flowAndKey(await render("yield-history", { rating, type, tenor })));
      }
    }
  });

  it("the €STR key, with and without volume", async () => {
    checkKey(...flowAndKey(await render("estr", { volume: false })));
    checkKey(...flowAndKey(await render("estr", { volume: true })));
  });

  it("every recorded answer: its dimension columns are the documented ones and each KEY is made of them", () => {
    const dir = path.join(ROOT, "endpoints", "euro-area-rates", "fixtures");
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".csv"))) {
      const rows = parse(fs.readFileSync(path.join(dir, file), "utf8"), { columns: true }) as Record<string, string>[];
      assert.ok(rows.length, `${file} has rows`);
      const header = Object.keys(rows[0]);
      const flow = rows[0].KEY.split(".")[0];
      const dims = DIMENSIONS[flow];
      assert.deepEqual(header.slice(0, dims.length + 3), ["KEY", ...dims, "TIME_PERIOD", "OBS_VALUE"], `${file}: columns`);
      for (const r of rows) {
        assert.equal(r.KEY, [flow, ...dims.map((d) => r[d])].join("."), `${file}: KEY ${r.KEY}`);
        checkKey(flow, r.KEY.slice(flow.length + 1));
      }
    }
  });
});
