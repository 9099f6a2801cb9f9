// OS Code-Point Open (OGL v3): every postcode unit in Great Britain with its centroid as a British National
// Grid easting/northing, converted here to WGS84. The download, codepo_gb.zip, holds Data/CSV/<area>.csv (no
// header: postcode, positional quality, easting, northing, country, NHS region, NHS area, county, district,
// ward codes) and Doc/metadata.txt, whose per-area counts check that no file was cut short. Northern Ireland,
// the Channel Islands and the Isle of Man are not in it.
import zlib from "node:zlib";
import { parse } from "csv-parse/sync";
import type { DatabaseSync } from "node:sqlite";
import type { DatasetDefinition } from "../../engine/datasets/types.ts";
import { gridToWgs84 } from "./osgb.ts";
import { zipEntries, type ZipEntry } from "../../engine/datasets/zip.ts";

const FILE = "codepo_gb.zip";
const AREA_FILE = /(^|\/)Data\/CSV\/([a-z]{1,2})\.csv(\.gz)?$/i;
const COUNTRIES: Record<string, string> = { E92000001: "England", S92000003: "Scotland", W92000004: "Wales" };

export interface GbPostcode {
  postcode: string;
  latitude: number;
  longitude: number;
  easting: number;
  northing: number;
  country: string | null;
  district_code: string | null;
  ward_code: string | null;
}

export interface PostcodeIndex {
  /** A postcode in any spacing or case; undefined when it is not in the file. */
  lookup(postcode: string): GbPostcode | undefined;
}

/** "SW1A1AA", "sw1a 1aa", "B1  1AA" -> the one form with a single space before the inward code. */
export const normalisePostcode = (pc: string) => {
  const compact = pc.replace(/\s+/g, "").toUpperCase();
  return `${compact.slice(0, -3)} ${compact.slice(-3)}`;
};

/** Doc/metadata.txt: "      AB\t17411" lines -> { ab: 17411 }, plus the release ("DATASET VERSION NUMBER: 2025.4.0"). */
function readMetadata(entry: ZipEntry | undefined): { counts: Map<string, number>; release?: string } {
  const counts = new Map<string, number>();
  if (!entry) return { counts };
  const text = entry.read().toString("utf8");
  for (const m of text.matchAll(/^\s*([A-Z]{1,2})\t(\d+)\s*$/gm)) counts.set(m[1].toLowerCase(), Number(m[2]));
  return { counts, release: /DATASET VERSION NUMBER:\s*(\S+)/.exec(text)?.[1] };
}

const definition: DatasetDefinition<PostcodeIndex> = {
  name: "gb-postcodes",
  title: "OS Code-Point Open postcodes (Great Britain)",
  folder: "uk_postcodes_codepoint_open",
  source: "os-codepoint",
  files: [{ name: FILE, path: "/downloads/v1/products/CodePointOpen/downloads?area=GB&format=CSV&redirect", unpacked: true }],
  refresh: "30d",
  licence: "Open Government Licence v3.0",
  attribution: "Contains OS data © Crown copyright and database right; Royal Mail data © Royal Mail copyright and database right; National Statistics data © Crown copyright and database right",

  async load(input, db, progress) {
    const entries = input.entries ? await input.entries(FILE) : zipEntries(await input.bytes(FILE));
    const areas = entries.filter((e) => AREA_FILE.test(e.name));
    if (!areas.length) throw new Error(`${FILE} holds no Data/CSV/<area>.csv files; is it Code-Point Open in CSV?`);
    const metadata = readMetadata(entries.find((e) => /(^|\/)Doc\/metadata\.txt$/i.test(e.name)));

    db.exec(`CREATE TABLE postcodes (pc TEXT PRIMARY KEY, postcode TEXT NOT NULL, latitude REAL NOT NULL, longitude REAL NOT NULL,
      easting INTEGER NOT NULL, northing INTEGER NOT NULL, quality INTEGER, country_code TEXT, district_code TEXT, ward_code TEXT) WITHOUT ROWID`);
    const insert = db.prepare("INSERT OR REPLACE INTO postcodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    progress.phase(`loading ${areas.length} postcode areas`, areas.length);
    let total = 0;
    let unplaced = 0;
    db.exec("BEGIN");
    for (const entry of areas) {
      const area = AREA_FILE.exec(entry.name)![2].toLowerCase();
      const raw = entry.read();
      const rows = parse(entry.name.endsWith(".gz") ? zlib.gunzipSync(raw) : raw, { skip_empty_lines: true, relax_column_count: true }) as string[][];
      const expected = metadata.counts.get(area);
      if (expected !== undefined && rows.length !== expected) throw new Error(`${entry.name} has ${rows.length} postcodes; Doc/metadata.txt says ${expected} (cut short?)`);
      for (const r of rows) {
        const [pc, quality, e, n, country, , , , district, ward] = r;
        const easting = Number(e);
        const northing = Number(n);
        // Quality 90 means no grid reference (0, 0): such a postcode is left to the postcode upstream.
        if (!pc || !(easting > 0 && northing > 0)) {
          unplaced++;
          continue;
        }
        const { latitude, longitude } = gridToWgs84(easting, northing);
        const postcode = normalisePostcode(pc);
        insert.run(postcode.replace(" ", ""), postcode, latitude, longitude, easting, northing, Number(quality) || null, country || null, district || null, ward || null);
        total++;
      }
      progress.tick();
    }
    db.exec("COMMIT");
    if (unplaced) progress.log(`${unplaced} postcodes without a grid reference were left out`);
    return { counts: { postcodes: total }, ...(metadata.release ? { dataDates: { release: metadata.release } } : {}) };
  },

  index(db: DatabaseSync): PostcodeIndex {
    const byPc = db.prepare("SELECT postcode, latitude, longitude, easting, northing, country_code, district_code, ward_code FROM postcodes WHERE pc = ?");
    return {
      lookup(postcode) {
        const row = byPc.get(postcode.replace(/\s+/g, "").toUpperCase()) as (Omit<GbPostcode, "country"> & { country_code: string | null }) | undefined;
        if (!row) return undefined;
        const { country_code, ...rest } = row;
        return { ...rest, country: country_code ? (COUNTRIES[country_code] ?? null) : null };
      },
    };
  },
};

export default definition;
