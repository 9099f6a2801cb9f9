// The sanctions endpoints over HTTP, on the fixture lists loaded as the "sanctions" dataset.
import assert from "node:assert/strict";
import { getJson, queryString, freeAccess, useTestServer } from "../../test/support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

describe("sanctions endpoints", () => {
  let server: Running;
  const get = (op: string, params: Record<string, unknown> = {}) => getJson(`${server.url}/v1/sanctions/${op}${queryString(params)}`);

  useTestServer({ access: freeAccess }, (s) => (server = s));
  before(async () => {
    await server.engine.datasets.loadTestDatasets!(["sanctions"]);
  });

  it("says on every answer that matches are potential and must be confirmed", async () => {
    for (const [op, params] of [["screen", { name: "Putin" }], ["screen-uk", { name: "Putin" }], ["screen-us", { name: "Putin" }], ["entry", { entry_id: 1 }], ["lists", {}], ["wallet-screen", { address: "1BoatSLRHtKNngkdXEeobR76b53LETtpyT" }]] as const) {
      const res = await get(op, params);
      assert.equal(res.status, 200, op);
      assert.match(res.body.data.notice, /^Potential matches only/, op);
      assert.ok(res.body.meta.disclaimers.some((d: string) => /potential matches and must be confirmed/.test(d)), op);
    }
  });

  it("screen answers which name matched, on which list, why, and an entry_id that entry opens", async () => {
    const res = await get("screen", { name: "Usama Binladin", type: "individual", birth_year: 1957 });
    const m = res.body.data.matches[0];
    assert.equal(m.list, "us-ofac");
    assert.equal(m.list_id, "6365");
    assert.equal(m.matched_name, "Usama BIN LADEN");
    assert.ok(m.why.includes("birth year 1957 fits a listed date of birth (+5)"), m.why.join("; "));
    const entry = await get("entry", { entry_id: m.entry_id });
    assert.equal(entry.body.data.list_id, "6365");
    assert.deepEqual(entry.body.data.places_of_birth, ["Jeddah, Saudi Arabia"]);
  });

  it("screen searches only the lists asked for, and refuses a list it does not know", async () => {
    const res = await get("screen", { name: "Saddam Hussein Al-Tikriti", lists: "eu,un" });
    assert.deepEqual(res.body.data.matches.map((m: { list: string }) => m.list).sort(), ["eu", "un"]);
    assert.deepEqual(res.body.data.lists_searched.map((l: { list: string }) => l.list), ["eu", "un"]);
    const bad = await get("screen", { name: "Saddam Hussein", lists: "eu,fr" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.param, "lists");
  });

  it("screen refuses a name without letters", async () => {
    const res = await get("screen", { name: "!!!" });
    assert.equal(res.status, 400);
    assert.equal(res.body.param, "name");
  });

  it("screen-us and screen-uk keep to their list", async () => {
    const us = await get("screen-us", { name: "Vladimir Putin" });
    assert.deepEqual(us.body.data.matches.map((m: { list: string }) => m.list), ["us-ofac"]);
    const uk = await get("screen-uk", { name: "Vladimir Putin" });
    assert.deepEqual(uk.body.data.matches.map((m: { list_id: string }) => m.list_id), ["RUS0251"]);
  });

  it("records the official list URLs as sources, not local paths", async () => {
    const res = await get("screen", { name: "Putin" });
    const urls = res.body.meta.sources.map((s: { url: string }) => s.url);
    assert.deepEqual(urls, [
      "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.CSV",
      "https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml",
      "https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content",
      "https://scsanctions.un.org/resources/xml/en/consolidated.xml",
    ]);
  });

  it("entry returns the whole record by list and list_id, and 404 for an id the list lacks", async () => {
    const res = await get("entry", { list: "uk", list_id: "rus0251" });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, "Vladimir Vladimirovich PUTIN");
    assert.deepEqual(res.body.data.names.map((n: { name: string }) => n.name), ["Vladimir Vladimirovich PUTIN", "Владимир Владимирович ПУТИН"]);
    assert.deepEqual(res.body.data.dates_of_birth, ["1952-10-07"]);
    const ship = await get("entry", { list: "uk", list_id: "DPR0100" });
    assert.equal(ship.body.data.vessel.imo, "7408873");
    const missing = await get("entry", { list: "un", list_id: "QDe.999" });
    assert.equal(missing.status, 404);
  });

  it("wallet-screen matches EVM addresses in any case, base58 addresses exactly", async () => {
    const eth = await get("wallet-screen", { address: "0x7ff9CFAD3877f21d41da833e2f775db0569ee3d9" });
    assert.equal(eth.body.data.listed, true);
    assert.equal(eth.body.data.matches[0].list_id, "30551");
    const trx = await get("wallet-screen", { address: "TUCsTq7TxYqMxs1Mzvqs8GY5Wz1ZSo9Jet" });
    assert.deepEqual(trx.body.data.matches.map((m: { currency: string }) => m.currency), ["TRX"]);
    const btc = await get("wallet-screen", { address: "1Kuf2Rd8mDyAViwBozGTNYnvWL8uYFrkVo" });
    assert.equal(btc.body.data.matches[0].name, "Xiaobing YAN");
    const otherCase = await get("wallet-screen", { address: "1kuf2rd8mdyaviwbozgtnynvwl8uyfrkvo" });
    assert.equal(otherCase.body.data.listed, false);
  });

  it("flags stale lists and lists of unknown date in every screening answer", async () => {
    // The fixtures are read from a folder: OFAC's CSVs carry no date (unknown); the others carry dates long past.
    for (const [op, params] of [["screen", { name: "Putin" }], ["screen-uk", { name: "Putin" }], ["screen-us", { name: "Putin" }], ["wallet-screen", { address: "1BoatSLRHtKNngkdXEeobR76b53LETtpyT" }]] as const) {
      const data = (await get(op, params)).body.data;
      const searched = data.lists_searched ?? [data.checked_against];
      for (const l of searched) assert.notEqual(l.stale, false, `${op} ${l.list}`);
      assert.equal(data.warnings.length, searched.length, op);
    }
    const all = (await get("screen", { name: "Putin" })).body.data;
    const us = all.lists_searched.find((l: { list: string }) => l.list === "us-ofac");
    assert.deepEqual([us.list_date, us.list_date_from, us.stale], [null, "unknown", null]);
    const un = all.lists_searched.find((l: { list: string }) => l.list === "un");
    assert.deepEqual([un.list_date, un.list_date_from, un.stale], ["2026-02-27", "publication", true]);
    assert.ok(all.warnings.some((w: string) => /^un: The list is dated 2026-02-27/.test(w)), all.warnings.join("\n"));
  });

  it("lists says which lists are mirrored, their counts, dates and the last sync", async () => {
    const res = await get("lists");
    const data = res.body.data;
    assert.match(data.last_sync, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(data.lists.map((l: { list: string; entries: number; mirrored: boolean }) => [l.list, l.entries, l.mirrored]),
      [["us-ofac", 9, true], ["uk", 4, true], ["eu", 2, true], ["un", 3, true]]);
    assert.equal(data.total_entries, 18);
    assert.deepEqual(data.lists[0].sublists, { SDN: 8, "Non-SDN (consolidated)": 2 });
  });

  it("draws free calls from the group bucket and a 3-a-day endpoint bucket; wallet-screen from its own 50/500 only", () => {
    const buckets = (op: string) => server.engine.registry.find("sanctions", op)!.buckets.map((b) => [b.id, b.anonymous, b.key]);
    assert.deepEqual(buckets("screen"), [["group:sanctions", 50, 500], ["endpoint:sanctions/screen", 3, 3]]);
    assert.deepEqual(buckets("lists"), [["group:sanctions", 50, 500], ["endpoint:sanctions/lists", 3, 3]]);
    assert.deepEqual(buckets("wallet-screen"), [["endpoint:sanctions/wallet-screen", 50, 500]]);
  });
});
