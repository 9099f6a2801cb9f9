// The imei group: IMEI parsing and the Luhn check with known answers, reading device facts from the TAC
// database's names, the tacdb export loader, and the endpoints over HTTP against the test TAC file.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { luhnCheckDigit, parseImei } from "./imei-number.ts";
import { deviceType, modelCode } from "./device.ts";
import tacDefinition, { type TacIndex } from "./imei-tac.dataset.ts";
import { datasetCopy, getJson, freeAccess, useTestServer } from "../../test/support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";
import type { DatasetInput, DatasetProgress } from "../../engine/datasets/types.ts";

const quiet: DatasetProgress = { phase() {}, tick() {}, log() {} };

/** A DatasetInput over in-memory files, as the mechanism would hand them to load(). */
function memoryInput(files: Record<string, string | Buffer>): DatasetInput {
  return {
    files: Object.keys(files),
    bytes: async (n) => Buffer.from(files[n]),
    text: async (n) => Buffer.from(files[n]).toString("utf8"),
    origin: (n) => ({ url: `memory:${n}` }),
  };
}

const TEST_TACDB = fs.readFileSync(datasetCopy("imei-tac", "tacdb.csv"), "utf8");

describe("IMEI numbers", () => {
  it("computes the Luhn check digit of known IMEIs", () => {
    assert.equal(luhnCheckDigit("49015420323751"), "8"); // 490154203237518, the worked example of the IMEI article on Wikipedia
    assert.equal(luhnCheckDigit("35209900176148"), "1"); // 35-209900-176148-1
    assert.equal(luhnCheckDigit("00000000000000"), "0");
  });

  it("splits a 15-digit IMEI, ignoring spaces and dashes", () => {
    const p = parseImei(" 35-209900 176148-1 ")!;
    assert.equal(p.format, "imei");
    assert.equal(p.valid, true);
    assert.equal(p.imei, "352099001761481");
    assert.equal(p.tac, "35209900");
    assert.equal(p.serial, "176148");
    assert.equal(p.check_digit, "1");
    assert.equal(p.expected_check_digit, undefined);
  });

  it("reports a wrong check digit with the expected one", () => {
    const p = parseImei("352099001761482")!;
    assert.equal(p.valid, false);
    assert.equal(p.check_digit, "2");
    assert.equal(p.expected_check_digit, "1");
  });

  it("completes 14 digits with their check digit and reads a 16-digit IMEISV", () => {
    const short = parseImei("49015420323751")!;
    assert.equal(short.format, "imei-without-check-digit");
    assert.equal(short.imei, "490154203237518");
    assert.equal(short.luhn_checked, false);
    const sv = parseImei("35-209900-176148-23")!;
    assert.equal(sv.format, "imeisv");
    assert.equal(sv.svn, "23");
    assert.equal(sv.imei, "352099001761481");
  });

  it("refuses what is not 14 to 16 digits", () => {
    for (const bad of ["", "4901542032375", "49015420323751812", "49015420323751A", "4901.5420.3237.518"]) assert.equal(parseImei(bad), undefined, bad);
  });
});

describe("device facts read from the TAC database's names", () => {
  it("tells tablets, watches and modems from phones", () => {
    assert.equal(deviceType("Apple", "iPad Pro 10.5-inch"), "tablet");
    assert.equal(deviceType("Samsung", "GT-P3100 Galaxy Tab 2 7.0 3G 32GB"), "tablet");
    assert.equal(deviceType("Apple", "Watch Series 3"), "watch");
    assert.equal(deviceType("ZTE", "MF637 USB Modem"), "modem");
    assert.equal(deviceType("Telit", "GE864"), "modem");
    assert.equal(deviceType("Spetrotec", "Big Watcher"), "phone");
    assert.equal(deviceType("Nokia", "3110"), "phone");
  });

  it("finds a type code in the model name or the aliases", () => {
    assert.equal(modelCode("6820", ["6820a", "6820i", "NHL-9", "NHL-9 (DCT-4)"]), "NHL-9");
    assert.equal(modelCode("GT-P3100 Galaxy Tab 2 7.0 3G 32GB", ["GTP3100"]), "GT-P3100");
    assert.equal(modelCode("iPhone 6", ["A1522", "A1549"]), "A1522");
    assert.equal(modelCode("1610", ["1610+", "1611"]), null);
  });
});

describe("imei-tac dataset load", () => {
  it("loads the tacdb export: banner, repeated header, CRLF rows, quoted aliases", async () => {
    const db = new DatabaseSync(":memory:");
    const result = await tacDefinition.load(memoryInput({ "tacdb.csv": TEST_TACDB }), db, quiet);
    assert.deepEqual(result.counts, { tacs: 11 });
    const index = tacDefinition.index!(db) as TacIndex;
    assert.deepEqual(index.coverage, { tacs: 11, models: 10, brands: 6 });
    const nokia = index.lookup("35250500")!;
    assert.equal(nokia.brand, "Nokia");
    assert.equal(nokia.model, "6820");
    assert.deepEqual(nokia.aliases, ["6820a", "6820i", "NHL-9", "NHL-9 (DCT-4)"]);
    assert.equal(nokia.model_code, "NHL-9");
    assert.equal(index.lookup("12345678"), undefined);
    assert.deepEqual(index.lookup("35332007")!.aliases, ["A1522", "A1549", "A1586", "iPhone 6 (A1524, A1586)"]);
  });

  it("reads a TAC written with a leading space", async () => {
    const db = new DatabaseSync(":memory:");
    const withSpace = TEST_TACDB.replace("49015420,Nokia,3110", " 49015420,Nokia,3110");
    await tacDefinition.load(memoryInput({ "tacdb.csv": withSpace }), db, quiet);
    assert.equal((tacDefinition.index!(db) as TacIndex).lookup("49015420")?.model, "3110");
  });

  it("refuses a file that is not the tacdb export", async () => {
    const db = new DatabaseSync(":memory:");
    await assert.rejects(tacDefinition.load(memoryInput({ "tacdb.csv": "tac,brand,model\n49015420,Nokia,3110\n" }), db, quiet), /banner/);
  });

  it("refuses a file cut off in the middle of a row", async () => {
    const db = new DatabaseSync(":memory:");
    const cut = TEST_TACDB.slice(0, TEST_TACDB.indexOf("35675904") + 12);
    await assert.rejects(tacDefinition.load(memoryInput({ "tacdb.csv": cut }), db, quiet), /ends in an incomplete row/);
  });
});

describe("imei endpoints", () => {
  let server: Running;
  useTestServer({ access: freeAccess }, (s) => (server = s));

  it("answers 503 dataset_not_loaded, naming the dataset, before the TAC file is loaded", async () => {
    const res = await getJson(`${server.url}/v1/imei/decode?imei=490154203237518`);
    assert.equal(res.status, 503);
    assert.equal(res.body.code, "dataset_not_loaded");
    assert.equal(res.body.dataset, "imei-tac");
  });

  it("validates without the TAC database", async () => {
    const res = await getJson(`${server.url}/v1/imei/validate?imei=35209900176148`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.imei, "352099001761481");
    assert.equal(res.body.data.check_digit, "1");
  });

  describe("with the test TAC file loaded", () => {
    before(async () => {
      await server.engine.datasets.loadTestDatasets!(["imei-tac"]);
    });

    it("decodes an IMEI with a wrong check digit, and says so", async () => {
      const res = await getJson(`${server.url}/v1/imei/decode?imei=352099001761489`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.valid, false);
      assert.equal(res.body.data.expected_check_digit, "1");
      assert.equal(res.body.data.brand, "Alcatel");
      assert.equal(res.body.data.model, "One Touch 332");
      assert.match(res.body.data.note, /check digit 9 does not match/);
      assert.match(res.body.meta.attribution, /CC BY-SA 3\.0/);
      assert.match(res.body.meta.disclaimers[0], /not a blacklist/);
    });

    it("reports coverage and the dataset's dates", async () => {
      const res = await getJson(`${server.url}/v1/imei/coverage`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.tacs, 11);
      assert.ok(!Number.isNaN(Date.parse(res.body.data.last_changed)), "last_changed is a time");
      assert.ok(!Number.isNaN(Date.parse(res.body.data.loaded_at)), "loaded_at is a time");
    });

    it("decodes a batch in order, a 14-digit IMEI and an IMEISV among them", async () => {
      const res = await getJson(`${server.url}/v1/imei/batch?imeis=${encodeURIComponent("49015420323751, 35-209900-176148-23 ,013345001234560")}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.results.map((r: { model: string }) => r.model), ["3110", "One Touch 332", "iPhone 5"]);
      assert.deepEqual(res.body.data.results.map((r: { format: string }) => r.format), ["imei-without-check-digit", "imeisv", "imei"]);
    });
  });

  describe("refuses bad input with 400 naming the parameter", () => {
    const fifty = Array.from({ length: 51 }, () => "490154203237518").join(",");
    const cases: [string, string, RegExp][] = [
      ["/v1/imei/validate", "", /imei is required/],
      ["/v1/imei/validate?imei=49015420323751812345", "imei", /15 digits/],
      ["/v1/imei/decode?imei=abc", "imei", /15 digits/],
      ["/v1/imei/tac?tac=3558200X", "tac", /tac must be/],
      ["/v1/imei/tac", "tac", /tac is required/],
      [`/v1/imei/batch?imeis=${fifty}`, "imeis", /at most 50/],
      ["/v1/imei/batch?imeis=490154203237518,12", "imeis", /imeis item 2/],
      ["/v1/imei/coverage?extra=1", "extra", /takes no parameters/],
    ];
    for (const [url, param, detail] of cases) {
      it(`${url.slice(0, 60)}`, async () => {
        const res = await getJson(`${server.url}${url}`);
        assert.equal(res.status, 400);
        assert.equal(res.body.param, param || "imei");
        assert.match(res.body.detail, detail);
      });
    }
  });
});
