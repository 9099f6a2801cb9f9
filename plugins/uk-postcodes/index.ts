// uk-postcodes: lookup (a live postcode's record, else why it is gone: terminated in YYYY-MM) and validate (the
// shared postcode resolver: the local Code-Point Open copy first, then postcodes.io). Northern Ireland (BT)
// postcodes are refused by the endpoint files before any call (licence), except validate's format check.
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { resolvePostcode } from "../shared/postcodes.ts";

const DAY_MS = 86_400_000;
const UK_POSTCODE = /^([A-Z]{1,2}[0-9][A-Z0-9]?) ?([0-9][A-Z]{2})$/;
const NI_NOTE = "Northern Ireland (BT) postcodes are not served: their data needs a commercial licence from Land & Property Services.";

const isNotFound = (e: unknown) => e instanceof UpstreamError && e.status === 404;

export async function lookup(ctx: PluginContext): Promise<unknown> {
  const postcode = ctx.params.postcode as string;
  const compact = encodeURIComponent(postcode.replace(/\s+/g, ""));
  try {
    return await ctx.fetch({ source: "postcodes-io", path: `/postcodes/${compact}`, cacheMs: DAY_MS, expect: { test: "$exists(result.postcode)" } });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  let gone: { result?: { year_terminated?: number; month_terminated?: number; latitude?: number | null; longitude?: number | null } };
  try {
    gone = (await ctx.fetch({ source: "postcodes-io", path: `/terminated_postcodes/${compact}`, cacheMs: DAY_MS, expect: { test: "$exists(result.postcode)" } })) as typeof gone;
  } catch (e) {
    if (!isNotFound(e)) throw e;
    throw new Problem({ status: 404, code: "not_found", param: "postcode", detail: `postcode: ${postcode} is not a live or terminated postcode in the ONS Postcode Directory (it may be mistyped).` });
  }
  const r = gone?.result;
  const month = r?.year_terminated ? `${r.year_terminated}-${String(r.month_terminated ?? 1).padStart(2, "0")}` : null;
  throw new Problem({
    status: 404, code: "not_found", param: "postcode",
    detail: `postcode: ${postcode} is no longer in use${month ? `: it was terminated in ${month}` : ""}.`,
    extra: { terminated: { postcode, month, location: typeof r?.latitude === "number" && typeof r?.longitude === "number" ? { lat: r.latitude, lng: r.longitude } : null } },
  });
}

export async function validate(ctx: PluginContext): Promise<unknown> {
  const given = ctx.params.postcode as string;
  const m = UK_POSTCODE.exec(given.toUpperCase().replace(/\s+/g, " ").trim()) ?? UK_POSTCODE.exec(given.toUpperCase().replace(/\s+/g, ""));
  if (!m) {
    return { query: given, postcode: null, format_valid: false, exists: false, location: null, checked_with: null,
      note: "Not the shape of a UK postcode (an outward code such as SW1A, a space, then a digit and two letters)." };
  }
  const postcode = `${m[1]} ${m[2]}`;
  if (postcode.startsWith("BT")) {
    return { query: given, postcode, format_valid: true, exists: null, location: null, checked_with: null, note: NI_NOTE };
  }
  try {
    const found = await resolvePostcode({ ...ctx, params: { ...ctx.params, postcode } }, "postcode");
    return { query: given, postcode: found.postcode, format_valid: true, exists: true, location: { lat: found.latitude, lng: found.longitude }, checked_with: found.located_by };
  } catch (e) {
    if (!(e instanceof Problem) || e.status !== 404) throw e;
    // The directory has the postcode but no grid location (Channel Islands, Isle of Man).
    const unlocated = /no grid location/.test(e.detail ?? "");
    return { query: given, postcode, format_valid: true, exists: unlocated, location: null, checked_with: "postcodes-io",
      ...(unlocated ? {} : { note: "Well formed, but not a live postcode in the ONS Postcode Directory (mistyped, terminated or never issued)." }) };
  }
}
