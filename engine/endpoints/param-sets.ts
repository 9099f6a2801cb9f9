// Parameters that go together, declared in the endpoint file so that a call missing one is refused (400) before
// any payment is asked for: `param_sets: { one_of: [[lat, lng], [postcode]] }` takes exactly one complete set,
// `any_of` at least one. A set is all or nothing (lat without lng is refused).
import { badParam } from "../basics/problem.ts";
import type { ParamValues } from "./params.ts";

export interface ParamSets {
  one_of?: string[][];
  any_of?: string[][];
}

const say = (set: string[]) => set.join(" and ");
const choices = (sets: string[][]) => sets.length === 2 ? `${say(sets[0])}, or ${say(sets[1])}` : `one of ${sets.map(say).join("; ")}`;

const give = (rule: ParamSets, sets: string[][]) => `Give ${rule.any_of && sets.length > 2 ? "at least " : ""}${choices(sets)}`;

/** The rule in words, as a refused call says it: "Give lat and lng, or postcode, not more than one of them." */
export function describeParamSets(rule: ParamSets): string {
  return `${give(rule, rule.one_of ?? rule.any_of ?? [])}${rule.one_of ? ", not more than one of them" : ""}.`;
}

export function checkParamSets(rule: ParamSets | undefined, values: ParamValues): void {
  if (!rule) return;
  const sets = rule.one_of ?? rule.any_of ?? [];
  const given = sets.filter((set) => set.some((p) => values[p] !== undefined));
  for (const set of given) {
    const missing = set.find((p) => values[p] === undefined);
    if (missing) throw badParam(missing, `${say(set)} go together: give ${missing} as well.`, "missing_parameter");
  }
  if (!given.length) {
    throw badParam(sets[0][0], `${give(rule, sets)}.`, "missing_parameter");
  }
  if (rule.one_of && given.length > 1) throw badParam(given[1][0], `${give(rule, sets)}, not more than one of them.`);
}

/** The names a rule uses that are not parameters of the endpoint (a mistake in the file). */
export function unknownInSets(rule: ParamSets | undefined, params: Record<string, unknown>): string[] {
  if (!rule) return [];
  return [...(rule.one_of ?? []), ...(rule.any_of ?? [])].flat().filter((p) => !(p in params));
}
