// The World Bank's list of indicators (Indicators API v2, GET /indicator?format=json&per_page=30000): the API has
// no full-text search, so the list (about 29,000 indicators from some 60 sources, codes, names, source, unit and a
// definition) is kept here and searched by world-indicators/search-indicators. The answer is the API's usual
// [meta, rows] array; meta.pages > 1 would mean the list was cut by per_page.
import type { DatabaseSync } from "node:sqlite";
import type { DatasetDefinition } from "../../engine/datasets/types.ts";

const FILE = "indicators.json";

export interface Indicator {
  id: string;
  name: string;
  unit: string | null;
  source_id: number | null;
  source: string | null;
  definition: string | null;
  organization: string | null;
  topics: string[];
}

export interface IndicatorIndex {
  indicators: Indicator[];
  /** Per indicator, the words of its code and name (and, weighted less, of its definition). */
  nameWords: Set<string>[];
  noteWords: Set<string>[];
}

export const words = (text: string): string[] => text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").split(/[^a-z0-9.]+/).map((w) => w.replace(/^\.+|\.+$/g, "")).filter((w) => w.length > 0);

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

const definition: DatasetDefinition<IndicatorIndex> = {
  name: "world-bank-indicators",
  title: "World Bank indicator list (codes, names, sources, definitions)",
  folder: "world_bank_indicators",
  source: "world-bank",
  files: [{ name: FILE, path: "/indicator?format=json&per_page=30000" }],
  refresh: "7d",
  // Every indicator with its definition, in one answer: tens of MB.
  maxBytes: 128 * 1024 * 1024,
  licence: "Creative Commons Attribution 4.0 (World Bank open data terms)",
  attribution: "Source: The World Bank, Indicators API (indicator metadata)",

  async load(input, db) {
    let doc: unknown;
    try {
      doc = JSON.parse(await input.text(FILE));
    } catch (e) {
      throw new Error(`${FILE} is not valid JSON, perhaps cut short (${(e as Error).message})`);
    }
    if (!Array.isArray(doc) || doc.length < 2 || !Array.isArray(doc[1])) {
      throw new Error(`${FILE} is not the Indicators API's [meta, indicators] answer: ${JSON.stringify(doc).slice(0, 160)}`);
    }
    const meta = doc[0] as { pages?: number | string; total?: number | string };
    const rows = doc[1] as Record<string, any>[];
    if (Number(meta.pages) > 1) throw new Error(`${FILE} is page 1 of ${meta.pages}: per_page is smaller than the ${meta.total} indicators`);
    if (Number(meta.total) !== rows.length) throw new Error(`${FILE} holds ${rows.length} indicators but says it has ${meta.total}`);
    db.exec("CREATE TABLE indicators (id TEXT PRIMARY KEY, name TEXT NOT NULL, unit TEXT, source_id INTEGER, source TEXT, definition TEXT, organization TEXT, topics TEXT NOT NULL)");
    const insert = db.prepare("INSERT OR REPLACE INTO indicators VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    db.exec("BEGIN");
    for (const r of rows) {
      if (!text(r.id) || !text(r.name)) throw new Error(`${FILE}: an indicator has no id or name: ${JSON.stringify(r).slice(0, 120)}`);
      const topics = (Array.isArray(r.topics) ? r.topics : []).map((t: Record<string, unknown>) => text(t?.value)).filter(Boolean);
      const sourceId = Number(r.source?.id);
      insert.run(r.id.trim(), r.name.trim(), text(r.unit), Number.isInteger(sourceId) ? sourceId : null, text(r.source?.value), text(r.sourceNote), text(r.sourceOrganization), JSON.stringify(topics));
    }
    db.exec("COMMIT");
    const sources = db.prepare("SELECT count(DISTINCT source_id) AS n FROM indicators").get() as { n: number };
    return { counts: { indicators: rows.length, sources: sources.n } };
  },

  index(db: DatabaseSync): IndicatorIndex {
    const rows = db.prepare("SELECT * FROM indicators ORDER BY id").all() as Record<string, any>[];
    const indicators: Indicator[] = rows.map((r) => ({ id: r.id, name: r.name, unit: r.unit, source_id: r.source_id, source: r.source, definition: r.definition, organization: r.organization, topics: JSON.parse(r.topics) }));
    return {
      indicators,
      nameWords: indicators.map((i) => new Set([...words(i.id), i.id.toLowerCase(), ...words(i.name), ...i.topics.flatMap(words)])),
      noteWords: indicators.map((i) => new Set(words(i.definition ?? ""))),
    };
  },
};

export default definition;
