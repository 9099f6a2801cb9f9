// Query parameters: validated and coerced from the endpoint file, so a plugin or an upstream template only
// ever sees clean, typed values. Every refusal names the parameter and says what is allowed.
import { badParam } from "../basics/problem.ts";
import { domainHost, isIpAddress } from "./formats.ts";
import { parseIsoDay, relativeDay } from "../basics/dates.ts";
import { clock } from "../basics/clock.ts";
import { checkUrl, SafeFetchError } from "../upstream/url-gate.ts";

export interface ParamSpec {
  type: "string" | "integer" | "number" | "boolean" | "array";
  format?: "date" | "latitude" | "longitude" | "uk-postcode" | "email" | "ipv4-or-ipv6" | "domain" | "public-url";
  description: string;
  required?: boolean;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  /** What the pattern allows, in words, for the refusal ("15 digits, spaces and dashes ignored"). */
  allowed?: string;
  /** Dates: the earliest and latest day accepted, as YYYY-MM-DD or relative to today ("today-90d"). */
  earliest?: string;
  latest?: string;
  /** Dates: another date parameter this one may not be before, when both are given. */
  not_before?: string;
  enum?: unknown[];
  items?: { type?: "string" | "integer"; enum?: unknown[]; pattern?: string; allowed?: string };
  maxItems?: number;
  case?: "upper" | "lower";
  example?: unknown;
}

export type ParamValues = Record<string, unknown>;
export type RawQuery = Record<string, unknown>;

const UK_POSTCODE = /^([A-Z]{1,2}[0-9][A-Z0-9]?) ?([0-9][A-Z]{2})$/;
const MAX_VALUE_LENGTH = 2_000;

/** A date bound as YYYY-MM-DD: a fixed day, or one relative to today. */
const dayOf = (bound: string) => relativeDay(bound, clock.today()) ?? bound;

function dateRange(spec: ParamSpec): string {
  if (spec.earliest && spec.latest) return `, from ${dayOf(spec.earliest)} to ${dayOf(spec.latest)}`;
  if (spec.earliest) return `, ${dayOf(spec.earliest)} or later`;
  if (spec.latest) return `, ${dayOf(spec.latest)} or earlier`;
  return "";
}

export function describeAllowed(spec: ParamSpec): string {
  if (spec.enum) return `one of ${spec.enum.join(", ")}`;
  if (spec.allowed) return spec.allowed;
  if (spec.type === "array") {
    const count = spec.maxItems ? `1 to ${spec.maxItems}` : "one or more";
    const each = spec.items?.enum ? `, each one of ${spec.items.enum.join(", ")}` : spec.items?.allowed ? `, each ${spec.items.allowed}`
      : spec.items?.pattern ? `, each matching ${spec.items.pattern}` : "";
    return `a comma-separated list of ${count} ${spec.items?.type === "integer" ? "whole numbers" : "items"}${each}`;
  }
  switch (spec.format) {
    case "date": return `a date as YYYY-MM-DD${dateRange(spec)}`;
    case "latitude": return "a latitude in decimal degrees, -90 to 90";
    case "longitude": return "a longitude in decimal degrees, -180 to 180";
    case "uk-postcode": return "a UK postcode such as SW1A 1AA";
    case "domain": return "a domain name such as example.com, or a URL holding one";
    case "ipv4-or-ipv6": return "an IPv4 or IPv6 address";
    case "public-url": return "an http or https URL of a public site";
  }
  const range = spec.minimum !== undefined && spec.maximum !== undefined ? ` from ${spec.minimum} to ${spec.maximum}`
    : spec.minimum !== undefined ? ` of at least ${spec.minimum}` : spec.maximum !== undefined ? ` of at most ${spec.maximum}` : "";
  if (spec.type === "integer") return `a whole number${range}`;
  if (spec.type === "number") return `a number${range}`;
  if (spec.type === "boolean") return "true or false (1 or 0)";
  if (spec.pattern) return `text matching ${spec.pattern}`;
  return "text";
}

function coerceOne(name: string, spec: ParamSpec, raw: string): unknown {
  let text = raw.trim();
  if (spec.case === "upper") text = text.toUpperCase();
  if (spec.case === "lower") text = text.toLowerCase();
  const fail = (why?: string) => badParam(name, `${name} must be ${describeAllowed(spec)}${why ? `; ${why}` : ""} (got "${raw.slice(0, 80)}").`);

  let value: unknown = text;
  switch (spec.type) {
    case "integer":
      if (!/^[+-]?\d+$/.test(text)) throw fail();
      value = Number(text);
      // Past 2^53 a whole number is no longer exact (and 1 followed by 400 zeros is Infinity).
      if (!Number.isSafeInteger(value)) throw fail("that is too large");
      break;
    case "number":
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw fail();
      value = Number(text);
      if (!Number.isFinite(value)) throw fail("that is too large");
      break;
    case "boolean":
      if (/^(true|1|yes)$/i.test(text)) value = true;
      else if (/^(false|0|no)$/i.test(text)) value = false;
      else throw fail();
      break;
    case "string":
      if (spec.format === "date") {
        if (!parseIsoDay(text)) throw fail(/^\d{4}-\d{2}-\d{2}$/.test(text) ? "that day does not exist" : undefined);
        if ((spec.earliest && text < dayOf(spec.earliest)) || (spec.latest && text > dayOf(spec.latest))) throw fail();
      } else if (spec.format === "latitude" || spec.format === "longitude") {
        if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) throw fail();
        value = Number(text);
      } else if (spec.format === "domain") {
        if (!domainHost(text)) throw fail();
      } else if (spec.format === "ipv4-or-ipv6") {
        if (!isIpAddress(text)) throw fail();
      } else if (spec.format === "uk-postcode") {
        const m = UK_POSTCODE.exec(text.toUpperCase().replace(/\s+/g, " "));
        const compact = text.toUpperCase().replace(/\s+/g, "");
        const m2 = m ?? UK_POSTCODE.exec(compact);
        if (!m2) throw fail();
        value = `${m2[1]} ${m2[2]}`;
      } else if (spec.format === "public-url") {
        // A caller's URL the service will fetch: refused here (before payment) when it can only be unsafe.
        try {
          value = checkUrl(text).href;
        } catch (e) {
          if (e instanceof SafeFetchError) throw fail(`it ${e.message}`);
          throw e;
        }
      }
      break;
  }
  // A coordinate is in range whatever the parameter's type (a number-typed one also takes 1e26).
  if (spec.format === "latitude" || spec.format === "longitude") {
    if (typeof value !== "number" || !(Math.abs(value) <= (spec.format === "latitude" ? 90 : 180))) throw fail();
  }
  if (typeof value === "number") {
    if (spec.minimum !== undefined && value < spec.minimum) throw fail();
    if (spec.maximum !== undefined && value > spec.maximum) throw fail();
  }
  if (typeof value === "string") {
    if (spec.minLength !== undefined && value.length < spec.minLength) throw fail(`at least ${spec.minLength} characters`);
    if (value.length > (spec.maxLength ?? MAX_VALUE_LENGTH)) throw fail(`at most ${spec.maxLength ?? MAX_VALUE_LENGTH} characters`);
    if (spec.pattern && !new RegExp(spec.pattern, "u").test(value)) throw fail();
  }
  if (spec.enum && !spec.enum.includes(value)) throw fail();
  return value;
}

function coerceList(name: string, spec: ParamSpec, raw: string): unknown[] {
  const parts = raw.split(",").map((s) => s.trim()).filter(Boolean);
  // Only commas and spaces: given, but no item an upstream could be asked about.
  if (!parts.length) throw badParam(name, `${name} must be ${describeAllowed(spec)}; it has no item (got "${raw.slice(0, 80)}").`);
  if (spec.maxItems !== undefined && parts.length > spec.maxItems) {
    throw badParam(name, `${name} takes at most ${spec.maxItems} items (got ${parts.length}).`);
  }
  const itemSpec: ParamSpec = { type: spec.items?.type ?? "string", enum: spec.items?.enum, pattern: spec.items?.pattern, case: spec.case, description: "" };
  return parts.map((p, i) => {
    try {
      return coerceOne(name, itemSpec, p);
    } catch {
      throw badParam(name, `${name} item ${i + 1} is not valid: ${name} must be ${describeAllowed(spec)} (got "${p.slice(0, 80)}").`);
    }
  });
}

/**
 * An example value as the parameter's JSON Schema types it: what the endpoint would make of it ("gbp" -> "GBP",
 * "1" -> true, "a,b" -> ["a", "b"]), so what search_apis and the tool schemas show validates against them. Bounds
 * relative to today are not checked (an example's date may be older than a rolling window); a value the parameter
 * would refuse stays as written.
 */
export function exampleValue(name: string, spec: ParamSpec, raw: unknown): unknown {
  if (raw === undefined || raw === null) return raw;
  const text = Array.isArray(raw) ? raw.join(",") : String(raw);
  const relaxed: ParamSpec = spec.format === "date" ? { ...spec, earliest: undefined, latest: undefined } : spec;
  try {
    return spec.type === "array" ? coerceList(name, relaxed, text) : coerceOne(name, relaxed, text);
  } catch {
    return raw;
  }
}

/** An example's parameters, each typed by exampleValue; names the endpoint does not declare are kept as given. */
export function exampleValues(specs: Record<string, ParamSpec>, params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).map(([name, v]) => [name, Object.hasOwn(specs, name) ? exampleValue(name, specs[name], v) : v]));
}

export function defaultValue(spec: ParamSpec): unknown {
  if (typeof spec.default === "string" && spec.format === "date") return relativeDay(spec.default, clock.today()) ?? spec.default;
  if (spec.type === "array" && typeof spec.default === "string") return spec.default.split(",");
  return spec.default;
}

/**
 * Validates a raw query against the declared parameters. Unknown names are refused unless the endpoint
 * takes free-form filters; those are passed through as strings in `extra`.
 */
export function parseParams(
  specs: Record<string, ParamSpec>,
  query: RawQuery,
  freeForm = false,
): { values: ParamValues; extra: Record<string, string> } {
  const values: ParamValues = {};
  const extra: Record<string, string> = {};
  for (const [name, raw] of Object.entries(query)) {
    if (Object.hasOwn(specs, name)) continue;
    if (!freeForm) {
      const known = Object.keys(specs);
      throw badParam(name, `Unknown parameter ${name}. ${known.length ? `This endpoint takes: ${known.join(", ")}.` : "This endpoint takes no parameters."}`, "unknown_parameter");
    }
    if (typeof raw !== "string" || !/^[A-Za-z][A-Za-z0-9_.-]*$/.test(name)) throw badParam(name, `Filter ${name} must be given once, as text.`);
    extra[name] = raw;
  }
  for (const [name, spec] of Object.entries(specs)) {
    let raw = query[name];
    // A list given as a JSON array (over MCP) is given even when empty: [] is refused, not read as "use the default".
    const jsonList = Array.isArray(raw) && spec.type === "array";
    if (jsonList) raw = (raw as unknown[]).join(",");
    if (Array.isArray(raw)) throw badParam(name, `${name} was given more than once; give it once.`);
    if (raw !== undefined && typeof raw !== "string") raw = String(raw);
    if (raw === undefined || (!jsonList && (raw as string).trim() === "")) {
      if (spec.required) throw badParam(name, `${name} is required: ${spec.description}`, "missing_parameter");
      const d = defaultValue(spec);
      if (d !== undefined) values[name] = d;
      continue;
    }
    values[name] = spec.type === "array" ? coerceList(name, spec, raw as string) : coerceOne(name, spec, raw as string);
  }
  for (const [name, spec] of Object.entries(specs)) {
    const other = spec.not_before;
    if (other && values[name] !== undefined && values[other] !== undefined && (values[name] as string) < (values[other] as string)) {
      throw badParam(name, `${name} cannot be before ${other} (${values[other]}); got ${values[name]}.`);
    }
  }
  return { values, extra };
}
