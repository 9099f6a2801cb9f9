// Typed answers: every endpoint's `data` has a JSON Schema, declared in its YAML (`output:`) or derived from its
// examples' answers and kept in endpoints/<group>/answers/<operation>.json (`npm run answers` writes them). It is the
// OpenAPI 200 schema and the MCP tool's outputSchema; the example tests check that a derived one is still what the
// examples give, and every answer against a declared one.
// Derived schemas say what every example showed: the type of each field, which fields every answer has, the items of
// lists. A field may also be null (an upstream can leave any value out), one only ever null may be anything, and
// objects may gain fields later.
import fs from "node:fs";
import path from "node:path";

export type JsonSchema = Record<string, unknown>;

// Numbers are "number": a value the examples showed whole (a percentage, a price) may have a fraction in another answer.
const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/**
 * The schema that every sample satisfies, as tight as the samples allow; but the echo of the request (`query`, see
 * docs/answers.md) requires none of its fields, as they depend on which parameters a caller gives (an MCP client
 * checks structuredContent against this schema: a call without an optional parameter must pass).
 */
export function inferSchema(samples: unknown[], name = ""): JsonSchema {
  const present = samples.filter((s) => s !== undefined);
  const types = new Set(present.map(typeOf));
  if (!present.length) return {};
  const schema: JsonSchema = {};
  const nonNull = [...types].filter((t) => t !== "null");
  // Only ever null in the examples: its type is not known, so any value passes.
  if (nonNull.length === 0) return {};
  schema.type = nonNull.length === 1 ? [nonNull[0], "null"] : [...nonNull, "null"];
  if (nonNull.length === 1 && nonNull[0] === "object") {
    const objects = present.filter((s) => typeOf(s) === "object") as Record<string, unknown>[];
    const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))].sort();
    schema.properties = Object.fromEntries(keys.map((k) => [k, inferSchema(objects.map((o) => o[k]), k)]));
    const required = name === "query" ? [] : keys.filter((k) => objects.every((o) => k in o));
    if (required.length) schema.required = required;
  }
  if (nonNull.length === 1 && nonNull[0] === "array") {
    const items = (present.filter(Array.isArray) as unknown[][]).flat();
    if (items.length) schema.items = inferSchema(items);
  }
  return schema;
}

/** endpoints/<group>/answers/<operation>.json, beside the endpoint file. */
export function answerSchemaFile(groupDir: string, operation: string): string {
  return path.join(groupDir, "answers", `${operation}.json`);
}

/** The endpoint's answer schema: declared in its YAML, else the derived file, else undefined (the tests say so). */
export function readAnswerSchema(file: string, declared: unknown): JsonSchema | undefined {
  if (declared && typeof declared === "object") return declared as JsonSchema;
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as JsonSchema) : undefined;
}

/**
 * Gives the endpoint its `output`: the answer schema read now, or (lazy) when first asked for, once (the server's
 * start-up reads none of the files; OpenAPI and the MCP tool list ask when they are first built).
 */
export function withAnswerSchema<T extends { output?: JsonSchema }>(endpoint: T, file: string, declared: unknown, lazy: boolean): T {
  if (!lazy) return Object.assign(endpoint, { output: readAnswerSchema(file, declared) });
  let read: { schema: JsonSchema | undefined } | undefined;
  return Object.defineProperty(endpoint, "output", { enumerable: true, configurable: true, get: () => (read ??= { schema: readAnswerSchema(file, declared) }).schema });
}

/** The answer schema file's content for these answers. */
export function derivedAnswerSchema(samples: unknown[]): JsonSchema {
  return { $comment: "Derived from the endpoint's examples by `npm run answers`; edit the examples, not this file.", ...inferSchema(samples) };
}

export function writeAnswerSchema(file: string, samples: unknown[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(derivedAnswerSchema(samples), null, 2)}\n`);
}
