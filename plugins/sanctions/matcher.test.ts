// The dataset's load() on the fixture lists, and the matcher on what it loaded.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { datasetCopy, tempDir } from "../../test/support/helpers.ts";
import definition from "./sanctions.dataset.ts";
import { nameTokens, normalise, soundKey } from "./normalise.ts";
import { countryCode } from "./countries.ts";
import { addressKind } from "./wallets.ts";
import { freshness, staleWarnings } from "./freshness.ts";
import { readLists } from "./store.ts";
import { SanctionsIndex, type ScreenQuery } from "./matcher.ts";
import { blankEntry } from "./types.ts";
import type { DatasetInput } from "../../engine/datasets/types.ts";

const DIR = datasetCopy("sanctions");

/** What the mechanism hands load(): the definition's files found in a folder. */
function folderInput(dir: string): DatasetInput {
  const files = definition.files.map((f) => f.name).filter((n) => fs.existsSync(path.join(dir, n)));
  return {
    files,
    text: async (n) => fs.readFileSync(path.join(dir, n), "utf8"),
    bytes: async (n) => fs.readFileSync(path.join(dir, n)),
    origin: (n) => ({ url: path.join(dir, n), date: "2025-12-24T00:00:00.000Z", date_from: "last-modified" }),
  };
}

const quiet = { phase() {}, tick() {}, log() {} };

async function load(dir = DIR): Promise<{ db: DatabaseSync; counts: Record<string, number>; dataDates?: Record<string, string> }> {
  const db = new DatabaseSync(":memory:");
  const r = await definition.load(folderInput(dir), db, quiet);
  return { db, ...r };
}

describe("sanctions dataset and matcher", () => {
  let db: DatabaseSync;
  let index: SanctionsIndex;
  const screen = (name: string, more: Partial<ScreenQuery> = {}) => index.screen({ name, threshold: 80, ...more });
  const top = (name: string, more: Partial<ScreenQuery> = {}) => screen(name, more).matches[0];

  before(async () => {
    ({ db } = await load());
    index = definition.index!(db);
  });

  describe("load", () => {
    it("loads all four lists, merging an entity OFAC lists as both SDN and non-SDN", async () => {
      const { counts, dataDates } = await load();
      assert.deepEqual(counts, { "us-ofac": 9, uk: 4, un: 3, eu: 2, entries: 18, wallet_addresses: 5 });
      assert.deepEqual(dataDates, { "us-ofac": "2025-12-24", uk: "2025-10-08", un: "2026-02-27", eu: "2025-10-06" });
      const us = readLists(db).find((l) => l.list === "us-ofac")!;
      assert.deepEqual(us.sublists, { SDN: 8, "Non-SDN (consolidated)": 2 });
      assert.equal(us.unmatched_rows, 3);
    });

    it("dates each list from the list itself: the publication date it carries, else the download's Last-Modified, never a local file's time", async () => {
      const { db: downloaded } = await load();
      const byList = (d: DatabaseSync) => Object.fromEntries(readLists(d).map((l) => [l.list, [l.list_date, l.list_date_from]]));
      assert.deepEqual(byList(downloaded), {
        "us-ofac": ["2025-12-24", "last-modified"], uk: ["2025-10-08", "publication"], eu: ["2025-10-06", "publication"], un: ["2026-02-27", "publication"],
      });
      const local = new DatabaseSync(":memory:");
      const input = folderInput(DIR);
      await definition.load({ ...input, origin: (n) => ({ ...input.origin(n), date: new Date().toISOString(), date_from: "file-time" }) }, local, quiet);
      assert.deepEqual(byList(local)["us-ofac"], [undefined, "unknown"]);
      assert.deepEqual(byList(local).un, ["2026-02-27", "publication"]);
    });

    it("flags a list older than the refresh interval plus a margin, a copy not refreshed, and a list of unknown date", () => {
      const info = { list: "un" as const, title: "UN", entries: 3, files: [], list_date: "2026-02-27", list_date_from: "publication" as const };
      const now = Date.parse("2026-03-02T12:00:00Z");
      assert.equal(freshness(info, "2026-03-02T00:00:00Z", "1d", now).stale, false);
      const old = freshness(info, "2026-03-10T00:00:00Z", "1d", Date.parse("2026-03-10T12:00:00Z"));
      assert.equal(old.stale, true);
      assert.match(old.stale_reason!, /dated 2026-02-27, 11 days ago \(from its publication date\)/);
      assert.match(freshness(info, "2026-02-28T00:00:00Z", "1d", Date.parse("2026-03-10T12:00:00Z")).stale_reason!, /loaded on 2026-02-28 and has not been refreshed since/);
      const unknown = freshness({ ...info, list_date: undefined, list_date_from: "unknown" }, "2026-03-02T00:00:00Z", "1d", now);
      assert.equal(unknown.stale, null);
      assert.deepEqual(staleWarnings([{ list: "un", ...unknown }]), ["un: The list's date is unknown: the file carries none and this copy was not downloaded from its publisher."]);
    });

    it("loads whatever lists a folder holds", async () => {
      const dir = tempDir("sanctions-un-");
      fs.mkdirSync(path.join(dir, "un_consolidated"));
      fs.copyFileSync(path.join(DIR, "un_consolidated/UN_consolidated.xml"), path.join(dir, "un_consolidated/UN_consolidated.xml"));
      const { counts, db: only } = await load(dir);
      assert.deepEqual(counts, { un: 3, entries: 3, wallet_addresses: 0 });
      assert.deepEqual(readLists(only).map((l) => [l.list, l.entries]), [["us-ofac", 0], ["uk", 0], ["eu", 0], ["un", 3]]);
    });

    it("refuses a folder with no list, and a list file with no entries", async () => {
      await assert.rejects(load(tempDir("sanctions-none-")), /no sanctions list file found/);
      const dir = tempDir("sanctions-empty-");
      fs.mkdirSync(path.join(dir, "eu_fsf"));
      fs.writeFileSync(path.join(dir, "eu_fsf/eu_fsf.xml"), '<?xml version="1.0"?><export xmlns="http://eu.europa.ec/fpi/fsd/export" generationDate="2025-10-06"></export>');
      await assert.rejects(load(dir), /eu_fsf\/eu_fsf.xml holds no entries/);
    });
  });

  describe("normalisation", () => {
    it("folds case, accents and scripts into one Latin form", () => {
      assert.equal(normalise("Aérocaribbean S.A."), "aerocaribbean sa", "a dotted legal form is one word");
      assert.equal(normalise("J.R. Ewing"), "j r ewing", "initials stay apart");
      assert.equal(normalise("Владимир ПУТИН"), "vladimir putin");
      assert.equal(normalise("O'Brien-Smith"), "obrien smith");
      assert.equal(normalise("新疆公安局"), "新 疆 公 安 局");
    });

    it("drops honorifics, legal forms and the Arabic article", () => {
      assert.deepEqual(nameTokens("Mr. Vladimir Putin"), ["vladimir", "putin"]);
      assert.deepEqual(nameTokens("OOO Rosneft Trading LLC"), ["rosneft", "trading"]);
      assert.deepEqual(nameTokens("Ayman al-Zawahiri"), ["ayman", "zawahiri"]);
    });

    it("gives transliteration variants one sound key", () => {
      assert.equal(soundKey("mohammed"), soundKey("muhammad"));
      assert.equal(soundKey("mohammed"), soundKey(normalise("محمد")));
      assert.equal(soundKey("yusuf"), soundKey("youssef"));
      assert.notEqual(soundKey("putin"), soundKey("potanin"));
    });

    it("maps country names and codes to ISO codes", () => {
      assert.equal(countryCode("Russian Federation"), "RU");
      assert.equal(countryCode("RUSSIAN FEDERATION"), "RU");
      assert.equal(countryCode("ru"), "RU");
      assert.equal(countryCode("Iran"), "IR");
      assert.equal(countryCode("UK"), "GB");
      assert.equal(countryCode("Atlantis"), undefined);
    });
  });

  describe("matching", () => {
    it("finds an exact name on every list that has it, best first", () => {
      const r = screen("Vladimir Vladimirovich Putin");
      assert.deepEqual(r.matches.map((m) => [m.list, m.list_id, m.score]), [["us-ofac", "35096", 100], ["uk", "RUS0251", 100]]);
    });

    it("tolerates a typo and says so", () => {
      const m = top("Vladimir Putni")!;
      assert.equal(m.list_id, "35096");
      assert.ok(m.score >= 85 && m.score < 100, `score ${m.score}`);
      assert.ok(m.why.some((w) => w.includes('"putni" ~ "putin"')), m.why.join("; "));
    });

    it("ignores word order", () => {
      const m = top("PUTIN Vladimir")!;
      assert.equal(m.score, 100);
      assert.ok(m.why.includes("word order differs"));
    });

    it("tolerates a missing middle name and an extra one", () => {
      assert.equal(top("Usama Bin Ladin")?.list_id, "6365");
      const extra = top("Mohammad Hassan Ali Akhund")!;
      assert.equal(extra.list_id, "AFG0006");
      assert.ok(extra.score >= 80 && extra.score < 100);
      assert.ok(extra.why.includes("query words not in this name: ali"));
    });

    it("matches initials", () => {
      const m = top("V. V. Putin")!;
      assert.equal(m.list_id, "35096");
      assert.ok(m.why.some((w) => w.includes("initial")));
    });

    it("ignores honorifics and company suffixes", () => {
      assert.equal(top("Mullah Mohammad Hassan Akhund")?.score, 100);
      assert.equal(top("VTB Bank PJSC")?.list_id, "18715");
      assert.equal(top("Rosneft Oil Company LLC", { lists: ["eu"] })?.score, 100);
    });

    it("matches names written as one word or two", () => {
      const m = top("Usama Binladin")!;
      assert.equal(m.list_id, "6365");
      assert.ok(m.why.some((w) => w.includes("written as one word / two words")));
    });

    it("matches transliterations: Cyrillic, Arabic and Chinese input, and Latin variants", () => {
      assert.equal(top("Владимир Путин")?.list_id, "35096");
      const arabic = top("صدام حسين")!;
      assert.equal(arabic.list, "un");
      assert.equal(arabic.list_id, "IQi.001");
      const chinese = top("新疆生产建设兵团公安局")!;
      assert.equal(chinese.list_id, "CHI0004");
      assert.equal(chinese.matched_name_kind, "alias (Chinese)");
      assert.equal(top("Osama bin Laden")?.list_id, "6365");
      assert.equal(top("Muhammad Hasan Akhund")?.list_id, "AFG0006");
    });

    it("scores weak aliases lower and says which name matched", () => {
      const m = top("BNC")!;
      assert.equal(m.list_id, "306");
      assert.equal(m.score, 90);
      assert.equal(m.matched_name, "BNC");
      assert.equal(m.matched_name_kind, "weak alias");
    });

    it("finds nothing for common names that are not listed", () => {
      for (const name of ["John Smith", "Maria Garcia", "Vladimir Ivanov", "Bank of America"]) assert.deepEqual(screen(name).matches, [], name);
    });

    it("does not flag common names that only sound like listed ones (real false positives seen in the bench)", () => {
      const other = new SanctionsIndex([blankEntry("us-ofac", "48695", "vessel", "LA PEARL"), blankEntry("uk", "DPR0098", "vessel", "RYOSHO MARU"),
        blankEntry("us-ofac", "15056", "entity", "HONESTY")]);
      for (const name of ["Priya Lee", "Mary Rossi", "Hans Sato"]) assert.deepEqual(other.screen({ name, threshold: 80 }).matches, [], name);
      assert.equal(other.screen({ name: "Honesty", threshold: 80 }).matches[0]?.list_id, "15056");
    });

    it("finds the known misses: a title-only remainder, misspelt titles, dotted legal forms, a joined article, first and last name only", () => {
      const people = (name: string, id: string) => blankEntry("us-ofac", id, "individual", name);
      const idx = new SanctionsIndex([people("Haji Khairullah BARAKZAI", "15008"), people("Dr. Sahir BURHAN", "8227"), people("Seyed Mohammad HASHEMI", "19229"),
        people("Saif-al-Din Fulayyih Hassan Taha AL-RAWI", "7856"), people("Abdul Mohsen Abdullah Ibrahim AL-SHARIKH", "17208"),
        blankEntry("us-ofac", "25142", "entity", "SIERRA GAS S.A.L. OFFSHORE"), people("Saeed AGHAJANI", "33574")]);
      const found = (name: string) => idx.screen({ name, threshold: 80 }).matches.map((m) => m.list_id);
      assert.deepEqual(found("Haji BARAKZAI"), ["15008"]);
      assert.ok(idx.screen({ name: "Haji BARAKZAI", threshold: 80 }).matches[0].why.includes("same title: haji"));
      assert.deepEqual(found("Dr. BURHAN"), ["8227"]);
      assert.deepEqual(found("Seyd Mohammad HASHEMI"), ["19229"]);
      assert.deepEqual(found("saifaldin fulayyih hassan taha alrawi"), ["7856"]);
      assert.deepEqual(found("Abdul AL-SHARIKH"), ["17208"]);
      assert.deepEqual(found("sierra gas sal offshore"), ["25142"]);
      assert.equal(idx.screen({ name: "saeed aghajani", threshold: 80 }).matches[0]?.score, 100, "Saeed is a name, not a misspelt title");
      assert.deepEqual(found("Khairullah BARAKZAI"), ["15008"]);
      assert.deepEqual(found("BARAKZAI"), [], "a surname alone is not enough");
    });

    it("does not let two misspelt words in another order reach 80 (Mary Davis is not David MAYER)", () => {
      const idx = new SanctionsIndex([blankEntry("uk", "AQD0127", "individual", "David MAYER")]);
      const m = idx.screen({ name: "Mary Davis", threshold: 50 }).matches[0];
      assert.ok(m.score < 80, `scored ${m.score}`);
      assert.ok(m.why.some((w) => /word order differs and no word matched exactly: score lowered by 10%/.test(w)));
    });

    it("lets type, birth year and country raise or lower the score", () => {
      const uk = { lists: ["uk" as const] };
      const plain = top("Vladimir Putni", uk)!.score;
      assert.equal(plain, 86);
      assert.equal(top("Vladimir Putni", { ...uk, birthYear: 1952 })!.score, plain + 5);
      assert.equal(top("Vladimir Putni", { ...uk, birthYear: 1980, threshold: 50 })!.score, plain - 15);
      assert.equal(top("Vladimir Putni", { ...uk, country: "RU" })!.score, plain + 5);
      assert.equal(top("Vladimir Putni", { ...uk, country: "France", threshold: 50 })!.score, plain - 10);
      const typed = top("Vladimir Putin", { type: "entity", threshold: 50 })!;
      assert.equal(typed.score, 80);
      assert.ok(typed.why.includes("type differs: listed as individual (-20)"));
    });

    it("keeps only matches at or above the threshold and on the lists asked for", () => {
      assert.deepEqual(screen("Vladimir Putni", { threshold: 100 }).matches, []);
      assert.deepEqual(screen("Vladimir Putin", { lists: ["uk"] }).matches.map((m) => m.list), ["uk"]);
      assert.deepEqual(screen("Saddam Hussein", { lists: ["eu", "un"] }).matches.map((m) => m.list).sort(), ["eu", "un"]);
    });
  });

  describe("wallet addresses", () => {
    it("knows address kinds and compares EVM and bech32 in any case, base58 exactly", () => {
      assert.deepEqual(addressKind("0x7FF9cFad3877F21d41Da833E2F775dB0569eE3D9").key, "0x7ff9cfad3877f21d41da833e2f775db0569ee3d9");
      assert.equal(addressKind("BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ").key, "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq");
      assert.equal(addressKind("TUCsTq7TxYqMxs1Mzvqs8GY5Wz1ZSo9Jet").kind, "TRX (Tron, also USDT on Tron)");
      assert.equal(addressKind("12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h").key, "12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h");
    });
  });
});
