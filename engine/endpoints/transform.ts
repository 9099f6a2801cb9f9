// JSONata transforms, with a few helpers for the shapes upstreams really send.
// In an expression: $params (validated query), $vars (the endpoint's constants), $today (YYYY-MM-DD), $failed (what went
// wrong with each optional step that failed, by its name; {} when none did) and:
//   $londonDay(instant) the Europe/London day of an instant ("2026-04-21T23:00:00.000Z" -> "2026-04-22")
//   $boeDate(day)   "2025-08-01" -> "01/Aug/2025", the Bank of England database's date form
//   $isoDay(text)   "02 Jan 1975", "22-04-2026", "2025-01-02T06:00:00Z" -> "YYYY-MM-DD" (null if unreadable)
//   $num(text)      "4.25" -> 4.25; "", "..", "-", "x" -> null
//   $lastN(array,n) the last n items
//   $changes(array, field)  the items where `field` differs from the item before (the first item included)
//   $period(text)   statistical periods: "2025 SEP" -> "2025-09", "2025 Q3" -> "2025-Q3", "2025" -> "2025"
//   $jsonstat(doc)  a JSON-stat 2.0 dataset as rows: { <dimension>: <category code>, ..., value, status } (engine/endpoints/jsonstat.ts)
//   $distanceKm(lat1, lng1, lat2, lng2)  great-circle (haversine) distance in kilometres
//   $invertedText(index)  text from an inverted index { word: [positions] } (OpenAlex abstracts); null if none
//   $htmlText(html) HTML (also HTML-escaped HTML) as plain text: tags dropped, entities decoded, a line per
//                   paragraph or break (null when nothing is left)
//   $zonedInstant(text, zone)  a local date-time without offset ("2026-05-29T14:53:00") in an IANA zone
//                   ("Europe/London") -> ISO 8601 with that zone's offset then ("2026-05-29T14:53:00+01:00")
import jsonata from "jsonata";
import { isoDay } from "../basics/dates.ts";
import { clock, clockFunctions } from "../basics/clock.ts";
import { registerHelpers } from "./transform-helpers.ts";
import { jsonataError } from "./registry-checks.ts";

export interface CompiledTransform {
  evaluate(input: unknown, bindings: { params: Record<string, unknown>; vars: Record<string, unknown>; failed?: Record<string, string> }): Promise<unknown>;
}

/**
 * A transform, with the group's shared functions (`functions:` in _group.yaml, each a JSONata function) bound
 * by name before it runs. A syntax error names its line and column in the transform (or the function).
 * lazy: compiled by its first evaluation (the server's start-up compiles none; a syntax error is that call's 500).
 */
export function compileTransform(source: string, functions: Record<string, string> = {}, opts: { lazy?: boolean } = {}): CompiledTransform {
  if (opts.lazy) {
    let compiled: CompiledTransform | undefined;
    return { evaluate: async (input, b) => (compiled ??= compileTransform(source, functions)).evaluate(input, b) };
  }
  for (const [name, fn] of Object.entries(functions)) {
    try {
      jsonata(fn);
    } catch (e) {
      throw new Error(`the group's function ${name}: ${jsonataError(fn, e)}`);
    }
  }
  const prefix = Object.keys(functions).length
    ? `(\n${Object.entries(functions).map(([name, fn]) => `$${name} := ${fn};`).join("\n")}\n`
    : "";
  let expr: jsonata.Expression;
  try {
    expr = jsonata(prefix ? `${prefix}${source}\n)` : source);
  } catch (e) {
    const err = e as { position?: number };
    if (typeof err.position === "number") err.position -= prefix.length;
    throw new Error(jsonataError(source, err));
  }
  registerHelpers(expr);
  return {
    evaluate: (input, b) => expr.evaluate(input, { failed: {}, ...b, today: isoDay(clock.today()), ...clockFunctions }),
  };
}

/** Deep-copies JSONata's output into plain JSON (it marks sequences with extra properties). */
export function plain(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}
