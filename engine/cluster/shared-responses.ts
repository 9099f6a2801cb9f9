// The upstream responses every instance shares through Redis: a cache tier under each process's LRU (same
// rules: only responses the client would cache, taken back out when a call they served fails), and
// single-flight across instances: of identical concurrent requests, the instance that takes the request's lock
// calls the upstream and publishes the outcome; the others wait for it instead of calling.
import crypto from "node:crypto";
import { Problem } from "../basics/problem.ts";
import type { Cluster } from "./redis.ts";

/** A response larger than this (as JSON) is not shared; each instance keeps its own. */
const MAX_SHARED_BYTES = 2 * 1024 * 1024;

interface Outcome<T> { ok: true; value: T; ttlMs: number }
interface Failure { ok: false; error: SerializedError }
type SerializedError = { problem: ConstructorParameters<typeof Problem>[0] } | { upstream: Record<string, unknown> };

export interface SharedResponsesOptions {
  /** Rebuilds an UpstreamError from its fields (kept out of this module to avoid a cycle). */
  reviveUpstreamError(fields: Record<string, unknown>): Error;
  /** The fields of an UpstreamError, or undefined for any other error. */
  upstreamErrorFields(e: unknown): Record<string, unknown> | undefined;
}

export class SharedResponses<T> {
  private readonly cluster: Cluster;
  private readonly opts: SharedResponsesOptions;

  constructor(cluster: Cluster, opts: SharedResponsesOptions) {
    this.cluster = cluster;
    this.opts = opts;
  }

  /** A cached response and how much longer it may be used. */
  async get(key: string): Promise<{ value: T; ttlMs: number } | undefined> {
    const k = this.cluster.key(`cache:${digest(key)}`);
    const r = await this.cluster.run((c) => c.multi().get(k).pTTL(k).exec());
    const [text, ttl] = (r ?? []) as unknown as [string | null, number];
    if (typeof text !== "string" || !(ttl > 0)) return undefined;
    return { value: JSON.parse(text) as T, ttlMs: ttl };
  }

  /** Caches a response (as its JSON text) while it may be used, unless it is too large to share. */
  private async set(key: string, text: string, ttlMs: number): Promise<void> {
    if (ttlMs <= 0 || Buffer.byteLength(text) > MAX_SHARED_BYTES) return;
    await this.cluster.run((c) => c.set(this.cluster.key(`cache:${digest(key)}`), text, { PX: Math.ceil(ttlMs) }));
  }

  async delete(key: string): Promise<void> {
    await this.cluster.run((c) => c.del(this.cluster.key(`cache:${digest(key)}`)));
  }

  /**
   * Calls `fetch` once for all instances asking `key` at the same time. The instance holding the lock fetches,
   * caches (when ttlMs > 0) and publishes the outcome; another waits for it until `deadline`, then fetches itself.
   * Without Redis, it simply fetches.
   */
  async once(key: string, deadline: number, fetch: () => Promise<{ value: T; ttlMs: number }>): Promise<{ value: T; ttlMs: number }> {
    if (!this.cluster.usable()) return fetch();
    const id = digest(key);
    const lock = this.cluster.key(`flight:${id}`);
    // Listening before looking at the lock: an outcome published after the look is never missed.
    let settle!: (o: Outcome<T> | Failure | undefined) => void;
    const published = new Promise<Outcome<T> | Failure | undefined>((r) => (settle = r));
    const stop = this.cluster.listen(`flight:${id}`, (m) => settle(JSON.parse(m)));
    try {
      const took = await this.cluster.run((c) => c.set(lock, this.cluster.id, { PX: Math.max(1_000, deadline - Date.now()), NX: true }));
      if (took === "OK") return await this.lead(key, id, lock, fetch);
      if (took === undefined || !(await this.cluster.run((c) => c.exists(lock)))) return fetch();
      const timer = setTimeout(() => settle(undefined), Math.max(0, deadline - Date.now()));
      const outcome = await published;
      clearTimeout(timer);
      if (!outcome) return fetch();
      if (outcome.ok) return { value: outcome.value, ttlMs: outcome.ttlMs };
      throw this.revive(outcome.error);
    } finally {
      stop();
    }
  }

  private async lead(key: string, id: string, lock: string, fetch: () => Promise<{ value: T; ttlMs: number }>): Promise<{ value: T; ttlMs: number }> {
    let message: string | undefined;
    try {
      const got = await fetch();
      // Serialised once, for the cache and for the waiters.
      const text = JSON.stringify(got.value);
      await this.set(key, text, got.ttlMs);
      message = `{"ok":true,"ttlMs":${got.ttlMs},"value":${text}}`;
      return got;
    } catch (e) {
      const error = this.serialize(e);
      if (error) message = JSON.stringify({ ok: false, error } satisfies Failure);
      throw e;
    } finally {
      await this.cluster.run((c) => c.del(lock));
      // No message (too large, or an error that cannot be passed on): the waiters see the lock gone and fetch themselves.
      await this.cluster.publish(`flight:${id}`, message && Buffer.byteLength(message) <= MAX_SHARED_BYTES ? message : "null");
    }
  }

  private serialize(e: unknown): SerializedError | undefined {
    if (e instanceof Problem) return { problem: { status: e.status, code: e.code, detail: e.detail, param: e.param, title: e.title, extra: e.extra, headers: e.headers } };
    const fields = this.opts.upstreamErrorFields(e);
    return fields && { upstream: fields };
  }

  private revive(error: SerializedError): Error {
    return "problem" in error ? new Problem(error.problem) : this.opts.reviveUpstreamError(error.upstream);
  }
}

const digest = (key: string) => crypto.createHash("sha256").update(key).digest("base64url");
