// OFAC's legacy delimited files: sdn.csv (or cons_prim.csv) with add, alt and comments files joined on ent_num.
// No header, "-0-" for empty, CRLF, a trailing 0x1A byte, Windows-1252 text. The four files may come from
// different days: rows whose ent_num the main file lacks are counted, not fatal.
import { parse } from "csv-parse/sync";
import { addName, addOnce, blankEntry, ofacDate, type Entry, type EntryType, type ParsedList } from "./types.ts";

export interface OfacCsvFiles {
  /** sdn.csv or cons_prim.csv: ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks */
  main: string;
  /** add.csv: ent_num, Add_num, Address, City/State/Province/Postal_Code, Country, Add_remarks */
  add?: string;
  /** alt.csv: ent_num, alt_num, alt_type, alt_name, alt_remarks */
  alt?: string;
  /** sdn_comments.csv: ent_num, Remarks_Extended (the rest of a remark longer than the column) */
  comments?: string;
}

/** Decodes a file that may be UTF-8 or Windows-1252. */
export function decodeLegacy(bytes: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

function rows(text: string | undefined): string[][] {
  if (!text) return [];
  const clean = text.replace(/\x1a/g, "").replace(/^\uFEFF/, "");
  const out = parse(clean, { relax_quotes: true, relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  return out.map((r) => r.map((v) => (v === "-0-" ? "" : v)));
}

/** OFAC writes individuals "LAST, First Middle": turned into reading order so it compares like the other lists. */
export function readingOrder(name: string, type: EntryType): string {
  if (type !== "individual") return name;
  const parts = name.split(",");
  if (parts.length !== 2) return name;
  return `${parts[1].trim()} ${parts[0].trim()}`.trim();
}

function entryType(raw: string): EntryType {
  const t = raw.toLowerCase();
  return t === "individual" || t === "vessel" || t === "aircraft" ? t : "entity";
}

/** Reads the structured facts OFAC puts in the free-text remarks: DOB, POB, nationality, weak a.k.a.s, wallets, IMO. */
export function applyRemarks(e: Entry, remarks: string): void {
  for (const rawPart of remarks.split(/;\s*/)) {
    const part = rawPart.trim().replace(/^alt\.\s+/i, "").replace(/\.$/, "");
    let m: RegExpExecArray | null;
    if ((m = /^DOB (.+)$/.exec(part))) addOnce(e.dates_of_birth, ofacDate(m[1]));
    else if ((m = /^POB (.+)$/.exec(part))) addOnce(e.places_of_birth, m[1]);
    else if ((m = /^(?:citizen|nationality) (.+)$/i.exec(part))) {
      addOnce(e.nationalities, m[1]);
      addOnce(e.countries, m[1]);
    } else if ((m = /^Digital Currency Address - (\S+) (\S+)/.exec(part))) {
      if (!e.wallets.some((w) => w.address === m![2] && w.currency === m![1])) e.wallets.push({ currency: m[1], address: m[2] });
    } else if ((m = /^([a-z])\.k\.a\.\s+'(.+)'$/i.exec(part)) || (m = /^(d)\.b\.a\.\s+'(.+)'$/i.exec(part))) {
      addName(e, readingOrder(m[2], e.type), "weak", undefined, `${m[1].toLowerCase()}.k.a. (weak, in remarks)`);
    } else if ((m = /IMO (\d{7})/.exec(part))) {
      e.vessel = { ...e.vessel, imo: m[1] };
      addOnce(e.identifiers, part);
    } else if (/(Passport|National ID|Cedula|Tax ID|Registration|SWIFT|Identification|Number|No\.)/i.test(part)) {
      addOnce(e.identifiers, part);
    }
  }
}

/** Parses one OFAC legacy set. `sublist` names the publication (SDN, or the non-SDN consolidated list). */
export function parseOfacCsv(files: OfacCsvFiles, sublist: string): ParsedList {
  const byId = new Map<string, Entry>();
  const remarks = new Map<string, string>();
  for (const r of rows(files.main)) {
    const [id, rawName, type, program, title, callSign, vessType, tonnage, grt, flag, owner, remark] = r;
    if (!id || !rawName) continue;
    const t = entryType(type ?? "");
    const e = blankEntry("us-ofac", id, t, readingOrder(rawName, t));
    e.sublist = sublist;
    for (const p of (program ?? "").split(/\]\s*\[/)) addOnce(e.programmes, p.replace(/[[\]]/g, ""));
    if (title) e.other_ids = { title };
    if (t === "vessel" || callSign || vessType || flag) {
      const v = { call_sign: callSign, vessel_type: vessType, tonnage, gross_registered_tonnage: grt, flag, owner };
      e.vessel = Object.fromEntries(Object.entries(v).filter(([, x]) => x));
      addOnce(e.countries, flag);
    }
    if (remark) remarks.set(id, remark);
    byId.set(id, e);
  }
  let unmatched = 0;
  for (const [id, extended] of rows(files.comments)) {
    if (!byId.has(id)) unmatched++;
    else remarks.set(id, (remarks.get(id) ?? "") + (extended ?? ""));
  }
  for (const [id, text] of remarks) {
    const e = byId.get(id)!;
    e.remarks = text;
    applyRemarks(e, text);
  }
  for (const [id, , address, cityEtc, country, addRemarks] of rows(files.add)) {
    const e = byId.get(id);
    if (!e) {
      unmatched++;
      continue;
    }
    addOnce(e.addresses, [address, cityEtc, country, addRemarks].filter(Boolean).join(", "));
    addOnce(e.countries, country);
  }
  for (const [id, , altType, altName, altRemarks] of rows(files.alt)) {
    const e = byId.get(id);
    if (!e) {
      unmatched++;
      continue;
    }
    addName(e, readingOrder(altName ?? "", e.type), "alias", undefined, [altType, altRemarks].filter(Boolean).join("; ") || undefined);
  }
  return { entries: [...byId.values()], unmatched };
}
