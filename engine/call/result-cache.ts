// Transformed answers of upstream endpoints, kept as long as their upstream responses are, so a repeated
// call skips the upstream steps and the JSONata transform alike. Keyed by endpoint and validated params.
import { LRUCache } from "lru-cache";
import { durationMs } from "../basics/duration.ts";
import type { Endpoint } from "../endpoints/model.ts";
import type { Provenance } from "../upstream/client.ts";
import type { MissingPart } from "./steps.ts";

/** An answer; `warnings` lists the parts an optional step could not read (such an answer is never cached) or that were cut short. */
export interface Answer { data: unknown; sources: Provenance[]; warnings?: MissingPart[] }

export class ResultCache {
  private readonly lru: LRUCache<string, Answer>;
  constructor(max: number) {
    this.lru = new LRUCache({ max });
  }

  /** The shortest cache time of the endpoint's steps; 0 (not cached) if any step is not cached. */
  static ttl(endpoint: Endpoint): number {
    if (!endpoint.steps?.length) return 0;
    return Math.min(...endpoint.steps.map((s) => durationMs(s.cache)));
  }

  key(endpoint: Endpoint, params: unknown, extra: unknown): string {
    return `${endpoint.key} ${JSON.stringify(params)} ${JSON.stringify(extra)}`;
  }

  get(key: string): Answer | undefined {
    const hit = this.lru.get(key);
    return hit && { data: hit.data, sources: hit.sources.map((s) => ({ ...s, cached: true })), ...(hit.warnings ? { warnings: hit.warnings } : {}) };
  }

  set(key: string, answer: Answer, ttl: number): void {
    if (ttl > 0) this.lru.set(key, answer, { ttl });
  }

  clear(): void {
    this.lru.clear();
  }
}
