// The endpoint model: what the registry makes of the endpoint files, and what the call pipeline, the access
// layer, the pages and the search read.
import type jsonata from "jsonata";
import type { Template } from "./template.ts";
import type { CompiledTransform } from "./transform.ts";
import type { Paging } from "./upstream-paging.ts";
import type { ParamSpec } from "./params.ts";
import type { ParamSets } from "./param-sets.ts";
import type { PluginFn } from "./plugin.ts";
import type { Source } from "../upstream/sources.ts";
import type { BodyFormat, CsvOptions } from "../upstream/parse-body.ts";

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
  /** Request headers by name, each a template. */
  headers: [string, Template][];
  method: "GET" | "POST";
  /** POST: the JSON body template (strings are templates). */
  body?: unknown;
  /** POST: the body sent as JSON (default) or as an HTML form (application/x-www-form-urlencoded). */
  bodyFormat: "json" | "form";
  /** What a real answer looks like: a regex on the raw body, an empty body allowed, a JSONata test on the parsed body. */
  expect?: { match?: RegExp; empty?: boolean };
  expectTest?: jsonata.Expression;
  format: BodyFormat;
  csv?: CsvOptions;
  cache?: string;
  statuses: Record<string, StatusRule>;
  reject: { match: RegExp; status: number; detail: Template; param?: string }[];
  precondition?: { test: jsonata.Expression; status: number; detail: Template; param?: string | string[]; early: boolean };
  /** Checked on the step's body once it is in: when false, the call answers status with detail. */
  check?: { test: jsonata.Expression; status: number; detail: Template; param?: string };
  /** An auxiliary look-up (a code list, a "last updated" stamp): when the upstream fails it is null, with a meta warning. */
  optional: boolean;
  /** JSONata over $params, $vars and $steps: when false the step is not requested and is null. */
  when?: jsonata.Expression;
  /** Requested once per item of a list; the step's body is the list of bodies, in the items' order. */
  forEach?: ForEach;
  /** Requested page after page; the step's body is the list of page bodies, in order. */
  paginate?: Paginate;
  /** Names $steps somewhere (a template, when, a precondition or check): it waits for the steps before it. */
  readsEarlierSteps: boolean;
}

export interface ForEach {
  /** JSONata over $params, $vars and $steps: the items; each request sees its own as $item (and $index from 0). */
  items: jsonata.Expression;
  max: number;
  /** More items than max: ask for the first max and say so in meta.warnings (true), or refuse the call (false). */
  cut: boolean;
  /** The parameter blamed when the call is refused (a 400); without one, the items came from an upstream (a 502). */
  param?: string;
  concurrency: number;
  /** The items read the parameters only: too many is refused before the access decision. */
  early: boolean;
}

export interface Paginate {
  /** Link mode: JSONata over a page (and $steps…): the next page's URL, on the step's source; none on the last page. */
  next?: jsonata.Expression;
  /** Number mode: the upstream's query name for the page number or the offset, and the first one. */
  counter?: { query: string; first: number; step: number };
  /** Number mode: JSONata over the page just read, true while more pages follow. */
  more?: jsonata.Expression;
  maxPages: number;
}

/** A recorded upstream answer, and what the request for it must look like. */
export interface Fixture {
  /** The sources.yaml source the request goes to; or `origin`, the site a caller's URL names (web-reader, seo-tools). */
  source?: string;
  origin?: string;
  /** The server the request goes to when the plugin chose one (UpstreamRequest.baseUrl); else the source's. */
  base_url?: string;
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
  /** The day the example runs on (YYYY-MM-DD): the tests set clock.today to it, for answers computed from today. */
  today?: string;
  /** The instant the example runs at (UTC): the tests set clock.now to it, for queries computed from the current time. */
  now?: string;
  status?: number;
  expect?: Record<string, unknown>;
}

export interface Group {
  name: string;
  title: string;
  description: string;
  keywords: string[];
  /** The countries its data covers (ISO 3166 codes), where its title names none ("Bathing water quality" is England's). */
  covers?: string[];
  /** The worldwide group this one is a country's own source for (us-weather for global-weather). */
  nationalSourceFor?: string;
  /** The group-level bucket, when the group has one. */
  allowance?: { anonymous?: number; key?: number };
  attribution?: string;
  disclaimers: string[];
  endpoints: Endpoint[];
  /** Questions agents ask of its endpoints, each labelled with the tool that answers it (search-queries.json). */
  questions: LabelledQuery[];
}

/** A question an agent asks, labelled with the tool that answers it: search_apis learns from these, tests measure on them. */
export interface LabelledQuery {
  query: string;
  tool: string;
  /** Other tools that answer the question just as well (only where two are genuinely equivalent). */
  also?: string[];
  /** Where the question came from when it was not written with the endpoint files (a blind set, docs/search.md). */
  set?: string;
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
  /**
   * Price 0: served within the free allowance only, never sold (the upstream's terms forbid selling access).
   * Once the allowance is spent the call is refused (429 allowance_exhausted), never offered for payment.
   */
  freeOnly: boolean;
  /** The buckets a free call draws from (the group's and/or the endpoint's own). */
  buckets: Bucket[];
  vars: Record<string, unknown>;
  params: Record<string, ParamSpec>;
  paramSets?: ParamSets;
  paging?: Paging;
  freeForm: boolean;
  steps?: Step[];
  plugin?: { name: string; fn: PluginFn };
  transform?: CompiledTransform;
  transformSource?: string;
  attribution?: string;
  disclaimers: string[];
  examples: Example[];
  /** The JSON Schema of the answer's `data` (engine/endpoints/answer-schema.ts), when declared or derived. */
  output?: Record<string, unknown>;
  /** Where `npm run answers` keeps the derived answer schema (from the project root); none if `output:` is declared. */
  outputFile?: string;
  groupInfo: Group;
}

export interface Registry {
  sources: Map<string, Source>;
  groups: Map<string, Group>;
  endpoints: Map<string, Endpoint>;
  find(group: string, operation: string): Endpoint | undefined;
  byTool(toolName: string): Endpoint | undefined;
}
