// A parameter as JSON Schema, with a description that says what is allowed: the OpenAPI document, the MCP tools
// and the search cards describe parameters alike.
import { describeAllowed, defaultValue, exampleValue, type ParamSpec } from "./params.ts";

export function paramSchema(spec: ParamSpec, name = "value"): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  if (spec.type === "array") {
    s.type = "array";
    s.items = { type: spec.items?.type ?? "string", ...(spec.items?.enum ? { enum: spec.items.enum } : {}), ...(spec.items?.pattern ? { pattern: spec.items.pattern } : {}) };
    if (spec.maxItems) s.maxItems = spec.maxItems;
  } else if (spec.format === "latitude" || spec.format === "longitude") {
    s.type = "number";
    s.minimum = spec.format === "latitude" ? -90 : -180;
    s.maximum = spec.format === "latitude" ? 90 : 180;
  } else {
    s.type = spec.type;
    if (spec.format === "date") s.format = "date";
    else if (spec.format) s["x-format"] = spec.format;
  }
  for (const k of ["minimum", "maximum", "minLength", "maxLength", "pattern", "enum"] as const) if (spec[k] !== undefined) s[k] = spec[k];
  const d = typeof spec.default === "string" && spec.default.startsWith("today") ? undefined : defaultValue(spec);
  if (d !== undefined) s.default = d;
  if (spec.example !== undefined) s.examples = [exampleValue(name, spec, spec.example)];
  return s;
}

export function paramDescription(spec: ParamSpec): string {
  const rel = typeof spec.default === "string" && spec.default.startsWith("today") ? ` Default: ${spec.default}.` : "";
  return `${spec.description}${rel} Allowed: ${describeAllowed(spec)}.`;
}
