// Several instances acting as one (REDIS_URL): the connection, this instance's heartbeat, and what the others
// need to know when Redis goes away. Every shared piece (rate limits, the response cache tier, single-flight,
// dataset leases) asks `usable()` first and falls back to in-process behaviour when it says no.
import crypto from "node:crypto";
import { createClient } from "redis";
import type { Logger } from "../basics/log.ts";

type Client = ReturnType<typeof createClient>;

/** How often an instance says it is alive, and how long a silent one still counts. */
const HEARTBEAT_MS = 2_000;
const ALIVE_MS = 6_000;
/** A Redis command that takes longer than this is treated as Redis being away. */
const COMMAND_TIMEOUT_MS = 500;

export interface ClusterHealth {
  redis: "connected" | "unavailable";
  instance: string;
  /** Instances seen alive (this one included), as last known. */
  instances: number;
  /** While Redis is away: each source's rate limit is divided by `instances` in this process. */
  rate_limits: "shared" | "per-instance share";
}

export class Cluster {
  readonly id = crypto.randomUUID();
  readonly prefix: string;
  private readonly client: Client;
  private readonly subscriber: Client;
  private readonly log: Logger;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();
  private heartbeat?: NodeJS.Timeout;
  private closed = false;
  private warned = false;
  /** The number of live instances last read from Redis; kept while Redis is away. */
  instances = 1;

  private constructor(url: string, prefix: string, log: Logger) {
    this.prefix = prefix;
    this.log = log;
    // No offline queue: while Redis is away a command fails at once, and the caller falls back.
    const options = { url, disableOfflineQueue: true, socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) } };
    this.client = createClient(options);
    this.subscriber = createClient(options);
    for (const [name, c] of [["client", this.client], ["subscriber", this.subscriber]] as const) {
      c.on("error", (e: Error) => this.log.debug({ redis: name, error: e.message }, "redis error"));
    }
    this.client.on("error", () => this.away());
    this.client.on("ready", () => {
      this.warned = false;
      this.log.info({ instance: this.id }, "redis connected");
    });
  }

  /** Said once each time Redis goes away. */
  private away(): void {
    if (this.warned || this.closed) return;
    this.warned = true;
    this.log.warn({ instances: this.instances }, "redis unavailable: rate limits at this instance's share, cache and single-flight in-process, until it answers again");
  }

  /** Connects (a server that cannot reach Redis at start-up still starts, in-process, and keeps trying). */
  static async connect(url: string, log: Logger, prefix = "pda:"): Promise<Cluster> {
    const c = new Cluster(url, prefix, log);
    const attempt = Promise.all([c.client.connect(), c.subscriber.connect()]).then(() => c.subscriber.pSubscribe(`${prefix}msg:*`, (m, channel) => c.deliver(channel, m)));
    attempt.catch(() => c.away());
    await Promise.race([attempt.catch(() => undefined), new Promise((r) => setTimeout(r, 2_000))]);
    if (!c.usable()) c.away();
    await c.beat();
    c.heartbeat = setInterval(() => void c.beat(), HEARTBEAT_MS).unref();
    return c;
  }

  /** Redis is connected (both connections: commands, and the subscription that brings other instances' answers). */
  usable(): boolean {
    return !this.closed && this.client.isReady && this.subscriber.isReady;
  }

  key(name: string): string {
    return this.prefix + name;
  }

  /** Runs a command against Redis within COMMAND_TIMEOUT_MS; undefined when Redis is away or slow (the caller falls back). */
  async run<T>(command: (c: Client) => Promise<T>): Promise<T | undefined> {
    if (!this.usable()) return undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        command(this.client),
        new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), COMMAND_TIMEOUT_MS))),
      ]);
    } catch (e) {
      this.log.debug({ error: (e as Error).message }, "redis command failed");
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Publishes to the listeners of `topic` on every instance. */
  async publish(topic: string, message: string): Promise<void> {
    await this.run((c) => c.publish(this.key(`msg:${topic}`), message));
  }

  /** Listens to `topic` until the returned function is called. Subscribed once per process (a pattern), so listening is instant. */
  listen(topic: string, fn: (message: string) => void): () => void {
    const channel = this.key(`msg:${topic}`);
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (!set.size) this.listeners.delete(channel);
    };
  }

  /** A lease held by one instance at a time, renewed while held; false when another holds it or Redis is away. */
  async lease(name: string, ttlMs: number): Promise<{ release(): Promise<void> } | undefined> {
    const key = this.key(`lease:${name}`);
    const got = await this.run((c) => c.set(key, this.id, { PX: ttlMs, NX: true }));
    if (got !== "OK") return undefined;
    const renew = setInterval(() => void this.run((c) => c.eval(RENEW, { keys: [key], arguments: [this.id, String(ttlMs)] })), ttlMs / 3).unref();
    return {
      release: async () => {
        clearInterval(renew);
        await this.run((c) => c.eval(RELEASE, { keys: [key], arguments: [this.id] }));
      },
    };
  }

  health(): ClusterHealth {
    const up = this.usable();
    return { redis: up ? "connected" : "unavailable", instance: this.id, instances: this.instances, rate_limits: up ? "shared" : "per-instance share" };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    await Promise.allSettled([this.client.isOpen && this.client.zRem(this.key("instances"), this.id)]);
    for (const c of [this.client, this.subscriber]) if (c.isOpen) await c.close().catch(() => c.destroy());
    else c.destroy();
  }

  private deliver(channel: string, message: string): void {
    for (const fn of this.listeners.get(channel) ?? []) fn(message);
  }

  /** Says this instance is alive and counts the live ones (their number divides the rate limits if Redis goes away). */
  private async beat(): Promise<void> {
    const live = await this.run((c) => c.eval(BEAT, { keys: [this.key("instances")], arguments: [this.id, String(ALIVE_MS)] }));
    if (typeof live === "number" && live > 0) this.instances = live;
  }
}

/** Marks this instance alive at Redis's own time (instances' clocks may differ) and counts the live ones. */
const BEAT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 10)
return redis.call('ZCARD', KEYS[1])`;
/** Renews a lease only while this instance holds it. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
/** Releases a lease only if this instance holds it. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
