// The loaded lists in SQLite (one version = one database) and the in-memory index built from them.
import type { DatabaseSync } from "node:sqlite";
import type { FileOrigin } from "../../engine/datasets/types.ts";
import { SanctionsIndex } from "./matcher.ts";
import { walletKey } from "./wallets.ts";
import { LISTS, LIST_TITLES, type Entry, type ListCode } from "./types.ts";

/**
 * Whence a list's date: "publication", the date the list carries (XML generation date, CSV preamble); "last-modified",
 * the download's Last-Modified (OFAC's legacy CSVs carry no date); "unknown", neither (a local copy of such a file).
 */
export type ListDateFrom = "publication" | "last-modified" | "unknown";

export interface ListInfo {
  list: ListCode;
  title: string;
  entries: number;
  list_date?: string;
  list_date_from?: ListDateFrom;
  /** The files it was read from (name, where from, their date). */
  files: ({ file: string } & FileOrigin)[];
  /** Entries per publication within the list (SDN, non-SDN...). */
  sublists?: Record<string, number>;
  /** Rows of secondary files whose entry the main file lacks (files of different dates). */
  unmatched_rows?: number;
}

const SCHEMA = `
CREATE TABLE entries (entry_id INTEGER PRIMARY KEY, list TEXT NOT NULL, list_id TEXT NOT NULL, type TEXT NOT NULL, name TEXT NOT NULL, record TEXT NOT NULL);
CREATE UNIQUE INDEX entries_list_id ON entries (list, list_id);
CREATE TABLE wallets (address_key TEXT NOT NULL, currency TEXT NOT NULL, address TEXT NOT NULL, entry_id INTEGER NOT NULL);
CREATE INDEX wallets_key ON wallets (address_key);
CREATE TABLE lists (list TEXT PRIMARY KEY, info TEXT NOT NULL);
`;

/** Writes the entries (entry_id = position + 1) and the per-list facts. */
export function writeStore(db: DatabaseSync, entries: Entry[], lists: ListInfo[]): { wallets: number } {
  db.exec(SCHEMA);
  db.exec("BEGIN");
  const insEntry = db.prepare("INSERT INTO entries (entry_id, list, list_id, type, name, record) VALUES (?, ?, ?, ?, ?, ?)");
  const insWallet = db.prepare("INSERT INTO wallets (address_key, currency, address, entry_id) VALUES (?, ?, ?, ?)");
  const insList = db.prepare("INSERT INTO lists (list, info) VALUES (?, ?)");
  let wallets = 0;
  entries.forEach((e, i) => {
    insEntry.run(i + 1, e.list, e.list_id, e.type, e.name, JSON.stringify(e));
    for (const w of e.wallets) {
      insWallet.run(walletKey(w.address), w.currency, w.address, i + 1);
      wallets++;
    }
  });
  for (const l of lists) insList.run(l.list, JSON.stringify(l));
  db.exec("COMMIT");
  return { wallets };
}

export function readEntry(db: DatabaseSync, by: { entryId?: number; list?: string; listId?: string }): { entry_id: number; entry: Entry } | undefined {
  const row = (by.entryId !== undefined
    ? db.prepare("SELECT entry_id, record FROM entries WHERE entry_id = ?").get(by.entryId)
    : db.prepare("SELECT entry_id, record FROM entries WHERE list = ? AND list_id = ? COLLATE NOCASE").get(by.list ?? "", by.listId ?? "")) as
    { entry_id: number; record: string } | undefined;
  return row ? { entry_id: row.entry_id, entry: JSON.parse(row.record) as Entry } : undefined;
}

export function readLists(db: DatabaseSync): ListInfo[] {
  const rows = db.prepare("SELECT info FROM lists").all() as { info: string }[];
  const found = new Map(rows.map((r) => JSON.parse(r.info) as ListInfo).map((l) => [l.list, l]));
  return LISTS.map((l) => found.get(l) ?? { list: l, title: LIST_TITLES[l], entries: 0, files: [] });
}

export function walletsFor(db: DatabaseSync, key: string): { currency: string; address: string; entry_id: number }[] {
  return db.prepare("SELECT currency, address, entry_id FROM wallets WHERE address_key = ? ORDER BY entry_id").all(key) as { currency: string; address: string; entry_id: number }[];
}

/** The dataset's index(): every entry in memory, in entry_id order, with the name index over them. */
export function buildIndex(db: DatabaseSync): SanctionsIndex {
  const rows = db.prepare("SELECT record FROM entries ORDER BY entry_id").all() as { record: string }[];
  return new SanctionsIndex(rows.map((r) => JSON.parse(r.record) as Entry));
}
