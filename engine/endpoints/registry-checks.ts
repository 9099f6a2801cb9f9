// Start-up checks of an endpoint file beyond its JSON Schema, each naming the file where the bad value is written
// (the group's _group.yaml when the endpoint inherits it) and the key path: values that cannot pass their own
// parameter's checks, placeholders that name nothing, and schema errors without the noise of oneOf branches.
import type { ErrorObject } from "ajv";
import { parseParams, type ParamSpec } from "./params.ts";
import { Template } from "./template.ts";

/** The file that holds the value at a key path: the endpoint's own file if it sets it, else the group's. */
export function fileOf(path: string[], own: Record<string, unknown>, endpointFile: string, groupFile: string): string {
  let node: unknown = own;
  for (const key of path) {
    if (node === null || typeof node !== "object" || !(key in (node as object))) return groupFile;
    node = (node as Record<string, unknown>)[key];
  }
  return endpointFile;
}

/** ajv's errors as sentences, without the alternatives a oneOf/anyOf tried (the specific error says it). */
export function schemaErrors(errors: ErrorObject[] | null | undefined, where: (path: string[]) => string): string[] {
  const all = errors ?? [];
  const specific = all.filter((e) => !["oneOf", "anyOf", "if", "then", "else"].includes(e.keyword));
  const shown = specific.length ? specific : all;
  // Of the type errors a oneOf branch raised at one path, one is enough.
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of shown) {
    const path = e.instancePath.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    const at = path.length ? path.join(".") : "(top level)";
    const params = e.params as Record<string, unknown>;
    const detail = e.keyword === "additionalProperties" ? `has an unknown key "${params.additionalProperty}"`
      : e.keyword === "unevaluatedProperties" ? `has an unknown key "${params.unevaluatedProperty}"`
      : e.keyword === "enum" ? `must be one of ${(params.allowedValues as unknown[]).join(", ")}`
      : e.keyword === "not" && e.schemaPath.startsWith("#/oneOf/") ? "must declare either `upstream` or `plugin`, not both"
      : e.message ?? "is not valid";
    const line = `${where(path)}: ${at} ${detail}`;
    if (!seen.has(line)) out.push(line);
    seen.add(line);
  }
  return out;
}

/** Every enum value, default and example of a parameter must pass the parameter's own checks. */
export function checkParamValues(name: string, spec: ParamSpec): string[] {
  const problems: string[] = [];
  const passes = (value: unknown, what: string) => {
    const text = Array.isArray(value) ? value.join(",") : String(value);
    try {
      const parsed = parseParams({ [name]: { ...spec, enum: undefined, default: undefined } }, { [name]: text }).values[name];
      if (spec.enum && what !== "an enum value" && !spec.enum.some((v) => v === parsed || (Array.isArray(parsed) && parsed.includes(v)))) {
        problems.push(`params.${name}: ${what} ${JSON.stringify(value)} is not in its enum`);
      }
      if (what === "an enum value" && parsed !== value) problems.push(`params.${name}: enum value ${JSON.stringify(value)} can never match: a ${spec.type} parameter reads it as ${JSON.stringify(parsed)}`);
    } catch (e) {
      problems.push(`params.${name}: ${what} ${JSON.stringify(value)} does not pass the parameter's own checks (${(e as Error).message})`);
    }
  };
  for (const v of spec.enum ?? []) passes(v, "an enum value");
  if (spec.default !== undefined && !(typeof spec.default === "string" && spec.default.startsWith("today"))) passes(spec.default, "the default");
  if (spec.example !== undefined) passes(spec.example, "the example");
  return problems;
}

/** A detail text's {placeholders} must name a parameter or a var; a typo would render as nothing. */
export function checkPlaceholders(text: string | undefined, where: string, params: Record<string, unknown>, vars: Record<string, unknown>): string[] {
  if (!text) return [];
  let t: Template;
  try {
    t = new Template(text);
  } catch (e) {
    return [`${where}: ${(e as Error).message}`];
  }
  return t.names.filter((n) => !(n in params) && !(n in vars)).map((n) => `${where}: "{${n}}" names neither a parameter nor a var (parameters: ${Object.keys(params).join(", ") || "none"})`);
}

/** A JSONata error with the line and column it points at. */
export function jsonataError(source: string, e: unknown): string {
  const err = e as { message?: string; position?: number; token?: string };
  if (typeof err.position !== "number") return err.message ?? String(e);
  const before = source.slice(0, err.position);
  const line = before.split("\n").length;
  const column = err.position - before.lastIndexOf("\n");
  return `${err.message} (line ${line}, column ${column}${err.token ? `, at "${err.token}"` : ""})`;
}
