// Reads the first worksheet of an .xlsx workbook (a zip of SpreadsheetML parts) as rows of text, as the lists
// published in Excel need: shared, inline and formula strings, numbers, booleans, and date-formatted numbers as
// dd/mm/yyyy. No formulas are evaluated and no styles beyond date formats are read.
import { XMLParser } from "fast-xml-parser";
import { zipEntries } from "./zip.ts";

type Node = Record<string, any>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  isArray: (name) => ["sheet", "Relationship", "xf", "numFmt"].includes(name),
});

const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const decode = (s: string) => s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) =>
  e[0] === "#" ? String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (ENTITIES[e] ?? m));
/** The text of a string item (<si>, <is>): its <t> elements, rich-text runs joined, phonetic hints (<rPh>) left out. */
const itemText = (xml: string) => decode([...xml.replace(/<rPh\b[\s\S]*?<\/rPh>/g, "").matchAll(/<t\b[^>]*>([^<]*)<\/t>/g)].map((m) => m[1]).join(""));
const attr = (attrs: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];

/** "C12" -> 2 (zero-based column). */
function column(ref: string): number {
  let n = 0;
  for (const ch of /^[A-Z]+/.exec(ref)?.[0] ?? "") n = n * 26 + ch.charCodeAt(0) - 64;
  return n - 1;
}

/** Built-in date formats (ECMA-376 18.8.30) and custom ones with day or year parts. */
function dateStyles(styles: Node | undefined): Set<number> {
  const custom = new Map(arr<Node>(styles?.styleSheet?.numFmts?.numFmt).map((f) => [Number(f["@numFmtId"]), String(f["@formatCode"])]));
  const isDate = (id: number) => (id >= 14 && id <= 22) || /[dy]/i.test((custom.get(id) ?? "").replace(/"[^"]*"|\[[^\]]*\]/g, ""));
  const out = new Set<number>();
  arr<Node>(styles?.styleSheet?.cellXfs?.xf).forEach((xf, i) => isDate(Number(xf["@numFmtId"] ?? 0)) && out.add(i));
  return out;
}

/** An Excel serial day (1900 system) as dd/mm/yyyy. */
function serialDay(serial: number): string {
  const d = new Date(Date.UTC(1899, 11, 30) + Math.floor(serial) * 86_400_000);
  return `${String(d.getUTCDate()).padStart(2, "0")}/${String(d.getUTCMonth() + 1).padStart(2, "0")}/${d.getUTCFullYear()}`;
}

export function firstSheetRows(bytes: Buffer): string[][] {
  let entries;
  try {
    entries = new Map(zipEntries(bytes).map((e) => [e.name.replace(/^\//, ""), e]));
  } catch (e) {
    throw new Error(`not an xlsx workbook (${(e as Error).message})`);
  }
  const raw = (name: string) => entries.get(name)?.read().toString("utf8");
  const xml = (name: string): Node | undefined => {
    const text = raw(name);
    return text === undefined ? undefined : (parser.parse(text) as Node);
  };
  const workbook = xml("xl/workbook.xml");
  if (!workbook) throw new Error("not an xlsx workbook (no xl/workbook.xml)");
  const firstId = arr<Node>(workbook.workbook?.sheets?.sheet)[0]?.["@r:id"];
  const target = arr<Node>(xml("xl/_rels/workbook.xml.rels")?.Relationships?.Relationship).find((r) => r["@Id"] === firstId)?.["@Target"] as string | undefined;
  const sheetPath = target ? (target.startsWith("/") ? target.slice(1) : `xl/${target}`) : "xl/worksheets/sheet1.xml";
  // The sheet and the shared strings are large and machine-written: scanned with patterns, which is many times
  // faster than building a tree of every cell.
  const sheet = raw(sheetPath);
  if (sheet === undefined) throw new Error(`the workbook has no ${sheetPath}`);
  const shared = [...(raw("xl/sharedStrings.xml") ?? "").matchAll(/<si>([\s\S]*?)<\/si>|<si\/>/g)].map((m) => itemText(m[1] ?? ""));
  const dates = dateStyles(xml("xl/styles.xml"));

  const rows: string[][] = [];
  for (const row of sheet.matchAll(/<row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/row>)/g)) {
    const cells: string[] = [];
    let i = 0;
    for (const c of (row[2] ?? "").matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const [, attrs, body = ""] = c;
      const ref = attr(attrs, "r");
      const at = ref ? column(ref) : i;
      i = at + 1;
      const v = decode(/<v>([^<]*)<\/v>/.exec(body)?.[1] ?? "");
      const type = attr(attrs, "t");
      const value = type === "s" ? (shared[Number(v)] ?? "")
        : type === "inlineStr" ? itemText(body)
        : type === "b" ? (v === "1" ? "TRUE" : "FALSE")
        : type === undefined && v !== "" && dates.has(Number(attr(attrs, "s") ?? 0)) ? serialDay(Number(v))
        : v;
      while (cells.length < at) cells.push("");
      cells[at] = value;
    }
    const r = attr(row[1], "r");
    const index = r ? Number(r) - 1 : rows.length;
    while (rows.length < index) rows.push([]);
    rows[index] = cells;
  }
  return rows;
}
