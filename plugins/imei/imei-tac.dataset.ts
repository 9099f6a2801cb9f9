// The Osmocom TAC database (http://tacdb.osmocom.org/export/tacdb.csv, CC BY-SA 3.0): Type Allocation Code ->
// brand, model and aliases. Line 1 is a licence banner, line 2 a header that repeats column names
// (tac,name,name,contributor,comment,gsmarena,gsmarena,aka); data lines end in CRLF.
import { parse } from "csv-parse/sync";
import type { DatabaseSync } from "node:sqlite";
import type { DatasetDefinition } from "../../engine/datasets/types.ts";
import { deviceType, modelCode, type DeviceType } from "./device.ts";

export const TAC_ATTRIBUTION = "TAC data: Osmocom TAC database (http://tacdb.osmocom.org), © Harald Welte and contributors, licensed CC BY-SA 3.0 (https://creativecommons.org/licenses/by-sa/3.0/)";
const FILE = "tacdb.csv";
const HEADER = "tac,name,name,contributor,comment,gsmarena,gsmarena,aka";
/** More rows than this share that are not TAC rows means the file is not what it should be. */
const MAX_BAD_SHARE = 0.01;

export interface Device {
  tac: string;
  brand: string;
  model: string;
  model_code: string | null;
  device_type: DeviceType;
  aliases: string[];
  gsmarena_url: string | null;
}

export interface Coverage { tacs: number; models: number; brands: number }

export interface TacIndex {
  lookup(tac: string): Device | undefined;
  coverage: Coverage;
}

const definition: DatasetDefinition<TacIndex> = {
  name: "imei-tac",
  title: "Osmocom TAC database",
  folder: "imei_tac",
  source: "osmocom",
  files: [{ name: FILE, path: "/export/tacdb.csv" }],
  refresh: "7d",
  licence: "CC BY-SA 3.0",
  attribution: TAC_ATTRIBUTION,

  async load(input, db, progress) {
    const lines = (await input.text(FILE)).replace(/\r\n/g, "\n").split("\n");
    if (!/^Osmocom TAC database/i.test(lines[0] ?? "") || lines[1]?.trim() !== HEADER) {
      throw new Error(`${FILE} does not start with the Osmocom banner and the header "${HEADER}"; is it the tacdb export?`);
    }
    const rows = parse(lines.slice(2).join("\n"), { skip_empty_lines: true, relax_column_count: true }) as string[][];
    progress.phase(`loading ${FILE}`, rows.length);
    db.exec(`CREATE TABLE tacs (tac TEXT PRIMARY KEY, brand TEXT NOT NULL, model TEXT NOT NULL, model_code TEXT,
      device_type TEXT NOT NULL, aliases TEXT NOT NULL, gsmarena_url TEXT, contributor TEXT, comment TEXT) WITHOUT ROWID`);
    const insert = db.prepare("INSERT OR REPLACE INTO tacs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const complete = (r: string[]) => r.length === 8 && /^\d{8}$/.test(r[0].trim()) && r[1].trim() !== "";
    // The last row cut short means a truncated download; a stray bad row elsewhere is skipped, unless there are many.
    const last = rows.at(-1);
    if (last && !complete(last)) throw new Error(`${FILE} ends in an incomplete row (a truncated file?): ${last.join(",").slice(0, 80)}`);
    const bad = rows.filter((r) => !complete(r));
    if (bad.length > rows.length * MAX_BAD_SHARE) throw new Error(`${FILE}: ${bad.length} of ${rows.length} rows are not TAC rows, e.g. ${bad[0].join(",").slice(0, 80)}`);
    for (const r of bad) progress.log(`skipped a row that is not a TAC row: ${r.join(",").slice(0, 80)}`);
    db.exec("BEGIN");
    for (const r of rows) {
      if (!complete(r)) continue;
      const [tac, brand, model, contributor, comment, gsmarena] = r.map((v) => v.trim());
      // Aliases are comma-joined, and one may hold a comma in brackets: "A1522,iPhone 6 (A1524, A1586)".
      const aliases = r[7] ? r[7].split(/,(?![^(]*\))/).map((a) => a.trim()).filter(Boolean) : [];
      insert.run(tac, brand, model, modelCode(model, aliases), deviceType(brand, model), JSON.stringify(aliases), gsmarena || null, contributor || null, comment || null);
      progress.tick();
    }
    db.exec("COMMIT");
    const count = (db.prepare("SELECT count(*) AS n FROM tacs").get() as { n: number }).n;
    // The export carries no date: the download's Last-Modified says when it last changed; a local copy's file time does not.
    const origin = input.origin(FILE);
    const date = origin.date_from === "last-modified" ? origin.date : undefined;
    return { counts: { tacs: count }, ...(date ? { dataDates: { last_changed: date } } : {}) };
  },

  index(db: DatabaseSync): TacIndex {
    const byTac = db.prepare("SELECT tac, brand, model, model_code, device_type, aliases, gsmarena_url FROM tacs WHERE tac = ?");
    const counts = db.prepare(`SELECT count(*) AS tacs, count(DISTINCT lower(brand) || '|' || lower(model)) AS models,
      count(DISTINCT lower(brand)) AS brands FROM tacs`).get() as unknown as Coverage;
    return {
      coverage: { tacs: counts.tacs, models: counts.models, brands: counts.brands },
      lookup(tac) {
        const row = byTac.get(tac) as (Omit<Device, "aliases"> & { aliases: string }) | undefined;
        return row ? { ...row, aliases: JSON.parse(row.aliases) as string[] } : undefined;
      },
    };
  },
};

export default definition;
