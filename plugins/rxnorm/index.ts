// rxnorm ndc: an NDC in any of its printed forms, read through RxNav's getNDCStatus. RxNav takes the 11-digit
// CMS form (or a hyphenated 10-digit one); a 10-digit NDC written without hyphens could be any of the three
// 10-digit layouts, so each 11-digit reading is asked for and the one RxNav knows is answered.
import { Problem } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

/** The 11-digit forms an NDC may stand for (one, except for 10 bare digits: three). */
export function ndc11Candidates(input: string): string[] {
  const s = input.trim();
  let m = /^(\d{4,5})-(\d{3,4})-(\d{1,2})$/.exec(s);
  if (m) {
    const [, a, b, c] = m;
    if (a.length + b.length + c.length === 11) return [a + b + c];
    if (a.length + b.length + c.length !== 10) return [];
    return [a.padStart(5, "0") + b.padStart(4, "0") + c.padStart(2, "0")];
  }
  if (/^\d{11}$/.test(s)) return [s];
  if (/^\d{10}$/.test(s)) return [`0${s}`, `${s.slice(0, 5)}0${s.slice(5)}`, `${s.slice(0, 9)}0${s.slice(9)}`];
  return [];
}

interface NdcStatusBody { ndcStatus: { ndc11: string; status: string } }

export async function ndcStatus(ctx: PluginContext): Promise<unknown> {
  const ndc = String(ctx.params.ndc);
  const candidates = ndc11Candidates(ndc);
  const bodies = (await Promise.all(candidates.map((c) =>
    ctx.fetch({ source: "rxnav", path: "/REST/ndcstatus.json", query: { ndc: c }, cacheMs: 86_400_000, expect: { test: "$exists(ndcStatus.status)" } })))) as NdcStatusBody[];
  const known = bodies.filter((b) => b.ndcStatus.status.toUpperCase() !== "UNKNOWN");
  if (!known.length) {
    throw new Problem({ status: 404, code: "not_found", param: "ndc",
      detail: `RxNorm does not know the NDC ${ndc}${candidates.length > 1 ? ` (tried it as ${candidates.join(", ")})` : ""}.` });
  }
  return { ndc, candidates, status: known[0], also: known.slice(1) };
}
