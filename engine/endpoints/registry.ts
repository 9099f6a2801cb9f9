// Loads every endpoint file, merges its group's defaults, validates it against schemas/ and compiles it.
// A bad file stops start-up with its path and the exact problem.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import YAML from "yaml";
// The endpoint files are read with js-yaml (YAML 1.2 core schema, as the yaml package reads them: the same values
// for every file here): four times faster, a third of start-up's work otherwise.
import { load as loadYaml } from "js-yaml";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { deepMerge } from "../basics/merge.ts";
import { Template } from "./template.ts";
import { compileTransform } from "./transform.ts";
import { expression } from "./transform-helpers.ts";
import { answerSchemaFile, withAnswerSchema } from "./answer-schema.ts";
import { checkParamValues, checkPlaceholders, fileOf, schemaErrors } from "./registry-checks.ts";
import { compilePaging, type PagingSpec } from "./upstream-paging.ts";
import { readSources, type Source } from "../upstream/sources.ts";
import type { ParamSpec } from "./params.ts";
import { unknownInSets, type ParamSets } from "./param-sets.ts";
import type { BodyFormat, CsvOptions } from "../upstream/parse-body.ts";
import type { PluginFn } from "./plugin.ts";
import type { Bucket, Endpoint, Example, ForEach, Group, LabelledQuery, Paginate, Registry, StatusRule, Step } from "./model.ts";

/** How a price-0 endpoint's description says it cannot be bought (checked at load, so agents are told). */
export const FREE_ONLY_WORDS = /free allowance only/i;
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

const requireModule = createRequire(import.meta.url);


function schemaValidator(ajv: Ajv2020, rootDir: string, name: string): ValidateFunction {
  return ajv.compile(JSON.parse(fs.readFileSync(path.join(rootDir, "schemas", name), "utf8")));
}

/**
 * `plugin: <function>` is plugins/<group>/index.ts's export; `plugin: <file>.<function>` is plugins/<group>/<file>.ts's.
 * An endpoint file never names another group's code: what several groups share is imported from plugins/shared/.
 */
function loadPlugin(rootDir: string, group: string, name: string, lazy: boolean): { name: string; fn: PluginFn } {
  const [file, fnName] = name.includes(".") ? name.split(".") : ["index", name];
  const rel = `plugins/${group}/${file}.ts`;
  const found = path.join(rootDir, rel);
  if (!fs.existsSync(found)) throw new Error(`plugin file ${rel} does not exist`);
  const exported = (mod: Record<string, unknown>) => {
    if (typeof mod[fnName] !== "function") throw new Error(`${rel} exports no function "${fnName}"`);
    return mod[fnName] as PluginFn;
  };
  // Loaded with a synchronous require of the ES module (so no top-level await in a plugin), now or, lazy, by the
  // first use of the function, so that the pipeline reads fn.validate and fn.datasets as before: the server's
  // start-up loads no plugin code, and the tests' registry loads every plugin the same way.
  if (!lazy) return { name, fn: exported(requireModule(found) as Record<string, unknown>) };
  let fn: PluginFn | undefined;
  return { name, get fn() {
    return (fn ??= exported(requireModule(found) as Record<string, unknown>));
  } };
}

interface RawForEach { items: string; max: number; beyond_max?: "cut" | "refuse"; param?: string; concurrency?: number }
interface RawPaginate { next?: string; page?: string; offset?: string; first?: number; per_page?: number; more?: string; max_pages: number }

function compileForEach(raw: RawForEach | undefined): ForEach | undefined {
  if (!raw) return undefined;
  const cut = raw.beyond_max === "cut";
  return { items: expression(raw.items), max: raw.max, cut, param: raw.param, concurrency: raw.concurrency ?? 4, early: !cut && raw.param !== undefined && !/\$steps\b/.test(raw.items) };
}

/** The schema lets through one of next, page or offset; what goes with each is checked here. */
function compilePaginate(raw: RawPaginate | undefined): Paginate | undefined {
  if (!raw) return undefined;
  if (raw.next !== undefined) {
    if (raw.more !== undefined || raw.first !== undefined || raw.per_page !== undefined) throw new Error("paginate: a next link needs no more, first or per_page (the link itself says whether there is a next page)");
    return { next: expression(raw.next), maxPages: raw.max_pages };
  }
  if (raw.more === undefined) throw new Error("paginate: page or offset needs `more` (JSONata over a page, true while more pages follow)");
  if (raw.offset !== undefined && raw.per_page === undefined) throw new Error("paginate: offset needs `per_page` (how far the offset moves from one page to the next)");
  if (raw.page !== undefined && raw.per_page !== undefined) throw new Error("paginate: per_page goes with offset; a page number moves by 1");
  const counter = raw.page !== undefined
    ? { query: raw.page, first: raw.first ?? 1, step: 1 }
    : { query: raw.offset!, first: raw.first ?? 0, step: raw.per_page! };
  return { counter, more: expression(raw.more), maxPages: raw.max_pages };
}

function compileStep(raw: Record<string, unknown>): Step {
  if (raw.for_each && raw.paginate) throw new Error("for_each: a step with for_each cannot also paginate");
  const statuses = (raw.statuses ?? {}) as Record<string, StatusRule>;
  const reject = (raw.reject ?? []) as { match: string; status: number; detail: string; param?: string }[];
  const pre = raw.precondition as { test: string; status: number; detail: string; param?: string | string[] } | undefined;
  const check = raw.check as { test: string; status: number; detail: string; param?: string } | undefined;
  const expect = raw.expect as { match?: string; empty?: boolean; test?: string } | undefined;
  return {
    as: raw.as as string | undefined,
    source: raw.source as string,
    path: new Template(raw.path as string),
    query: Object.entries((raw.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, new Template(String(v))]),
    headers: Object.entries((raw.headers ?? {}) as Record<string, string>).map(([k, v]) => [k, new Template(v)]),
    method: (raw.method ?? "GET") as "GET" | "POST",
    body: raw.body,
    bodyFormat: (raw.body_format ?? "json") as "json" | "form",
    expect: expect ? { match: expect.match ? new RegExp(expect.match) : undefined, empty: expect.empty } : undefined,
    expectTest: expect?.test ? expression(expect.test) : undefined,
    format: (raw.format ?? "json") as BodyFormat,
    csv: raw.csv as CsvOptions | undefined,
    cache: raw.cache as string | undefined,
    statuses,
    reject: reject.map((r) => ({ match: new RegExp(r.match), status: r.status, detail: new Template(r.detail), param: r.param })),
    // A precondition that looks at the parameters only is checked before any payment is asked for.
    precondition: pre ? { test: expression(pre.test), status: pre.status, detail: new Template(pre.detail), param: pre.param, early: !/\$steps\b/.test(pre.test) && !/\$steps\b/.test(pre.detail) } : undefined,
    check: check ? { test: expression(check.test), status: check.status, detail: new Template(check.detail), param: check.param } : undefined,
    optional: raw.optional === true,
    when: raw.when ? expression(raw.when as string) : undefined,
    forEach: compileForEach(raw.for_each as RawForEach | undefined),
    paginate: compilePaginate(raw.paginate as RawPaginate | undefined),
    readsEarlierSteps: /\$steps\b/.test(JSON.stringify(raw)),
  };
}

/**
 * lazy (the server): each transform is compiled, each answer schema read and each plugin module loaded when first
 * needed, so start-up does none of it (the tests load the registry without it: every file is compiled and checked).
 */
export async function loadRegistry(opts: { rootDir: string; endpointsDir: string; env?: NodeJS.ProcessEnv; lazy?: boolean }): Promise<Registry> {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validateEndpoint = schemaValidator(ajv, opts.rootDir, "endpoint.schema.json");
  const validateGroup = schemaValidator(ajv, opts.rootDir, "group.schema.json");
  const validateSources = schemaValidator(ajv, opts.rootDir, "sources.schema.json");
  const validateQuestions = schemaValidator(ajv, opts.rootDir, "search-queries.schema.json");
  const problems: string[] = [];

  const sourcesFile = path.join(opts.rootDir, "sources.yaml");
  if (!validateSources(YAML.parse(fs.readFileSync(sourcesFile, "utf8")))) problems.push(...schemaErrors(validateSources.errors, () => "sources.yaml"));
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
      problems.push(...schemaErrors(validateGroup.errors, () => rel(groupFile)));
      continue;
    }
    const g = groupRaw as Record<string, unknown>;
    const group: Group = {
      name: groupName,
      title: g.title as string,
      description: g.description as string,
      keywords: (g.keywords ?? []) as string[],
      covers: g.covers as string[] | undefined,
      nationalSourceFor: g.national_source_for as string | undefined,
      allowance: g.allowance as Group["allowance"],
      attribution: g.attribution as string | undefined,
      disclaimers: (g.disclaimers ?? []) as string[],
      endpoints: [],
      questions: readQuestions(path.join(dir, "search-queries.json"), validateQuestions, problems, rel),
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
      // A problem is reported in the file where the value is written: the group's when the endpoint inherits it.
      const where = (keyPath: string[]) => fileOf(keyPath, own as Record<string, unknown>, rel(file), rel(groupFile));
      if (!validateEndpoint(raw)) {
        problems.push(...schemaErrors(validateEndpoint.errors, where));
        continue;
      }
      const found = fileChecks(raw);
      if (found.length) {
        problems.push(...found.map(({ keyPath, message }) => `${where(keyPath)}: ${message}`));
        continue;
      }
      try {
        const ep = await compileEndpoint(raw, group, file, opts.rootDir, sources, opts.env ?? process.env, (g.functions ?? {}) as Record<string, string>, opts.lazy === true);
        if (`${ep.operation}.yaml` !== fileName && `${ep.operation}.yml` !== fileName) throw new Error(`operation "${ep.operation}" must match the file name`);
        group.endpoints.push(ep);
        endpoints.set(ep.key, ep);
      } catch (e) {
        const err = e as Error & { keyPath?: string[] };
        problems.push(`${err.keyPath ? where(err.keyPath) : rel(file)}: ${err.message}`);
      }
    }
  }
  const tools = new Set([...endpoints.values()].map((e) => e.toolName));
  for (const g of groups.values()) {
    for (const q of g.questions) {
      const unknown = [q.tool, ...(q.also ?? [])].filter((t) => !tools.has(t));
      if (unknown.length) problems.push(`endpoints/${g.name}/search-queries.json: "${q.query}" names no endpoint: ${unknown.join(", ")}`);
    }
    if (g.nationalSourceFor && !groups.has(g.nationalSourceFor)) problems.push(`endpoints/${g.name}/_group.yaml: national_source_for names no group: ${g.nationalSourceFor}`);
  }
  // Endpoints that inherit one bad group value would each report it: say it once.
  if (problems.length) throw new RegistryError(`Endpoint files are not valid:\n  ${[...new Set(problems)].join("\n  ")}`);

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
    return loadYaml(fs.readFileSync(file, "utf8"));
  } catch (e) {
    problems.push(`${rel(file)}: not valid YAML: ${(e as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

/** A group's labelled questions (none when it has no search-queries.json). */
function readQuestions(file: string, validate: ValidateFunction, problems: string[], rel: (f: string) => string): LabelledQuery[] {
  if (!fs.existsSync(file)) return [];
  try {
    const questions = JSON.parse(fs.readFileSync(file, "utf8"));
    if (validate(questions)) return questions as LabelledQuery[];
    problems.push(...schemaErrors(validate.errors, () => rel(file)));
  } catch (e) {
    problems.push(`${rel(file)}: not valid JSON: ${(e as Error).message}`);
  }
  return [];
}

/** Runs a compile step; its error carries the key path it is about, so the right file is named. */
function located<T>(keyPath: string[], compile: () => T): T {
  try {
    return compile();
  } catch (e) {
    throw Object.assign(new Error(`${keyPath.join(".")}: ${(e as Error).message}`), { keyPath });
  }
}

/** The checks of one merged endpoint file that its JSON Schema cannot make, each with the key path it is about. */
function fileChecks(raw: Record<string, unknown>): { keyPath: string[]; message: string }[] {
  const params = (raw.params ?? {}) as Record<string, ParamSpec>;
  const vars = (raw.vars ?? {}) as Record<string, unknown>;
  const out: { keyPath: string[]; message: string }[] = [];
  for (const [name, spec] of Object.entries(params)) {
    for (const message of checkParamValues(name, spec)) out.push({ keyPath: ["params", name], message });
  }
  const upstream = raw.upstream as Record<string, unknown> | Record<string, unknown>[] | undefined;
  const steps = upstream ? (Array.isArray(upstream) ? upstream : [upstream]) : [];
  for (const [i, step] of steps.entries()) {
    const at = Array.isArray(upstream) ? `upstream[${i}]` : "upstream";
    const keyPath = (key: string) => (Array.isArray(upstream) ? ["upstream"] : ["upstream", key]);
    const details: [string, string, string | undefined][] = [
      ...Object.entries((step.statuses ?? {}) as Record<string, { detail?: string }>).map(([code, r]): [string, string, string | undefined] => ["statuses", `${at}.statuses.${code}.detail`, r.detail]),
      ...((step.reject ?? []) as { detail?: string }[]).map((r, j): [string, string, string | undefined] => ["reject", `${at}.reject[${j}].detail`, r.detail]),
      ["precondition", `${at}.precondition.detail`, (step.precondition as { detail?: string } | undefined)?.detail],
      ["check", `${at}.check.detail`, (step.check as { detail?: string } | undefined)?.detail],
    ];
    for (const [key, where, text] of details) {
      for (const message of checkPlaceholders(text, where, params, vars)) out.push({ keyPath: keyPath(key), message });
    }
  }
  return out;
}

async function compileEndpoint(raw: Record<string, unknown>, group: Group, file: string, rootDir: string, sources: Map<string, Source>, env: NodeJS.ProcessEnv,
  functions: Record<string, string>, lazy: boolean): Promise<Endpoint> {
  const operation = raw.operation as string;
  const answerFile = answerSchemaFile(path.dirname(file), operation);
  const params = (raw.params ?? {}) as Record<string, ParamSpec>;
  const vars = (raw.vars ?? {}) as Record<string, unknown>;
  const upstream = raw.upstream as Record<string, unknown> | Record<string, unknown>[] | undefined;
  const steps = upstream ? (Array.isArray(upstream) ? upstream : [upstream]).map((step, i) => {
    const at = Array.isArray(upstream) ? `upstream[${i}]` : "upstream";
    try {
      return compileStep(step);
    } catch (e) {
      const message = (e as Error).message;
      throw Object.assign(new Error(`${at}${/^[a-z_]+[.:]/.test(message) ? "." : ": "}${message}`), { keyPath: ["upstream"] });
    }
  }) : undefined;

  for (const [name, spec] of Object.entries(params)) {
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
    for (const t of [step.path, ...step.query.map(([, q]) => q), ...step.headers.map(([, h]) => h)]) {
      for (const n of t.names) if (!(n in params) && !(n in vars)) throw new Error(`template "${t.source}" uses {${n}}, which is neither a param nor a var`);
    }
    if (step.forEach?.param && !(step.forEach.param in params)) throw new Error(`for_each.param names ${step.forEach.param}, which is not a parameter`);
    if (step.as) {
      if (stepNames.has(step.as)) throw new Error(`two upstream steps are named "${step.as}"`);
      stepNames.add(step.as);
    }
  }
  if (raw.price === 0 && !FREE_ONLY_WORDS.test(raw.description as string)) {
    throw new Error("price 0 (served within the free allowance only) must be said in the description: \"free allowance only\"");
  }
  const declared = raw.allowance as { anonymous?: number; key?: number; with_group?: boolean } | undefined;
  const override = allowanceOverride(env, group.name, operation);
  const own = override ? { ...declared, ...override } : declared;
  const buckets: Bucket[] = [];
  if (group.allowance && own?.with_group !== false) buckets.push({ id: `group:${group.name}`, ...DEFAULT_ALLOWANCE, ...group.allowance });
  if (own) buckets.push({ id: `endpoint:${group.name}/${operation}`, anonymous: own.anonymous ?? DEFAULT_ALLOWANCE.anonymous, key: own.key ?? DEFAULT_ALLOWANCE.key });
  if (!buckets.length) buckets.push({ id: `group:${group.name}`, ...DEFAULT_ALLOWANCE });

  const endpoint: Endpoint = {
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
    freeOnly: raw.price === 0,
    buckets,
    vars,
    params,
    paramSets,
    freeForm: raw.free_form_params === true,
    steps,
    plugin: raw.plugin ? loadPlugin(rootDir, group.name, raw.plugin as string, lazy) : undefined,
    transform: raw.transform ? located(["transform"], () => compileTransform(raw.transform as string, functions, { lazy })) : undefined,
    transformSource: raw.transform as string | undefined,
    attribution: (raw.attribution as string | undefined) ?? group.attribution,
    disclaimers: [...group.disclaimers, ...((raw.disclaimers ?? []) as string[])],
    examples: raw.examples as Example[],
    outputFile: raw.output ? undefined : path.relative(rootDir, answerFile),
    paging: located(["paging"], () => compilePaging(raw.paging as PagingSpec | undefined, params)),
    groupInfo: group,
  };
  return withAnswerSchema(endpoint, answerFile, raw.output, lazy);
}
