// The real Osmocom TAC database (../shared/data/imei_tac/tacdb.csv): how long a load takes, and how many IMEIs a
// second the decode path (parse, Luhn check, TAC lookup) handles once it is loaded.
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import tacDefinition, { type TacIndex } from "../plugins/imei/imei-tac.dataset.ts";
import { luhnCheckDigit, parseImei } from "../plugins/imei/imei-number.ts";
import type { DatasetInput } from "../engine/datasets/types.ts";

const FILE = path.resolve(import.meta.dirname, "..", "..", "shared", "data", "imei_tac", "tacdb.csv");
const LOOKUPS = 200_000;

export default async function imeiBench(): Promise<void> {
  if (!fs.existsSync(FILE)) {
    console.log(`skipped: ${FILE} is not here`);
    return;
  }
  const text = fs.readFileSync(FILE, "utf8");
  const input: DatasetInput = { files: ["tacdb.csv"], text: async () => text, bytes: async () => Buffer.from(text), origin: () => ({ url: FILE }) };
  const db = new DatabaseSync(":memory:");
  let t = performance.now();
  const { counts } = await tacDefinition.load(input, db, { phase() {}, tick() {}, log() {} });
  const index = tacDefinition.index!(db) as TacIndex;
  console.log(`load: ${counts.tacs} TACs in ${(performance.now() - t).toFixed(0)} ms`);

  // Half known TACs, half unknown ones, each with a serial and its check digit.
  const known = (db.prepare("SELECT tac FROM tacs").all() as { tac: string }[]).map((r) => r.tac);
  const imeis = Array.from({ length: LOOKUPS }, (_, i) => {
    const body = `${i % 2 ? known[i % known.length] : String(90000000 + i)}${String(i % 1_000_000).padStart(6, "0")}`;
    return body + luhnCheckDigit(body);
  });
  let found = 0;
  t = performance.now();
  for (const imei of imeis) if (index.lookup(parseImei(imei)!.tac)) found++;
  const ms = performance.now() - t;
  console.log(`decode: ${LOOKUPS} IMEIs in ${ms.toFixed(0)} ms (${Math.round((LOOKUPS / ms) * 1000)} a second, ${found} found)`);
  db.close();
}
