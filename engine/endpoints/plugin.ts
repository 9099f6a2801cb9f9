// What a plugin is given: a function of plugins/<group>/, named in an endpoint file as `plugin: <function>`
// (index.ts) or `plugin: <file>.<function>`.
import type { ParamValues } from "./params.ts";
import type { Provenance, UpstreamRequest } from "../upstream/client.ts";
import type { Datasets } from "../datasets/index.ts";
import type { DatasetHandle } from "../datasets/types.ts";
import type { Logger } from "../basics/log.ts";
import type { Expect } from "../upstream/real-answer.ts";
import { expression } from "./transform-helpers.ts";

/** An upstream request as a plugin makes it: `expect.test` may be JSONata, as in an endpoint file. */
export interface PluginRequest extends Omit<UpstreamRequest, "expect"> {
  expect?: Omit<Expect, "test"> & { test?: string | ((body: unknown) => unknown) };
}

export interface PluginContext {
  params: ParamValues;
  /** Query parameters an endpoint with free_form_params passes through. */
  extra: Record<string, string>;
  /** The caller's address as the access layer saw it (Express req.ip under TRUST_PROXY; over MCP, the MCP client's). */
  clientId: string;
  vars: Record<string, unknown>;
  /**
   * Calls an upstream through the shared client (cache, retries, single-flight); the answer's provenance is recorded.
   * State what a real answer looks like next to the request, as an endpoint file's step does: `expect.test` (JSONata
   * over the parsed body, with $params and $vars, or a function) and/or `expect.match` (a pattern of the raw body).
   */
  fetch(req: PluginRequest): Promise<unknown>;
  /** Records where data came from when it is not an upstream call (a local dataset, a computation). */
  record(p: Provenance): void;
  /**
   * Records an upstream answer the plugin fetched itself, not through ctx.fetch (a caller's page through the safe
   * fetcher). Call it as soon as the answer is in: as after ctx.fetch, an error from then on is a 502 (engine/call/pipeline.ts).
   */
  recordAnswer(p: Provenance): void;
  /** A local dataset's current version (503 dataset_not_loaded until it is loaded); its source goes once into the answer's meta.sources. */
  dataset<Index = unknown>(name: string): DatasetHandle<Index>;
  datasets: Datasets;
  log: Logger;
}

/**
 * Returns the response data (before the endpoint's transform, if it has one). Throw a Problem for 4xx.
 * A check of the parameters that needs the plugin's own data (a list of keys) goes in `fn.validate`: it runs before
 * the access decision, so bad input is a 400 before any payment is asked for. Likewise `fn.datasets` (set with
 * needsDatasets): the local datasets the function cannot answer without, so that a dataset not loaded is a 503
 * before any payment is asked for.
 */
export type PluginFn = ((ctx: PluginContext) => Promise<unknown> | unknown) & {
  validate?: (params: ParamValues) => void;
  datasets?: DatasetsNeeded;
};

/** The datasets a plugin function needs: always the same, or depending on the parameters (a ticker, not a CIK). */
export type DatasetsNeeded = string[] | ((params: ParamValues) => string[]);

/** Declares the local datasets these plugin functions cannot answer without. */
export function needsDatasets(datasets: DatasetsNeeded, ...fns: ((ctx: PluginContext) => unknown)[]): void {
  for (const fn of fns) (fn as PluginFn).datasets = datasets;
}

const compiled = new Map<string, ReturnType<typeof expression>>();

/** The request for the upstream client: a JSONata `expect.test` compiled once, and run with the call's $params and $vars. */
export function upstreamRequest(req: PluginRequest, bindings: { params: ParamValues; vars: Record<string, unknown> }): UpstreamRequest {
  const test = req.expect?.test;
  if (typeof test !== "string") return req as UpstreamRequest;
  if (!compiled.has(test)) compiled.set(test, expression(test));
  const expr = compiled.get(test)!;
  return { ...req, expect: { ...req.expect, test: (body) => expr.evaluate(body, bindings) } };
}
