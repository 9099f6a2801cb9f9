// Loads every endpoint file, merges its group's defaults, validates it against schemas/ and compiles it.
// A bad file stops start-up with its path and the exact problem.
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import jsonata from "jsonata";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { deepMerge } from "./merge.ts";
import { Template } from "./template.ts";
import { compileTransform, type CompiledTransform } from "./transform.ts";
import { readSources, type Source } from "./sources.ts";
import type { ParamSpec } from "./params.ts";
import { unknownInSets, type ParamSets } from "./param-sets.ts";
import type { BodyFormat, CsvOptions } from "./parse-body.ts";
import type { PluginFn } from "./plugin.ts";

/** A daily free-call bucket. A call is free only when every bucket it draws from has room. */
export interface Bucket {
  /** "group:<group>" or "endpoint:<group>/<operation>" */
  id: string;
  anonymous: number;
  key: number;
}

export interface StatusRule { status: number; detail?: string; param?: string }

export interface Step {
  as?: string;
  source: string;
  path: Template;
  query: [string, Template][];
  headers: Record<string, string>;
  method: "GET" | "POST";
  /** POST: the JSON body template (strings are templates). */
  body?: unknown;
  /** What a real answer looks like: a regex on the raw body, an empty body allowed, a JSONata test on the parsed body. */
  expect?: { match?: RegExp; empty?: boolean };
  expectTest?: jsonata.Expression;
  format: BodyFormat;
  csv?: CsvOptions;
  cache?: string;
  statuses: Record<string, StatusRule>;
  reject: { match: RegExp; status: number; detail: Template; param?: string }[];
  precondition?: { test: jsonata.Expression; status: number; detail: Template; param?: string; early: boolean };
}

/** A recorded upstream answer, and what the request for it must look like. */
export interface Fixture {
  /** The sources.yaml source the request goes to; or `origin`, the site a caller's URL names (web-reader, seo-tools). */
  source?: string;
  origin?: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** HEAD only for origin fixtures (seo-tools redirects asks sites with HEAD). */
  method?: "GET" | "POST" | "HEAD";
  body?: unknown;
  file: string;
  status?: number;
  content_type?: string;
  reply_headers?: Record<string, string>;
}

export interface Example {
  title?: string;
  params: Record<string, unknown>;
  fixtures?: Fixture[];
  datasets?: string[];
  status?: number;
  expect?: Record<string, unknown>;
}

export interface Group {
  name: string;
  title: string;
  description: string;
  keywords: string[];
  /** The group-level bucket, when the group has one. */
  allowance?: { anonymous?: number; key?: number };
  attribution?: string;
  disclaimers: string[];
  endpoints: Endpoint[];
}

export interface Endpoint {
  group: string;
  operation: string;
  /** "<group>/<operation>" */
  key: string;
  /** GET path: /v1/<group>/<operation> */
  path: string;
  /** MCP tool name: <group>__<operation> */
  toolName: string;
  /** OpenAPI operationId: hyphens as underscores */
  operationId: string;
  file: string;
  summary: string;
  description: string;
  keywords: string[];
  price: number;
  /** The buckets a free call draws from (the group's and/or the endpoint's own). */
  buckets: Bucket[];
  vars: Record<string, unknown>;
  params: Record<string, ParamSpec>;
  paramSets?: ParamSets;
  freeForm: boolean;
  steps?: Step[];
  plugin?: { name: string; fn: PluginFn };
  transform?: CompiledTransform;
  transformSource?: string;
  attribution?: string;
  disclaimers: string[];
  examples: Example[];
  groupInfo: Group;
}

export interface Registry {
  sources: Map<string, Source>;
  groups: Map<string, Group>;
  endpoints: Map<string, Endpoint>;
  find(group: string, operation: string): Endpoint | undefined;
  byTool(toolName: string): Endpoint | undefined;
}

/** The default daily allowance where neither the group nor the endpoint file sets one. */
export const DEFAULT_ALLOWANCE = { anonymous: 50, key: 500 };

/**
 * An operator's override of a bucket's size: ALLOWANCE_<GROUP> or ALLOWANCE_<GROUP>__<OPERATION> (upper case,
 * hyphens as underscores) = "<without key>/<with key>", e.g. ALLOWANCE_BANK_OF_ENGLAND=200/2000.
 */
export function allowanceOverride(env: NodeJS.ProcessEnv, group: string, operation?: string): { anonymous: number; key: number } | undefined {
  const name = `ALLOWANCE_${group.toUpperCase().replace(/-/g, "_")}${operation ? `__${operation.toUpperCase().replace(/-/g, "_")}` : ""}`;
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw);
  if (!m) throw new Error(`${name} must be "<calls a day without a key>/<calls a day with a key>", such as 50/500 (got "${raw}")`);
  return { anonymous: Number(m[1]), key: Number(m[2]) };
}

export class RegistryError extends Error {}

function ajvErrors(file: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath || "(top level)";
    const extra = e.keyword === "additionalProperties" ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"`
      : e.keyword === "enum" ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(", ")})` : "";
    return `${file}: ${where} ${e.message}${extra}`;
  });
}

function schemaValidator(ajv: Ajv2020, rootDir: string, name: string): ValidateFunction {
  return ajv.compile(JSON.parse(fs.readFileSync(path.join(rootDir, "schemas", name), "utf8")));
}

async function loadPlugin(rootDir: string, name: string): Promise<PluginFn> {
  const [file, fnName] = name.split(".");
  const candidates = [path.join(rootDir, "plugins", `${file}.ts`), path.join(rootDir, "plugins", file, "index.ts")];
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error(`plugin file plugins/${file}.ts (or plugins/${file}/index.ts) does not exist`);
  const mod = (await import(found)) as Record<string, unknown>;
  if (typeof mod[fnName] !== "function") throw new Error(`plugins/${path.relative(path.join(rootDir, "plugins"), found)} exports no function "${fnName}"`);
  return mod[fnName] as PluginFn;
}

function compileStep(raw: Record<string, unknown>): Step {
  const statuses = (raw.statuses ?? {}) as Record<string, StatusRule>;
  const reject = (raw.reject ?? []) as { match: string; status: number; detail: string; param?: string }[];
  const pre = raw.precondition as { test: string; status: number; detail: string; param?: string } | undefined;
  const expect = raw.expect as { match?: string; empty?: boolean; test?: string } | undefined;
  return {
    as: raw.as as string | undefined,
    source: raw.source as string,
    path: new Template(raw.path as string),
    query: Object.entries((raw.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, new Template(String(v))]),
    headers: (raw.headers ?? {}) as Record<string, string>,
    method: (raw.method ?? "GET") as "GET" | "POST",
    body: raw.body,
    expect: expect ? { match: expect.match ? new RegExp(expect.match) : undefined, empty: expect.empty } : undefined,
    expectTest: expect?.test ? jsonata(expect.test) : undefined,
    format: (raw.format ?? "json") as BodyFormat,
    csv: raw.csv as CsvOptions | undefined,
    cache: raw.cache as string | undefined,
    statuses,
    reject: reject.map((r) => ({ match: new RegExp(r.match), status: r.status, detail: new Template(r.detail), param: r.param })),
    // A precondition that looks at the parameters only is checked before any payment is asked for.
    precondition: pre ? { test: jsonata(pre.test), status: pre.status, detail: new Template(pre.detail), param: pre.param, early: !/\$steps\b/.test(pre.test) && !/\$steps\b/.test(pre.detail) } : undefined,
  };
}

export async function loadRegistry(opts: { rootDir: string; endpointsDir: string; env?: NodeJS.ProcessEnv }): Promise<Registry> {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validateEndpoint = schemaValidator(ajv, opts.rootDir, "endpoint.schema.json");
  const validateGroup = schemaValidator(ajv, opts.rootDir, "group.schema.json");
  const validateSources = schemaValidator(ajv, opts.rootDir, "sources.schema.json");
  const problems: string[] = [];

  const sourcesFile = path.join(opts.rootDir, "sources.yaml");
  if (!validateSources(YAML.parse(fs.readFileSync(sourcesFile, "utf8")))) problems.push(...ajvErrors("sources.yaml", validateSources.errors));
  const sources = readSources(sourcesFile, opts.env);

  const groups = new Map<string, Group>();
  const endpoints = new Map<string, Endpoint>();
  const rel = (f: string) => path.relative(opts.rootDir, f);

  for (const groupName of fs.readdirSync(opts.endpointsDir).sort()) {
    const dir = path.join(opts.endpointsDir, groupName);
    if (!fs.statSync(dir).isDirectory()) continue;
    const groupFile = path.join(dir, "_group.yaml");
    if (!fs.existsSync(groupFile)) {
      problems.push(`${rel(dir)}: has no _group.yaml`);
      continue;
    }
    const groupRaw = parseYaml(groupFile, problems, rel);
    if (!groupRaw) continue;
    if (!validateGroup(groupRaw)) {
      problems.push(...ajvErrors(rel(groupFile), validateGroup.errors));
      continue;
    }
    const g = groupRaw as Record<string, unknown>;
    const group: Group = {
      name: groupName,
      title: g.title as string,
      description: g.description as string,
      keywords: (g.keywords ?? []) as string[],
      allowance: g.allowance as Group["allowance"],
      attribution: g.attribution as string | undefined,
      disclaimers: (g.disclaimers ?? []) as string[],
      endpoints: [],
    };
    try {
      group.allowance = allowanceOverride(opts.env ?? process.env, groupName) ?? group.allowance;
    } catch (e) {
      problems.push((e as Error).message);
    }
    groups.set(groupName, group);

    for (const fileName of fs.readdirSync(dir).sort()) {
      if (fileName === "_group.yaml" || !/\.ya?ml$/.test(fileName)) continue;
      const file = path.join(dir, fileName);
      const own = parseYaml(file, problems, rel);
      if (!own) continue;
      const raw = deepMerge<Record<string, unknown>>(g.defaults ?? {}, own);
      if (!validateEndpoint(raw)) {
        problems.push(...ajvErrors(rel(file), validateEndpoint.errors));
        continue;
      }
      try {
        const ep = await compileEndpoint(raw, group, file, opts.rootDir, sources, opts.env ?? process.env);
        if (`${ep.operation}.yaml` !== fileName && `${ep.operation}.yml` !== fileName) throw new Error(`operation "${ep.operation}" must match the file name`);
        group.endpoints.push(ep);
        endpoints.set(ep.key, ep);
      } catch (e) {
        problems.push(`${rel(file)}: ${(e as Error).message}`);
      }
    }
  }
  if (problems.length) throw new RegistryError(`Endpoint files are not valid:\n  ${problems.join("\n  ")}`);

  const byTool = new Map([...endpoints.values()].map((e) => [e.toolName, e]));
  return {
    sources,
    groups,
    endpoints,
    find: (group, operation) => endpoints.get(`${group}/${operation}`),
    byTool: (name) => byTool.get(name),
  };
}

function parseYaml(file: string, problems: string[], rel: (f: string) => string): unknown {
  try {
    return YAML.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    problems.push(`${rel(file)}: not valid YAML: ${(e as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

async function compileEndpoint(raw: Record<string, unknown>, group: Group, file: string, rootDir: string, sources: Map<string, Source>, env: NodeJS.ProcessEnv): Promise<Endpoint> {
  const operation = raw.operation as string;
  const params = (raw.params ?? {}) as Record<string, ParamSpec>;
  const vars = (raw.vars ?? {}) as Record<string, unknown>;
  const upstream = raw.upstream as Record<string, unknown> | Record<string, unknown>[] | undefined;
  const steps = upstream ? (Array.isArray(upstream) ? upstream : [upstream]).map(compileStep) : undefined;

  for (const [name, spec] of Object.entries(params)) {
    if (spec.enum && spec.default !== undefined && !spec.enum.includes(spec.default)) throw new Error(`params.${name}: default ${spec.default} is not in its enum`);
    if (spec.pattern) new RegExp(spec.pattern, "u");
    if (spec.items?.pattern) new RegExp(spec.items.pattern, "u");
    if (spec.not_before && params[spec.not_before]?.format !== "date") throw new Error(`params.${name}: not_before names ${spec.not_before}, which is not a date parameter`);
  }
  const paramSets = raw.param_sets as ParamSets | undefined;
  const strangers = unknownInSets(paramSets, params);
  if (strangers.length) throw new Error(`param_sets names ${strangers.join(", ")}, which ${strangers.length > 1 ? "are not parameters" : "is not a parameter"}`);
  const stepNames = new Set<string>();
  for (const step of steps ?? []) {
    if (!sources.has(step.source)) throw new Error(`upstream source "${step.source}" is not declared in sources.yaml`);
    for (const t of [step.path, ...step.query.map(([, q]) => q)]) {
      for (const n of t.names) if (!(n in params) && !(n in vars)) throw new Error(`template "${t.source}" uses {${n}}, which is neither a param nor a var`);
    }
    if (step.as) {
      if (stepNames.has(step.as)) throw new Error(`two upstream steps are named "${step.as}"`);
      stepNames.add(step.as);
    }
  }
  const declared = raw.allowance as { anonymous?: number; key?: number; with_group?: boolean } | undefined;
  const override = allowanceOverride(env, group.name, operation);
  const own = override ? { ...declared, ...override } : declared;
  const buckets: Bucket[] = [];
  if (group.allowance && own?.with_group !== false) buckets.push({ id: `group:${group.name}`, ...DEFAULT_ALLOWANCE, ...group.allowance });
  if (own) buckets.push({ id: `endpoint:${group.name}/${operation}`, anonymous: own.anonymous ?? DEFAULT_ALLOWANCE.anonymous, key: own.key ?? DEFAULT_ALLOWANCE.key });
  if (!buckets.length) buckets.push({ id: `group:${group.name}`, ...DEFAULT_ALLOWANCE });

  return {
    group: group.name,
    operation,
    key: `${group.name}/${operation}`,
    path: `/v1/${group.name}/${operation}`,
    toolName: `${group.name}__${operation}`,
    operationId: `${group.name.replace(/-/g, "_")}__${operation.replace(/-/g, "_")}`,
    file: path.relative(rootDir, file),
    summary: raw.summary as string,
    description: (raw.description as string).trim(),
    keywords: (raw.keywords ?? []) as string[],
    price: raw.price as number,
    buckets,
    vars,
    params,
    paramSets,
    freeForm: raw.free_form_params === true,
    steps,
    plugin: raw.plugin ? { name: raw.plugin as string, fn: await loadPlugin(rootDir, raw.plugin as string) } : undefined,
    transform: raw.transform ? compileTransform(raw.transform as string) : undefined,
    transformSource: raw.transform as string | undefined,
    attribution: (raw.attribution as string | undefined) ?? group.attribution,
    disclaimers: [...group.disclaimers, ...((raw.disclaimers ?? []) as string[])],
    examples: raw.examples as Example[],
    groupInfo: group,
  };
}
