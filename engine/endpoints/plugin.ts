// What a plugin is given: a function of plugins/<group>/, named in an endpoint file as `plugin: <function>`
// (index.ts) or `plugin: <file>.<function>`.
import type { ParamValues } from "./params.ts";
import type { Provenance, UpstreamRequest } from "../upstream/client.ts";
import type { Datasets } from "../datasets/index.ts";
import type { DatasetHandle } from "../datasets/types.ts";
import type { Logger } from "../basics/log.ts";

export interface PluginContext {
  params: ParamValues;
  /** Query parameters an endpoint with free_form_params passes through. */
  extra: Record<string, string>;
  /** The caller's address as the access layer saw it (Express req.ip under TRUST_PROXY; over MCP, the MCP client's). */
  clientId: string;
  vars: Record<string, unknown>;
  /** Calls an upstream through the shared client (cache, retries, single-flight); the answer's provenance is recorded. */
  fetch(req: UpstreamRequest): Promise<unknown>;
  /** Records where data came from when it is not an upstream call (a local dataset, a computation). */
  record(p: Provenance): void;
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
