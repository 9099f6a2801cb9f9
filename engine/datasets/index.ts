// Local datasets (bulk files loaded into the store). Filled in by the datasets issue.
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { UpstreamClient } from "../upstream.ts";

export interface DatasetDeps { config: Config; log: Logger; upstream: UpstreamClient }

export class Datasets {
  readonly deps: DatasetDeps;
  constructor(deps: DatasetDeps) {
    this.deps = deps;
  }
  /** Tests: loads test/fixtures/datasets/<name> for the named datasets (examples' `datasets`). */
  loadTestDatasets?: (names: string[]) => Promise<void>;
  async close(): Promise<void> {}
}

export async function createDatasets(deps: DatasetDeps): Promise<Datasets> {
  return new Datasets(deps);
}
