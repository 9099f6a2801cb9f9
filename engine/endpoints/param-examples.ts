// An example value for each parameter, so that a client can make a first valid call from a description alone
// (OpenAPI, the 402's Bazaar metadata, the llms files): taken from the endpoint's answered examples first, then the
// parameter's own `example:`, then its other examples (an example that answers 400 is a bad value on purpose).
import { exampleValue } from "./params.ts";
import type { Endpoint } from "./model.ts";

const answered = (status: number | undefined) => (status ?? 200) < 300;

export function paramExamples(e: Endpoint): Record<string, unknown> {
  const own = Object.entries(e.params).filter(([, s]) => s.example !== undefined).map(([name, s]) => ({ [name]: s.example }));
  const sources = [
    ...e.examples.filter((x) => answered(x.status)).map((x) => x.params),
    ...own,
    ...e.examples.filter((x) => !answered(x.status) && x.status !== 400).map((x) => x.params),
  ];
  const out: Record<string, unknown> = {};
  for (const params of sources) {
    for (const [name, value] of Object.entries(params)) {
      if (Object.hasOwn(e.params, name) && !(name in out) && value !== undefined && value !== null) out[name] = exampleValue(name, e.params[name], value);
    }
  }
  return out;
}

/**
 * The parameters of a first call: those of the endpoint's first answered example (a call known to work), with an
 * example for each required parameter it lacks and, when it gives no "give one of" set, the first set with examples.
 */
export function exampleCall(e: Endpoint): Record<string, unknown> {
  const all = paramExamples(e);
  const first = e.examples.find((x) => answered(x.status))?.params ?? {};
  const call = Object.fromEntries(Object.entries(first).filter(([n, v]) => Object.hasOwn(e.params, n) && v !== undefined && v !== null).map(([n, v]) => [n, exampleValue(n, e.params[n], v)]));
  const sets = [...(e.paramSets?.one_of ?? []), ...(e.paramSets?.any_of ?? [])];
  const set = sets.some((s) => s.every((p) => p in call)) ? [] : (sets.find((s) => s.every((p) => p in all)) ?? sets[0] ?? []);
  for (const n of [...Object.entries(e.params).filter(([, s]) => s.required).map(([n]) => n), ...set]) if (!(n in call) && n in all) call[n] = all[n];
  return call;
}

/** A parameter value as it goes in a query string (lists comma-separated, as the endpoints read them). */
export const queryValue = (v: unknown): string => (Array.isArray(v) ? v.join(",") : String(v));

export function exampleQuery(params: Record<string, unknown>): string {
  const q = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, queryValue(v)])).toString();
  return q ? `?${q}` : "";
}
