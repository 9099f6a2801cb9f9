// Per-source rate limits (`rate_limit` in sources.yaml). Each request takes the source's next free slot; slots
// are spaced evenly. With Redis the slots are one schedule for every instance (an atomic script at Redis's
// own time), so N instances send what one would; without it, or while Redis is away, the schedule is this
// process's, at the whole limit alone or at its share (limit ÷ the instances it last knew) in a cluster.
// An upstream that asks us to wait (429 or 503 with Retry-After) pushes its next slot back: every caller, on every
// instance, waits or is refused at once instead of asking it again (pause()).
import type { Cluster } from "./redis.ts";

export interface RateLimit { requests: number; per_seconds: number }

/** A late timer or the network's jitter must never show the upstream more than its limit in any window: slots are spaced 10% wider. */
const MARGIN = 1.1;

export const slotMs = (limit: RateLimit): number => ((limit.per_seconds * 1000) / limit.requests) * MARGIN;

/** The wait before the slot taken, or the wait that was refused (it would end after the deadline). */
export type Slot = { granted: true; waitMs: number } | { granted: false; waitMs: number };

export class SourceLimits {
  private readonly limits: Map<string, RateLimit>;
  private readonly cluster?: Cluster;
  /** This process's schedule: the next free slot of each source. */
  private readonly next = new Map<string, number>();

  constructor(limits: Map<string, RateLimit>, cluster?: Cluster) {
    this.limits = limits;
    this.cluster = cluster;
  }

  /** Waits for the source's next slot, unless it comes after `deadline` (then nothing is taken). */
  async take(source: string, deadline: number): Promise<Slot> {
    const limit = this.limits.get(source);
    const interval = limit ? slotMs(limit) : 0;
    const maxWait = Math.max(0, deadline - Date.now());
    const slot = (await this.shared(source, interval, maxWait)) ?? this.local(source, interval * (this.cluster?.instances ?? 1), maxWait);
    if (slot.granted && slot.waitMs > 0) await new Promise((r) => setTimeout(r, slot.waitMs));
    return slot;
  }

  /** Forgets this process's schedule (tests, operators; with clearCache). */
  clear(): void {
    this.next.clear();
  }

  /** No request to the source for `ms` (its Retry-After, at most an hour), from any instance. */
  async pause(source: string, ms: number): Promise<void> {
    const wait = Math.min(Math.max(0, ms), MAX_PAUSE_MS);
    const c = this.cluster;
    await c?.run((redis) => redis.eval(PAUSE, { keys: [c.key(`rate:${source}`)], arguments: [String(wait)] }));
    this.next.set(source, Math.max(this.next.get(source) ?? 0, Date.now() + wait));
  }

  private async shared(source: string, interval: number, maxWait: number): Promise<Slot | undefined> {
    const c = this.cluster;
    const r = await c?.run((redis) => redis.eval(TAKE_SLOT, { keys: [c.key(`rate:${source}`)], arguments: [String(interval), String(maxWait)] }));
    if (!Array.isArray(r)) return undefined;
    return { granted: r[0] === 1, waitMs: Number(r[1]) };
  }

  private local(source: string, interval: number, maxWait: number): Slot {
    const now = Date.now();
    const at = Math.max(now, this.next.get(source) ?? 0);
    if (at - now > maxWait) return { granted: false, waitMs: at - now };
    this.next.set(source, at + interval);
    return { granted: true, waitMs: at - now };
  }
}

const MAX_PAUSE_MS = 3_600_000;

/** KEYS[1] holds the source's next free slot (ms); ARGV: slot interval, longest acceptable wait. Returns {granted, wait}. */
const TAKE_SLOT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local at = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local wait = at - now
if wait > tonumber(ARGV[2]) then return {0, wait} end
redis.call('SET', KEYS[1], tostring(at + interval), 'PX', math.ceil(wait + interval) + 1000)
return {1, wait}`;

/** Pushes the source's next free slot (KEYS[1]) to ARGV[1] ms from now, unless it is already later. */
const PAUSE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local at = now + tonumber(ARGV[1])
if at > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], tostring(at), 'PX', tonumber(ARGV[1]) + 1000) end
return at`;
