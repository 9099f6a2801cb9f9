// The x402 facilitator: its HTTP client (with a CDP API key's JWT on every request when one is configured) and what
// its /supported says, read at start-up and every X402_SUPPORTED_REFRESH_MS, per configured network (for /health,
// for the log, and for which networks the 402 offers).
import { HTTPFacilitatorClient } from "@x402/core/server";
import { networkMatchesPattern } from "@x402/core/utils";
import type { SupportedKind, SupportedResponse } from "@x402/core/types";
import type { Logger } from "../basics/log.ts";
import type { X402Settings } from "./settings.ts";

export function facilitatorClient(settings: X402Settings): HTTPFacilitatorClient {
  const { facilitatorUrl: url, cdp } = settings;
  return new HTTPFacilitatorClient({ url, timeoutMs: 30_000, ...(cdp ? { createAuthHeaders: cdpAuthHeaders(url, cdp) } : {}) });
}

/**
 * CDP's auth headers, made by @coinbase/x402 (a JWT whose `uris` claim is "<METHOD> <host><path>" of the request).
 * Its createFacilitatorConfig signs for api.cdp.coinbase.com whatever the URL, so the JWTs are made here with the
 * package's createAuthHeader for the configured URL's own host and path, which for CDP's URL is the same thing.
 */
function cdpAuthHeaders(url: string, cdp: { keyId: string; keySecret: string }) {
  const { host, pathname } = new URL(url);
  const base = pathname.replace(/\/+$/, "");
  return async () => {
    const { createAuthHeader, createCorrelationHeader } = await import("@coinbase/x402");
    const headers = async (method: string, op: string) => ({
      Authorization: await createAuthHeader(cdp.keyId, cdp.keySecret, method, host, `${base}/${op}`),
      "Correlation-Context": createCorrelationHeader(),
    });
    const [verify, settle, supported] = await Promise.all([headers("POST", "verify"), headers("POST", "settle"), headers("GET", "supported")]);
    return { verify, settle, supported };
  };
}

/** What the facilitator says of one configured network. */
export interface NetworkState {
  network: string;
  /** supported: it settles exact payments there; unsupported: it said it does not; unreachable / checking: not known now. */
  state: "supported" | "unsupported" | "unreachable" | "checking";
  scheme?: string;
  /** The facilitator's addresses on this network (who submits the settlement and pays its fee). */
  signers?: string[];
  detail?: string;
}

export class FacilitatorWatch {
  private readonly client: HTTPFacilitatorClient;
  private readonly networks: string[];
  private readonly url: string;
  private readonly log: Logger;
  private readonly onAnswer: (supported: SupportedResponse) => Promise<void>;
  private supported?: SupportedResponse;
  private reachable?: boolean;
  private checkedAt?: number;
  private error?: string;
  private readonly said = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(opts: { client: HTTPFacilitatorClient; networks: string[]; url: string; log: Logger; onAnswer: (supported: SupportedResponse) => Promise<void> }) {
    this.client = opts.client;
    this.networks = opts.networks;
    this.url = opts.url;
    this.log = opts.log;
    this.onAnswer = opts.onAnswer;
  }

  /** Reads /supported now and then every intervalMs, until stop(). */
  start(intervalMs: number): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One read of /supported (a read under way is joined, not repeated). */
  refresh(): Promise<void> {
    this.running ??= this.read().finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<void> {
    try {
      const supported = await this.client.getSupported();
      this.supported = supported;
      this.reachable = true;
      this.error = undefined;
      await this.onAnswer(supported);
    } catch (e) {
      this.reachable = false;
      this.error = String((e as Error).message ?? e).slice(0, 300);
    }
    this.checkedAt = Date.now();
    this.logChanges();
  }

  /** The facilitator's exact-scheme x402 v2 kind for a network, from its last answer; undefined if none or not known. */
  kind(network: string): SupportedKind | undefined {
    return this.supported?.kinds.find((k) => k.x402Version === 2 && k.scheme === "exact" && networkMatchesPattern(k.network as `${string}:${string}`, network as `${string}:${string}`));
  }

  /** Whether the facilitator has answered /supported at least once. */
  get known(): boolean {
    return this.supported !== undefined;
  }

  states(): NetworkState[] {
    return this.networks.map((network) => {
      if (this.reachable === false) return { network, state: "unreachable", detail: `the facilitator could not be asked (${this.error})` };
      if (!this.supported) return { network, state: "checking", detail: "the facilitator's /supported has not answered yet" };
      const kind = this.kind(network);
      if (!kind) {
        const settles = [...new Set(this.supported.kinds.filter((k) => k.x402Version === 2 && k.scheme === "exact").map((k) => k.network))];
        return { network, state: "unsupported", detail: `the facilitator at ${this.url} does not settle exact payments on ${network}: nothing paid there could be taken (it settles: ${settles.join(", ") || "nothing"})` };
      }
      const signers = Object.entries(this.supported.signers ?? {}).filter(([pattern]) => networkMatchesPattern(pattern as `${string}:${string}`, network as `${string}:${string}`)).flatMap(([, s]) => s);
      return { network, state: "supported", scheme: kind.scheme, signers };
    });
  }

  health(): Record<string, unknown> {
    return {
      url: this.url,
      state: this.reachable === undefined ? "checking" : this.reachable ? "reachable" : "unreachable",
      ...(this.checkedAt ? { checked_at: new Date(this.checkedAt).toISOString() } : {}),
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** One log line per network whose state changed since the last read: never the same warning twice in a row. */
  private logChanges(): void {
    for (const s of this.states()) {
      if (this.said.get(s.network) === s.state) continue;
      this.said.set(s.network, s.state);
      if (s.state === "supported") this.log.info({ network: s.network, facilitator: this.url, signers: s.signers }, "x402: the facilitator settles payments on this network");
      else this.log.warn({ network: s.network, facilitator: this.url, detail: s.detail }, s.state === "unsupported" ? "x402: the facilitator does not settle payments on this network" : "x402: the facilitator cannot be reached");
    }
  }
}
