// The sanctions endpoints: screen (all lists or some), screen-uk, screen-us, entry, lists and wallet-screen, all
// read from the local "sanctions" dataset.
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import type { DatasetHandle } from "../../engine/datasets/types.ts";
import { Problem } from "../../engine/basics/problem.ts";
import definition, { FILES } from "./sanctions.dataset.ts";
import { freshness, staleWarnings } from "./freshness.ts";
import type { SanctionsIndex } from "./matcher.ts";
import { readEntry, readLists, walletsFor, type ListInfo } from "./store.ts";
import { addressKind } from "./wallets.ts";
import { LISTS, type EntryType, type ListCode } from "./types.ts";

export const NOTICE = "Potential matches only: a match means a name resembles a listed one, not that it is the listed person or company. Confirm every match against the official list record (dates of birth, nationality, identifiers, addresses) before acting.";

const LIST_SOURCE: Record<ListCode, string> = { "us-ofac": "ofac", uk: "fcdo", eu: "eu-fsf", un: "un-sc" };

function open(ctx: PluginContext): DatasetHandle<SanctionsIndex> {
  return ctx.datasets.use<SanctionsIndex>("sanctions");
}

/** Records where each list used came from: its publisher's official URL and when this copy was loaded. */
function recordLists(ctx: PluginContext, handle: DatasetHandle<SanctionsIndex>, lists: ListInfo[]): void {
  const byName = new Map(Object.values(FILES).map((f) => [f.name, f]));
  for (const l of lists) {
    if (!l.entries) continue;
    const file = byName.get(l.files[0]?.file ?? "") as { path: string; source?: string } | undefined;
    const source = ctx.datasets.deps.upstream.source(file?.source ?? LIST_SOURCE[l.list]);
    ctx.record({ source: source.name, publisher: source.publisher, url: source.base_url + (file?.path ?? ""), fetched_at: handle.version.loaded_at, cached: false });
  }
}

/** Each list's date, whence it comes, and whether it is stale. */
function dated(handle: DatasetHandle<SanctionsIndex>, l: ListInfo) {
  return freshness(l, handle.version.loaded_at, definition.refresh);
}

function listsSearched(handle: DatasetHandle<SanctionsIndex>, lists: ListInfo[], wanted: ListCode[]) {
  return lists.filter((l) => wanted.includes(l.list) && l.entries > 0).map((l) => ({ list: l.list, mirrored: true, entries: l.entries, ...dated(handle, l) }))
    .concat(lists.filter((l) => wanted.includes(l.list) && !l.entries).map((l) => ({ list: l.list, mirrored: false, entries: 0, list_date: null, list_date_from: null, stale: null })));
}

/** The answer's warnings: lists not mirrored here, and lists stale or of unknown date. */
function warnings(searched: ReturnType<typeof listsSearched>): string[] {
  return [...searched.filter((l) => !l.mirrored).map((l) => `${l.list}: not mirrored on this server, so not searched.`), ...staleWarnings(searched.filter((l) => l.mirrored))];
}

function runScreen(ctx: PluginContext, wanted: ListCode[]) {
  const handle = open(ctx);
  const p = ctx.params as { name: string; type?: EntryType; birth_year?: number; country?: string; threshold: number };
  const lists = readLists(handle.db);
  recordLists(ctx, handle, lists.filter((l) => wanted.includes(l.list)));
  const { matches, total } = handle.index.screen({ name: p.name, type: p.type, birthYear: p.birth_year, country: p.country, lists: wanted, threshold: p.threshold });
  const searched = listsSearched(handle, lists, wanted);
  return {
    query: { name: p.name, type: p.type ?? null, birth_year: p.birth_year ?? null, country: p.country ?? null, lists: wanted, threshold: p.threshold },
    notice: NOTICE,
    match_count: total,
    matches,
    lists_searched: searched,
    warnings: warnings(searched),
    list_version: { loaded_at: handle.version.loaded_at, version: handle.version.version },
  };
}

export function screen(ctx: PluginContext) {
  const asked = ctx.params.lists as string[] | undefined;
  return runScreen(ctx, asked?.length ? LISTS.filter((l) => asked.includes(l)) : [...LISTS]);
}

export function screenUk(ctx: PluginContext) {
  return runScreen(ctx, ["uk"]);
}

export function screenUs(ctx: PluginContext) {
  return runScreen(ctx, ["us-ofac"]);
}

export function entry(ctx: PluginContext) {
  const { list, list_id: listId, entry_id: entryId } = ctx.params as { list?: ListCode; list_id?: string; entry_id?: number };
  const handle = open(ctx);
  const found = readEntry(handle.db, entryId !== undefined ? { entryId } : { list, listId });
  if (!found) {
    throw new Problem({ status: 404, code: "not_found", detail: entryId !== undefined ? `No entry ${entryId} in the loaded lists (entry ids come from screen results of the same list version).` : `No entry ${listId} on the ${list} list.` });
  }
  recordLists(ctx, handle, readLists(handle.db).filter((l) => l.list === found.entry.list));
  return { notice: NOTICE, entry_id: found.entry_id, ...found.entry, list_version: { loaded_at: handle.version.loaded_at, version: handle.version.version } };
}

export function lists(ctx: PluginContext) {
  const handle = open(ctx);
  const all = readLists(handle.db);
  recordLists(ctx, handle, all);
  return {
    notice: NOTICE,
    last_sync: handle.version.loaded_at,
    version: handle.version.version,
    lists: all.map((l) => ({ ...l, mirrored: l.entries > 0, ...(l.entries ? dated(handle, l) : { list_date: null, list_date_from: null, stale: null }),
      files: l.files.map((f) => ({ file: f.file, date: f.date ?? null, date_from: f.date_from ?? null })) })),
    total_entries: all.reduce((s, l) => s + l.entries, 0),
  };
}

export function walletScreen(ctx: PluginContext) {
  const address = String(ctx.params.address).trim();
  const handle = open(ctx);
  const all = readLists(handle.db);
  recordLists(ctx, handle, all.filter((l) => l.list === "us-ofac"));
  const { kind, key } = addressKind(address);
  const hits = walletsFor(handle.db, key).map((w) => {
    const found = readEntry(handle.db, { entryId: w.entry_id })!;
    return { currency: w.currency, address: w.address, list: found.entry.list, list_id: found.entry.list_id, entry_id: w.entry_id, name: found.entry.name,
      type: found.entry.type, programmes: found.entry.programmes };
  });
  const [us] = listsSearched(handle, all, ["us-ofac"]);
  return {
    address, kind, listed: hits.length > 0, notice: NOTICE, matches: hits,
    checked_against: { ...us, note: "Exact address match; EVM and bech32 addresses compare in any letter case, base58 addresses (BTC legacy, TRX...) exactly." },
    warnings: warnings([us]),
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["sanctions"], screen, screenUk, screenUs, entry, lists, walletScreen);
