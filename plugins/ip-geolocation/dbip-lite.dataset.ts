// DB-IP IP to City Lite and IP to ASN Lite (https://db-ip.com/db/lite.php), monthly, CC BY 4.0: the CSV
// editions, `dbip-city-lite-YYYY-MM.csv.gz` (ip_start, ip_end, continent, country, stateprov, city, latitude,
// longitude; no header) and `dbip-asn-lite-YYYY-MM.csv.gz` (ip_start, ip_end, as_number, as_organization).
// Ranges are stored with 16-byte keys (IPv4 as IPv4-mapped IPv6), so one ordered lookup serves both families.
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { ipBytes } from "./ip.ts";
import type { DatasetDefinition, DatasetInput, DatasetProgress } from "../../engine/datasets/types.ts";

export interface DbipIndex {
  city: StatementSync;
  asn: StatementSync;
}

export interface CityRow {
  start: Uint8Array;
  end: Uint8Array;
  continent: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  lat: number | null;
  lng: number | null;
}

export interface AsnRow {
  start: Uint8Array;
  end: Uint8Array;
  asn: number;
  org: string | null;
}

/** DB-IP names its files by month; the file of the current month appears in its first days. */
function month(): string {
  return new Date().toISOString().slice(0, 7);
}

/** Splits one CSV line (fields may be quoted, with "" for a quote). */
function fields(line: string): string[] {
  if (!line.includes('"')) return line.split(",");
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') (cur += '"'), i++;
      else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") out.push(cur), (cur = "");
    else cur += c;
  }
  out.push(cur);
  return out;
}

/** Each line of a file read as bytes (the City file is too large for one string). */
function* lines(buf: Buffer): Generator<string> {
  let start = 0;
  while (start < buf.length) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    const line = buf.toString("utf8", start, end > start && buf[end - 1] === 13 ? end - 1 : end);
    if (line) yield line;
    start = end + 1;
  }
}

const text = (v: string | undefined) => (v === undefined || v === "" ? null : v);

async function loadFile(input: DatasetInput, name: string, width: number, progress: DatasetProgress, row: (f: string[], start: Buffer, end: Buffer) => void): Promise<number> {
  progress.log(`reading ${name}`);
  const buf = await input.bytes(name);
  progress.phase(`loading ${name}`);
  let n = 0;
  let line = 0;
  for (const l of lines(buf)) {
    line++;
    const f = fields(l);
    const start = ipBytes(f[0]);
    const end = ipBytes(f[1] ?? "");
    if (f.length < width || !start || !end) {
      throw new Error(`${name} line ${line} is not a DB-IP Lite CSV row of ${width} columns starting with two IP addresses: ${l.slice(0, 120)}`);
    }
    row(f, start, end);
    if (++n % 10000 === 0) progress.tick(10000);
  }
  progress.tick(n % 10000);
  return n;
}

const dbipLite: DatasetDefinition<DbipIndex> = {
  name: "dbip-lite",
  folder: "dbip_lite",
  title: "DB-IP IP to City Lite and IP to ASN Lite",
  source: "db-ip",
  get files() {
    const m = month();
    return [
      { name: "dbip-city-lite.csv", path: `/free/dbip-city-lite-${m}.csv.gz` },
      { name: "dbip-asn-lite.csv", path: `/free/dbip-asn-lite-${m}.csv.gz` },
    ];
  },
  refresh: "7d",
  // The City Lite file is well over 100 MB gzipped.
  maxBytes: 512 * 1024 * 1024,
  licence: "CC BY 4.0 (DB-IP.com)",
  attribution: "IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0",

  async load(input, db, progress) {
    db.exec(`
      CREATE TABLE city (start BLOB PRIMARY KEY, end BLOB NOT NULL, continent TEXT, country TEXT, region TEXT, city TEXT, lat REAL, lng REAL) WITHOUT ROWID;
      CREATE TABLE asn (start BLOB PRIMARY KEY, end BLOB NOT NULL, asn INTEGER NOT NULL, org TEXT) WITHOUT ROWID;
    `);
    db.exec("BEGIN");
    const city = db.prepare("INSERT OR REPLACE INTO city VALUES (?,?,?,?,?,?,?,?)");
    const cities = await loadFile(input, "dbip-city-lite.csv", 8, progress, (f, s, e) => {
      const lat = Number(f[6]);
      const lng = Number(f[7]);
      city.run(s, e, text(f[2]), text(f[3]), text(f[4]), text(f[5]), f[6] && Number.isFinite(lat) ? lat : null, f[7] && Number.isFinite(lng) ? lng : null);
    });
    const asn = db.prepare("INSERT OR REPLACE INTO asn VALUES (?,?,?,?)");
    const asns = await loadFile(input, "dbip-asn-lite.csv", 4, progress, (f, s, e) => {
      if (!/^\d+$/.test(f[2])) throw new Error(`dbip-asn-lite.csv: "${f[2]}" is not an AS number`);
      asn.run(s, e, Number(f[2]), text(f.slice(3).join(",")));
    });
    db.exec("COMMIT");
    if (!cities || !asns) throw new Error("a DB-IP file has no rows");
    const dates: Record<string, string> = {};
    for (const [kind, file] of [["city", "dbip-city-lite.csv"], ["asn", "dbip-asn-lite.csv"]]) {
      const m = /(\d{4}-\d{2})\.csv/.exec(input.origin(file).url);
      if (m) dates[kind] = m[1];
    }
    return { counts: { city_ranges: cities, asn_ranges: asns }, dataDates: dates };
  },

  index(db) {
    return {
      city: db.prepare("SELECT * FROM city WHERE start <= ? ORDER BY start DESC LIMIT 1"),
      asn: db.prepare("SELECT * FROM asn WHERE start <= ? ORDER BY start DESC LIMIT 1"),
    };
  },
};

export default dbipLite;
