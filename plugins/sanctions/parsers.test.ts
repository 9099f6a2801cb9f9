// The list parsers, each on a small file written in its official format (plugins/sanctions/fixtures/sanctions).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { datasetCopy } from "../../test/support/helpers.ts";
import { decodeLegacy, parseOfacCsv } from "./parse-ofac-csv.ts";
import { parseOfacXml, unzipXml } from "./parse-ofac-xml.ts";
import { parseFcdoXml, parseOfsiXlsx, parseUkCsv } from "./parse-uk.ts";
import { parseUn } from "./parse-un.ts";
import { parseEu } from "./parse-eu.ts";
import { firstSheetRows } from "../../engine/datasets/xlsx.ts";
import { storedZip } from "../../test/support/zip.ts";
import type { Entry } from "./types.ts";

const DIR = datasetCopy("sanctions");
const bytes = (f: string) => fs.readFileSync(path.join(DIR, f));
const legacy = (f: string) => decodeLegacy(bytes(f));
const byId = (entries: Entry[], id: string) => {
  const e = entries.find((x) => x.list_id === id);
  assert.ok(e, `entry ${id} parsed`);
  return e;
};
const names = (e: Entry, kind?: string) => e.names.filter((n) => !kind || n.kind === kind).map((n) => n.name);

describe("sanctions parsers", () => {
  describe("OFAC legacy CSV (sdn.csv, add.csv, alt.csv, sdn_comments.csv)", () => {
    const sdn = parseOfacCsv({ main: legacy("ofac_sdn/sdn.csv"), add: legacy("ofac_sdn/add.csv"), alt: legacy("ofac_sdn/alt.csv"), comments: legacy("ofac_sdn/sdn_comments.csv") }, "SDN");

    it("reads every row, with -0- as empty and the trailing 0x1A ignored", () => {
      assert.deepEqual(sdn.entries.map((e) => e.list_id), ["36", "306", "6365", "18715", "25308", "27515", "30551", "35096"]);
      const cuba = byId(sdn.entries, "36");
      assert.equal(cuba.type, "entity");
      assert.equal(cuba.remarks, undefined);
      assert.equal(cuba.other_ids, undefined);
    });

    it("counts add/alt/comments rows whose ent_num the older sdn.csv lacks instead of failing", () => {
      assert.equal(sdn.unmatched, 3);
    });

    it("puts people's names in reading order and splits programmes", () => {
      const putin = byId(sdn.entries, "35096");
      assert.equal(putin.name, "Vladimir Vladimirovich PUTIN");
      assert.deepEqual(names(putin, "alias"), ["Vladimir PUTIN"]);
      assert.deepEqual(byId(sdn.entries, "27515").programmes, ["SDGT", "IRGC"]);
    });

    it("decodes Windows-1252 text", () => {
      assert.ok(names(byId(sdn.entries, "36")).includes("AÉROCARIBBEAN S.A."));
    });

    it("reads strong aliases from alt.csv and weak ones from the remarks", () => {
      const bank = byId(sdn.entries, "306");
      assert.deepEqual(names(bank, "alias"), ["NATIONAL BANK OF CUBA"]);
      assert.deepEqual(names(bank, "weak"), ["BNC"]);
      const vtb = byId(sdn.entries, "18715");
      assert.equal(vtb.names.find((n) => n.name === "JSC VTB BANK")?.note, "fka");
    });

    it("reads dates and places of birth, nationality and addresses", () => {
      const binLadin = byId(sdn.entries, "6365");
      assert.deepEqual(binLadin.dates_of_birth, ["1957-07-30", "1960"]);
      assert.deepEqual(binLadin.places_of_birth, ["Jeddah, Saudi Arabia"]);
      assert.deepEqual(binLadin.nationalities, ["Saudi Arabia"]);
      assert.deepEqual(names(binLadin, "weak"), ["ABU ABDALLAH", "AL QAQA"]);
      const bank = byId(sdn.entries, "306");
      assert.deepEqual(bank.addresses, ["Zweierstrasse 35, Zurich CH-8022, Switzerland", "Avenida de Concha Espina 8, Madrid E-28036, Spain"]);
      assert.deepEqual(bank.countries, ["Switzerland", "Spain"]);
    });

    it("joins a remark continued in sdn_comments.csv and reads the wallets and aliases in it", () => {
      const yan = byId(sdn.entries, "25308");
      assert.deepEqual(yan.wallets, [
        { currency: "XBT", address: "12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h" },
        { currency: "XBT", address: "1Kuf2Rd8mDyAViwBozGTNYnvWL8uYFrkVo" },
      ]);
      assert.deepEqual(names(yan, "weak"), ["William ZHOU", "Steven YAN"]);
    });

    it("keeps one address listed under two currencies as two wallets", () => {
      const garantex = byId(sdn.entries, "30551");
      assert.deepEqual(garantex.wallets.map((w) => w.currency), ["ETH", "USDT", "TRX"]);
    });

    it("reads vessel details from the columns and the IMO number from the remarks", () => {
      const ship = byId(sdn.entries, "27515");
      assert.equal(ship.type, "vessel");
      assert.deepEqual(ship.vessel, { call_sign: "9HA2344", vessel_type: "Crude Oil Tanker", tonnage: "150,000", gross_registered_tonnage: "81,479", flag: "Iran", imo: "9116412" });
      assert.deepEqual(ship.countries, ["Iran"]);
    });

    it("reads the consolidated non-SDN files, which share the format", () => {
      const cons = parseOfacCsv({ main: legacy("ofac_consolidated/cons_prim.csv"), add: legacy("ofac_consolidated/cons_add.csv"),
        alt: legacy("ofac_consolidated/cons_alt.csv"), comments: legacy("ofac_consolidated/cons_comments.csv") }, "Non-SDN (consolidated)");
      const haniya = byId(cons.entries, "9639");
      assert.equal(haniya.name, "Ismail Abdul Salah HANIYA");
      assert.deepEqual(names(haniya, "alias"), ["Ismail HANIYA", "Ismaeel HANIYYA"]);
      assert.deepEqual(haniya.dates_of_birth, ["1962"]);
      assert.deepEqual(haniya.countries, ["Palestinian"]);
      assert.equal(haniya.sublist, "Non-SDN (consolidated)");
      assert.match(byId(cons.entries, "18715").remarks ?? "", /Listing Date \(EO 13662 Directive 1\): 16 Jul 2014/);
    });
  });

  describe("OFAC enhanced XML", () => {
    it("reads the XML inside OFAC's zip the same as the plain XML", () => {
      assert.equal(unzipXml(bytes("extra/SDN_ENHANCED.ZIP")), bytes("extra/SDN_ENHANCED.xml").toString("utf8"));
    });

    const parsed = parseOfacXml(unzipXml(bytes("extra/SDN_ENHANCED.ZIP")), "Non-SDN (consolidated)");

    it("reads entities with their publication date and SDN membership", () => {
      assert.equal(parsed.date, "2025-01-10");
      assert.deepEqual(parsed.entries.map((e) => [e.list_id, e.type, e.sublist]), [["18715", "entity", "SDN"], ["25308", "individual", "SDN"], ["27515", "vessel", "SDN"]]);
      assert.deepEqual(byId(parsed.entries, "18715").programmes, ["UKRAINE-EO13662", "RUSSIA-EO14024"]);
    });

    it("keeps non-Latin translations with their script and marks low-quality aliases weak", () => {
      const vtb = byId(parsed.entries, "18715");
      assert.deepEqual(vtb.names.find((n) => n.script === "Cyrillic"), { name: "БАНК ВТБ ПУБЛИЧНОЕ АКЦИОНЕРНОЕ ОБЩЕСТВО", kind: "alias", script: "Cyrillic" });
      const yan = byId(parsed.entries, "25308");
      assert.equal(yan.name, "Xiaobing YAN");
      assert.deepEqual(names(yan, "weak"), ["William ZHOU"]);
      assert.equal(yan.names.find((n) => n.script === "Chinese Simplified")?.name, "严小兵");
    });

    it("reads features: birth date, citizenship, digital currency address, vessel details; and addresses", () => {
      const yan = byId(parsed.entries, "25308");
      assert.deepEqual(yan.dates_of_birth, ["1977-03-25"]);
      assert.deepEqual(yan.countries, ["China"]);
      assert.deepEqual(yan.wallets, [{ currency: "XBT", address: "12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h" }]);
      assert.deepEqual(byId(parsed.entries, "27515").vessel, { call_sign: "9HA2344", vessel_type: "Crude Oil Tanker", flag: "Iran", imo: "9116412" });
      assert.deepEqual(byId(parsed.entries, "18715").addresses, ["43 Vorontsovskaya Street, Moscow, Russia"]);
    });
  });

  describe("UN consolidated XML", () => {
    const un = parseUn(bytes("un_consolidated/UN_consolidated.xml").toString("utf8"));

    it("reads individuals and entities by reference number, with the list date", () => {
      assert.equal(un.date, "2026-02-27");
      assert.deepEqual(un.entries.map((e) => [e.list_id, e.type, e.name]), [
        ["CDi.001", "individual", "ERIC BADEGE"], ["IQi.001", "individual", "SADDAM HUSSEIN AL-TIKRITI"], ["QDe.004", "entity", "AL-QAIDA"],
      ]);
    });

    it("reads Good and a.k.a. aliases as strong, Low as weak, the original script, and skips empty aliases", () => {
      const saddam = byId(un.entries, "IQi.001");
      assert.deepEqual(saddam.names.map((n) => [n.name, n.kind, n.script]), [
        ["SADDAM HUSSEIN AL-TIKRITI", "primary", undefined], ["Abu Ali", "alias", undefined], ["Abou Ali", "weak", undefined], ["صدام حسين التكريتي", "alias", "Arabic"],
      ]);
      assert.deepEqual(names(byId(un.entries, "CDi.001")), ["ERIC BADEGE"]);
      assert.deepEqual(names(byId(un.entries, "QDe.004"), "alias"), ["The Base", "Al Qaeda", "Islamic Salvation Foundation"]);
    });

    it("reads dates of birth, nationality, place of birth, documents and the programme", () => {
      const saddam = byId(un.entries, "IQi.001");
      assert.deepEqual(saddam.dates_of_birth, ["1937-04-28"]);
      assert.deepEqual(saddam.places_of_birth, ["al-Awja, near Tikrit, Iraq"]);
      assert.deepEqual(saddam.identifiers, ["Passport 0000001 Iraq"]);
      assert.deepEqual(saddam.programmes, ["Iraq"]);
      assert.deepEqual(byId(un.entries, "CDi.001").dates_of_birth, ["1971"]);
      assert.deepEqual(byId(un.entries, "CDi.001").countries, ["Democratic Republic of the Congo", "Rwanda"]);
    });
  });

  describe("UK Sanctions List XML (FCDO)", () => {
    const uk = parseFcdoXml(bytes("uk_fcdo/UK-Sanctions-List.xml").toString("utf8"));

    it("reads designations by Unique ID with the generation date", () => {
      assert.equal(uk.date, "2025-10-08");
      assert.deepEqual(uk.entries.map((e) => [e.list_id, e.type]), [["RUS0251", "individual"], ["AFG0006", "individual"], ["DPR0100", "vessel"], ["CHI0004", "entity"]]);
    });

    it("takes the Primary Name as the name wherever it comes, weak aliases by strength, and non-Latin names", () => {
      const akhund = byId(uk.entries, "AFG0006");
      assert.equal(akhund.name, "Mohammad Hassan AKHUND");
      assert.deepEqual(names(akhund, "alias"), ["Mullah Mohammad Hassan", "محمد حسن آخوند"]);
      assert.deepEqual(names(akhund, "weak"), ["Hassan Sahib"]);
      assert.deepEqual(byId(uk.entries, "RUS0251").names[1], { name: "Владимир Владимирович ПУТИН", kind: "alias", script: "Cyrillic", note: "Russian" });
      assert.equal(byId(uk.entries, "CHI0004").names.find((n) => n.script === "Chinese")?.name, "新疆生产建设兵团公安局");
    });

    it("reads dates of birth (dd/mm/yyyy, with unknown day and month), nationality, regime, addresses and ship details", () => {
      assert.deepEqual(byId(uk.entries, "AFG0006").dates_of_birth, ["1950", "1955"]);
      const putin = byId(uk.entries, "RUS0251");
      assert.deepEqual(putin.dates_of_birth, ["1952-10-07"]);
      assert.deepEqual(putin.programmes, ["The Russia (Sanctions) (EU Exit) Regulations 2019"]);
      assert.deepEqual(putin.addresses, ["The Kremlin, Moscow, Russia"]);
      assert.equal(putin.listed_on, "2022-02-25");
      assert.deepEqual(byId(uk.entries, "DPR0100").vessel, { imo: "7408873", flag: "North Korea", vessel_type: "Oil tanker", tonnage: "1676", owner: "Korea Samjong Shipping" });
    });
  });

  describe("UK Sanctions List CSV (FCDO)", () => {
    const uk = parseUkCsv(bytes("extra/UK-Sanctions-List.csv").toString("utf8"));

    it("finds the header under the report-date row and merges one row per name into one entry", () => {
      assert.equal(uk.date, "2025-10-08");
      assert.deepEqual(uk.entries.map((e) => e.list_id), ["RUS0296", "DPR0100"]);
      const abakarov = byId(uk.entries, "RUS0296");
      assert.equal(abakarov.name, "Khizri Magomedovich ABAKAROV");
      assert.deepEqual(names(abakarov, "weak"), ["Hizri ABAKAROV"]);
      assert.equal(abakarov.names.find((n) => n.script === "Cyrillic")?.name, "Хизри Магомедович Абакаров");
      assert.deepEqual(abakarov.dates_of_birth, ["1960-06-28"]);
      assert.deepEqual(abakarov.places_of_birth, ["Yuzhno Sakhalinsk, Russia"]);
      assert.equal(byId(uk.entries, "DPR0100").vessel?.imo, "7408873");
      assert.equal(byId(uk.entries, "DPR0100").other_ids?.un_reference, "KPe.064");
    });
  });

  describe("OFSI consolidated list xlsx (2022 format)", () => {
    const ofsi = parseOfsiXlsx(bytes("extra/ConList.xlsx"));

    it("uses the UK Sanctions List ref from Other Information as the id and keeps the group id", () => {
      assert.equal(ofsi.date, "2025-04-10");
      assert.deepEqual(ofsi.entries.map((e) => e.list_id), ["RUS0296", "DPR0100"]);
      assert.equal(byId(ofsi.entries, "RUS0296").other_ids?.ofsi_group_id, "14241");
    });

    it("takes the Primary name row as the name even when an alias row comes first, and reads ship facts from Other Information", () => {
      const ship = byId(ofsi.entries, "DPR0100");
      assert.equal(ship.name, "SAM JONG 2");
      assert.deepEqual(names(ship, "alias"), ["AKTIVA"]);
      assert.deepEqual(ship.vessel, { imo: "7408873", flag: "North Korea", vessel_type: "Oil tanker", tonnage: "1676", owner: "Korea Samjong Shipping" });
      assert.deepEqual(byId(ofsi.entries, "RUS0296").dates_of_birth, ["1960-06-28", "1960"]);
      assert.deepEqual(names(byId(ofsi.entries, "RUS0296"), "weak"), ["Khizri ABAKAROV"]);
    });
  });

  describe("EU financial sanctions XML", () => {
    const eu = parseEu(bytes("eu_fsf/eu_fsf.xml").toString("utf8"));

    it("reads persons and enterprises by logical id with programme, references and the file date", () => {
      assert.equal(eu.date, "2025-10-06");
      const saddam = byId(eu.entries, "13");
      assert.equal(saddam.type, "individual");
      assert.deepEqual(saddam.programmes, ["IRQ"]);
      assert.deepEqual(saddam.other_ids, { eu_reference: "EU.27.28", un_reference: "IQi.001" });
      assert.equal(byId(eu.entries, "142111").type, "entity");
    });

    it("marks strong=false aliases weak and non-Latin ones with their script and language", () => {
      const rosneft = byId(eu.entries, "142111");
      assert.equal(rosneft.name, "Public Joint Stock Company Rosneft Oil Company");
      assert.deepEqual(names(rosneft, "weak"), ["Rosneft"]);
      assert.equal(rosneft.names.find((n) => n.script)?.script, "Cyrillic (RU)");
    });

    it("reads birth dates and places, citizenship, addresses and identifications", () => {
      const saddam = byId(eu.entries, "13");
      assert.deepEqual(saddam.dates_of_birth, ["1937-04-28"]);
      assert.deepEqual(saddam.places_of_birth, ["al-Awja, near Tikrit, IRAQ"]);
      assert.deepEqual(saddam.nationalities, ["IRAQ"]);
      assert.deepEqual(saddam.identifiers, ["National passport 0000001 IRAQ"]);
      assert.deepEqual(byId(eu.entries, "142111").addresses, ["Sofiyskaya Embankment 26/1, Moscow, 117997, RUSSIAN FEDERATION"]);
    });

    it("reads the real layout: regulationSummary under every item, a name repeated per regulation kept once, remarks of names and documents not taken for the entity's", () => {
      const saddam = byId(eu.entries, "13");
      assert.deepEqual(saddam.names.map((n) => n.name), ["Saddam Hussein Al-Tikriti", "Abu Ali"]);
      assert.deepEqual(saddam.programmes, ["IRQ"], "two regulations of one programme");
      assert.equal(saddam.remarks, "Died in 2006.");
      assert.equal(byId(eu.entries, "142111").remarks, undefined);
      assert.equal(saddam.listed_on, "2003-07-07");
    });
  });
});

describe("the xlsx sheet reader", () => {
  it("reads shared, inline, rich-text and formula strings, numbers, booleans and date-formatted numbers, in their columns", () => {
    const xlsx = storedZip({
      "xl/workbook.xml": `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="List" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      "xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="rId1" Target="worksheets/list.xml"/></Relationships>`,
      "xl/sharedStrings.xml": `<sst><si><t>Last Updated</t></si><si><r><t>Rich </t></r><r><t xml:space="preserve">text &amp; more</t></r><rPh><t>hint</t></rPh></si></sst>`,
      "xl/styles.xml": `<styleSheet><numFmts><numFmt numFmtId="164" formatCode="dd/MM/yyyy"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>`,
      "xl/worksheets/list.xml": `<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" s="1"><v>45757</v></c></row>` +
        `<row r="3"><c r="A3" t="s"><v>1</v></c><c r="B3" t="inlineStr"><is><t>inline</t></is></c><c r="C3" t="str"><v>formula</v></c><c r="D3"><v>42</v></c><c r="E3" t="b"><v>1</v></c></row></sheetData></worksheet>`,
    });
    assert.deepEqual(firstSheetRows(xlsx), [["Last Updated", "", "10/04/2025"], [], ["Rich text & more", "inline", "formula", "42", "TRUE"]]);
  });

  it("refuses a file that is not a workbook", () => {
    assert.throws(() => firstSheetRows(Buffer.from("not a zip")), /not an xlsx workbook/);
  });
});
