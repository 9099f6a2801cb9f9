// An example of an endpoint's answer `data`, for the 402's Bazaar metadata: a value of the endpoint's answer schema
// (one item per list), with the values its first answered example expects (`data.latest.value: 81.2`) put in:
// real values where the examples know them, a value of the right type elsewhere.
import type { Endpoint } from "./model.ts";

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; const?: unknown; format?: string };

const SAMPLES: Record<string, unknown> = { string: "text", integer: 1, number: 1.5, boolean: true, null: null };

function sample(schema: Schema | undefined): unknown {
  if (!schema) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const types = [schema.type ?? []].flat();
  const type = types.find((t) => t !== "null") ?? types[0];
  if (type === "object" || (!type && schema.properties)) {
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sample(s)]));
  }
  if (type === "array") return schema.items ? [sample(schema.items)] : [];
  if (type === "string" && schema.format === "date") return "2025-01-01";
  return type ? SAMPLES[type] : null;
}

/** `data.a.b[0].c` -> ["a", "b", 0, "c"]; undefined for what is not such a plain path into data. */
function dataPath(expr: string): (string | number)[] | undefined {
  if (!/^data(\.[A-Za-z_][\w]*|\[\d+\])+$/.test(expr)) return undefined;
  return [...expr.slice(4).matchAll(/\.([A-Za-z_]\w*)|\[(\d+)\]/g)].map((m) => (m[1] !== undefined ? m[1] : Number(m[2])));
}

/** Puts a value where the path says, when every step but the last already exists in the sample. */
function put(target: unknown, path: (string | number)[], value: unknown): void {
  let at = target as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) {
    const next = at?.[step];
    if (next === null || typeof next !== "object") return;
    at = next as Record<string | number, unknown>;
  }
  const last = path.at(-1)!;
  if (at && typeof at === "object" && (typeof last === "string" || Array.isArray(at))) at[last] = value;
}

export function exampleData(e: Endpoint): unknown {
  if (!e.output) return undefined;
  const data = sample(e.output as Schema);
  const answered = e.examples.find((x) => (x.status ?? 200) === 200 && x.expect);
  for (const [expr, value] of Object.entries(answered?.expect ?? {})) {
    const path = dataPath(expr);
    if (path?.length && value !== null) put(data, path, value);
  }
  return data;
}
