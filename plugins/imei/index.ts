// The imei group: IMEI validation (format and Luhn check) and device identification from the Osmocom TAC
// database (local dataset imei-tac). An unknown TAC is an answer (found: false), not an error.
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import { parseImei, type ParsedImei } from "./imei-number.ts";
import type { Device, TacIndex } from "./imei-tac.dataset.ts";

/** The endpoint files' pattern has refused anything that is not 14 to 16 digits, before any payment. */
const parsed = (raw: string): ParsedImei => parseImei(raw)!;

function tacDatabase(ctx: PluginContext): TacIndex {
  return ctx.dataset<TacIndex>("imei-tac").index;
}

function device(found: Device | undefined) {
  if (!found) return { found: false, brand: null, model: null, model_code: null, device_type: null, aliases: [] };
  const { brand, model, model_code, device_type, aliases } = found;
  return { found: true, brand, model, model_code, device_type, aliases };
}

function decoded(p: ParsedImei, db: TacIndex) {
  return {
    ...p,
    ...device(db.lookup(p.tac)),
    ...(p.valid ? {} : { note: `The check digit ${p.check_digit} does not match the Luhn check digit ${p.expected_check_digit}: the number is mistyped or not a genuine IMEI. The TAC was looked up anyway.` }),
  };
}

export function validate(ctx: PluginContext) {
  return parsed(ctx.params.imei as string);
}

export function decode(ctx: PluginContext) {
  const p = parsed(ctx.params.imei as string);
  return decoded(p, tacDatabase(ctx));
}

export function tac(ctx: PluginContext) {
  const code = ctx.params.tac as string;
  return { tac: code, ...device(tacDatabase(ctx).lookup(code)) };
}

export function batch(ctx: PluginContext) {
  const items = ctx.params.imeis as string[];
  const numbers = items.map(parsed);
  const db = tacDatabase(ctx);
  const results = numbers.map((p) => decoded(p, db));
  return { count: results.length, found: results.filter((r) => r.found).length, invalid: results.filter((r) => !r.valid).length, results };
}

export function coverage(ctx: PluginContext) {
  const handle = ctx.dataset<TacIndex>("imei-tac");
  const v = handle.version;
  return {
    ...handle.index.coverage,
    // The export carries no date of its own: the download's Last-Modified when the server sent one, else the load time.
    last_changed: v.data_dates?.last_changed ?? v.loaded_at,
    loaded_at: v.loaded_at,
    database: "Osmocom TAC database",
    licence: "CC BY-SA 3.0",
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["imei-tac"], decode, tac, batch, coverage);
