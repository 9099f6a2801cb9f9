// One dataset holding the four sanctions lists. Every file is optional: a sync loads whichever lists it finds
// (and refuses a version with none). File names carry the folder layout of a --from copy (ofac_sdn/sdn.csv, ...).
import type { DatasetDefinition, DatasetFile, DatasetInput } from "../../engine/datasets/types.ts";
import { decodeLegacy, parseOfacCsv } from "./parse-ofac-csv.ts";
import { parseOfacXml, unzipXml } from "./parse-ofac-xml.ts";
import { parseFcdoXml, parseOfsiXlsx, parseUkCsv } from "./parse-uk.ts";
import { parseUn } from "./parse-un.ts";
import { parseEu } from "./parse-eu.ts";
import { buildIndex, writeStore, type ListDateFrom, type ListInfo } from "./store.ts";
import { LIST_TITLES, type Entry, type ListCode, type ParsedList } from "./types.ts";
import type { SanctionsIndex } from "./matcher.ts";

const OFAC = "/api/PublicationPreview/exports";


export const FILES = {
  sdn: { name: "ofac_sdn/sdn.csv", path: `${OFAC}/SDN.CSV`, optional: true },
  sdnAdd: { name: "ofac_sdn/add.csv", path: `${OFAC}/ADD.CSV`, optional: true },
  sdnAlt: { name: "ofac_sdn/alt.csv", path: `${OFAC}/ALT.CSV`, optional: true },
  sdnComments: { name: "ofac_sdn/sdn_comments.csv", path: `${OFAC}/SDN_COMMENTS.CSV`, optional: true },
  sdnXml: { name: "ofac_sdn/SDN_ENHANCED.ZIP", path: `${OFAC}/SDN_ENHANCED.ZIP`, optional: true },
  cons: { name: "ofac_consolidated/cons_prim.csv", path: `${OFAC}/CONS_PRIM.CSV`, optional: true },
  consAdd: { name: "ofac_consolidated/cons_add.csv", path: `${OFAC}/CONS_ADD.CSV`, optional: true },
  consAlt: { name: "ofac_consolidated/cons_alt.csv", path: `${OFAC}/CONS_ALT.CSV`, optional: true },
  consComments: { name: "ofac_consolidated/cons_comments.csv", path: `${OFAC}/CONS_COMMENTS.CSV`, optional: true },
  consXml: { name: "ofac_consolidated/CONS_ENHANCED.ZIP", path: `${OFAC}/CONS_ENHANCED.ZIP`, optional: true },
  ukXml: { name: "uk_fcdo/UK-Sanctions-List.xml", source: "fcdo", path: "/docs/UK-Sanctions-List.xml", optional: true },
  ukCsv: { name: "uk_fcdo/UK-Sanctions-List.csv", source: "fcdo", path: "/docs/UK-Sanctions-List.csv", optional: true },
  // OFSI's retired consolidated list: read from a --from folder only (a download finds nothing and skips it).
  ofsiXlsx: { name: "uk_ofsi/UK_Sanctions_List.xlsx", source: "fcdo", path: "/docs/ConList.xlsx", optional: true },
  ofsiCsv: { name: "uk_ofsi/ConList.csv", source: "fcdo", path: "/docs/ConList.csv", optional: true },
  un: { name: "un_consolidated/UN_consolidated.xml", source: "un-sc", path: "/resources/xml/en/consolidated.xml", optional: true },
  eu: { name: "eu_fsf/eu_fsf.xml", source: "eu-fsf", path: "/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content", optional: true },
} satisfies Record<string, DatasetFile>;

type Key = keyof typeof FILES;

/** One list as read: its entries, the files it came from, and its date with whence the date. */
export interface ReadList {
  list: ListCode;
  parsed: ParsedList;
  files: Key[];
  date?: string;
  date_from: ListDateFrom;
  sublists?: Record<string, number>;
}

interface Part { parsed: ParsedList; files: Key[] }

/**
 * A publication's date: the one it carries, else (OFAC's CSVs carry none) its main file's Last-Modified when it was
 * downloaded. A local file's time says when it was copied, not when it was published, so it gives no date.
 */
function dated(input: DatasetInput, part: Part): { date?: string; date_from: ListDateFrom } {
  if (part.parsed.date) return { date: part.parsed.date, date_from: "publication" };
  const origin = input.origin(FILES[part.files[0]].name);
  return origin.date_from === "last-modified" && origin.date ? { date: origin.date.slice(0, 10), date_from: "last-modified" } : { date_from: "unknown" };
}

/** A list read from several publications (OFAC's SDN and non-SDN) is as old as its oldest part. */
function oldest(dates: { date?: string; date_from: ListDateFrom }[]): { date?: string; date_from: ListDateFrom } {
  if (dates.some((d) => !d.date)) return { date_from: "unknown" };
  const first = [...dates].sort((a, b) => a.date!.localeCompare(b.date!))[0];
  return { date: first.date, date_from: dates.every((d) => d.date_from === "publication") ? "publication" : "last-modified" };
}

/** Reads the lists present in the input; each list from its best available publication. */
export async function parseLists(input: DatasetInput): Promise<ReadList[]> {
  const has = (k: Key) => input.files.includes(FILES[k].name);
  const text = (k: Key) => input.text(FILES[k].name);
  const legacy = async (k: Key) => (has(k) ? decodeLegacy(await input.bytes(FILES[k].name)) : undefined);
  const out: ReadList[] = [];
  const one = (list: ListCode, part: Part) => out.push({ list, ...part, ...dated(input, part) });

  const ofac: Part[] = [];
  if (has("sdn")) {
    ofac.push({ parsed: parseOfacCsv({ main: (await legacy("sdn"))!, add: await legacy("sdnAdd"), alt: await legacy("sdnAlt"), comments: await legacy("sdnComments") }, "SDN"),
      files: (["sdn", "sdnAdd", "sdnAlt", "sdnComments"] as Key[]).filter(has) });
  } else if (has("sdnXml")) ofac.push({ parsed: parseOfacXml(unzipXml(await input.bytes(FILES.sdnXml.name)), "SDN"), files: ["sdnXml"] });
  if (has("cons")) {
    ofac.push({ parsed: parseOfacCsv({ main: (await legacy("cons"))!, add: await legacy("consAdd"), alt: await legacy("consAlt"), comments: await legacy("consComments") }, "Non-SDN (consolidated)"),
      files: (["cons", "consAdd", "consAlt", "consComments"] as Key[]).filter(has) });
  } else if (has("consXml")) ofac.push({ parsed: parseOfacXml(unzipXml(await input.bytes(FILES.consXml.name)), "Non-SDN (consolidated)"), files: ["consXml"] });
  if (ofac.length) {
    out.push({ list: "us-ofac", ...mergeOfac(ofac.map((o) => o.parsed)), files: ofac.flatMap((o) => o.files), ...oldest(ofac.map((o) => dated(input, o))) });
  }

  if (has("ukXml")) one("uk", { parsed: parseFcdoXml(await text("ukXml")), files: ["ukXml"] });
  else if (has("ukCsv")) one("uk", { parsed: parseUkCsv(await text("ukCsv")), files: ["ukCsv"] });
  else if (has("ofsiXlsx")) one("uk", { parsed: parseOfsiXlsx(await input.bytes(FILES.ofsiXlsx.name)), files: ["ofsiXlsx"] });
  else if (has("ofsiCsv")) one("uk", { parsed: parseUkCsv(await text("ofsiCsv")), files: ["ofsiCsv"] });

  if (has("un")) one("un", { parsed: parseUn(await text("un")), files: ["un"] });
  if (has("eu")) one("eu", { parsed: parseEu(await text("eu")), files: ["eu"] });
  return out;
}

/** SDN and non-SDN publications share OFAC's ent_num space: an entity on both is one entry with both programmes. */
function mergeOfac(parts: ParsedList[]): { parsed: ParsedList; sublists: Record<string, number> } {
  const byId = new Map<string, Entry>();
  const sublists: Record<string, number> = {};
  let unmatched = 0;
  for (const p of parts) {
    unmatched += p.unmatched ?? 0;
    for (const e of p.entries) {
      sublists[e.sublist ?? "SDN"] = (sublists[e.sublist ?? "SDN"] ?? 0) + 1;
      const prev = byId.get(e.list_id);
      if (!prev) byId.set(e.list_id, e);
      else {
        for (const prog of e.programmes) if (!prev.programmes.includes(prog)) prev.programmes.push(prog);
        prev.sublist = `${prev.sublist}; ${e.sublist}`;
      }
    }
  }
  return { parsed: { entries: [...byId.values()], unmatched }, sublists };
}

const definition: DatasetDefinition<SanctionsIndex> = {
  name: "sanctions",
  title: "Sanctions lists: US OFAC (SDN and non-SDN), UK, EU, UN",
  folder: "sanctions",
  source: "ofac",
  files: Object.values(FILES) as DatasetFile[],
  refresh: "1d",
  licence: "OFAC: US public domain; UK: Open Government Licence v3.0; EU: reuse authorised with acknowledgement; UN: public information",
  attribution: "Sources: US Treasury OFAC; UK FCDO / HM Treasury OFSI; European Commission; United Nations Security Council",
  async load(input, db, progress) {
    progress.phase("parsing the sanctions lists");
    const lists = await parseLists(input);
    if (!lists.length) throw new Error(`no sanctions list file found (looked for ${Object.values(FILES).map((f) => f.name).join(", ")})`);
    const entries: Entry[] = [];
    const infos: ListInfo[] = [];
    const counts: Record<string, number> = {};
    const dataDates: Record<string, string> = {};
    for (const { list, parsed, files, sublists, date, date_from } of lists) {
      if (!parsed.entries.length) throw new Error(`${FILES[files[0]].name} holds no entries: refusing a truncated or wrong file`);
      const origins = files.map((k) => ({ file: FILES[k].name, ...input.origin(FILES[k].name) }));
      entries.push(...parsed.entries);
      infos.push({ list, title: LIST_TITLES[list], entries: parsed.entries.length, list_date: date, list_date_from: date_from, files: origins, sublists, unmatched_rows: parsed.unmatched || undefined });
      counts[list] = parsed.entries.length;
      if (date) dataDates[list] = date;
      if (parsed.unmatched) progress.log(`${list}: ${parsed.unmatched} rows of secondary files name an entry the main file lacks (files of different dates); skipped`);
    }
    progress.phase("writing the entries", entries.length);
    const { wallets } = writeStore(db, entries, infos);
    progress.tick(entries.length);
    return { counts: { ...counts, entries: entries.length, wallet_addresses: wallets }, dataDates };
  },
  index: buildIndex,
};

export default definition;
