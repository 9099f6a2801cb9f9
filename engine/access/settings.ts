// Access configuration from the environment (documented in docs/configuration.md).
import type { Config } from "../config.ts";

/** Base Sepolia: the network of the default (public, testnet-only) facilitator, so no default suggests mainnet works. */
export const DEFAULT_NETWORK: NetworkSettings["network"] = "eip155:84532";
export const DEFAULT_FACILITATOR_URL = "https://x402.org/facilitator";
/** Coinbase's hosted facilitator (CDP): settles Base, Solana, Polygon and Arbitrum mainnets; needs a CDP API key. */
export const CDP_FACILITATOR_URL = "https://api.cdp.coinbase.com/platform/v2/x402";

/** One network payments are offered on; its USDC comes from the x402 scheme's table unless X402_ASSET says otherwise. */
export interface NetworkSettings {
  network: `${string}:${string}`;
  family: "evm" | "solana";
  /** Where payments on this network go (X402_PAY_TO for EVM, X402_PAY_TO_SOLANA for Solana); unset: not offered. */
  payTo?: string;
  /** An explicit token (X402_ASSET with its EIP-712 X402_ASSET_NAME / X402_ASSET_VERSION), for a network without a known USDC. */
  asset?: { asset: string; name: string; version: string };
}

export interface X402Settings {
  /** In the order of the 402's accepts. */
  networks: NetworkSettings[];
  /** The EVM pay-to address (X402_PAY_TO). */
  payTo?: string;
  facilitatorUrl: string;
  /** A CDP API key: every /supported, /verify and /settle carries its JWT. */
  cdp?: { keyId: string; keySecret: string };
  /** How often the facilitator's /supported is read again. */
  supportedRefreshMs: number;
  /** A JSON-RPC URL of the (EVM) network: settlements whose answer was lost are checked on chain through it. */
  rpcUrl?: string;
  maxTimeoutSeconds: number;
}

export interface StripeSettings {
  secretKey?: string;
  webhookSecret?: string;
  /** Another Stripe API base (a stub in tests): http://127.0.0.1:12111 */
  apiUrl?: string;
  minUsd: number;
  maxUsd: number;
}

export interface AccessSettings {
  baseUrl: string;
  freeKeysPerDay: number;
  /**
   * An instance's lease: it renews it every third of this; an instance silent this long is taken as gone, and its
   * pending calls are given back by the others (PostgreSQL) or at the next start (SQLite).
   */
  leaseMs: number;
  /** Several instances share the store (PostgreSQL): they sweep for each other's interrupted calls. */
  shared: boolean;
  databaseSchema?: string;
  x402: X402Settings;
  stripe: StripeSettings;
}

const num = (v: string | undefined, dflt: number) => (v === undefined || v === "" ? dflt : Number(v));

export function accessSettings(config: Config, env: NodeJS.ProcessEnv): AccessSettings {
  return {
    baseUrl: config.baseUrl,
    freeKeysPerDay: num(env.FREE_KEYS_PER_DAY, 5),
    leaseMs: Math.max(1, num(env.PENDING_STALE_SECONDS, 60)) * 1000,
    shared: Boolean(config.databaseUrl),
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    x402: x402Settings(env),
    stripe: {
      secretKey: env.STRIPE_SECRET_KEY || undefined,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
      apiUrl: env.STRIPE_API_URL || undefined,
      minUsd: num(env.CREDIT_MIN_USD, 1),
      maxUsd: num(env.CREDIT_MAX_USD, 500),
    },
  };
}

function x402Settings(env: NodeJS.ProcessEnv): X402Settings {
  const cdp = env.CDP_API_KEY_ID && env.CDP_API_KEY_SECRET ? { keyId: env.CDP_API_KEY_ID, keySecret: env.CDP_API_KEY_SECRET } : undefined;
  if (Boolean(env.CDP_API_KEY_ID) !== Boolean(env.CDP_API_KEY_SECRET)) throw new Error("CDP_API_KEY_ID and CDP_API_KEY_SECRET must be set together (the CDP API key's id and its secret)");
  return {
    networks: networkSettings(env),
    payTo: env.X402_PAY_TO || undefined,
    facilitatorUrl: env.X402_FACILITATOR_URL || (cdp ? CDP_FACILITATOR_URL : DEFAULT_FACILITATOR_URL),
    cdp,
    supportedRefreshMs: Math.max(1000, num(env.X402_SUPPORTED_REFRESH_MS, 300_000)),
    rpcUrl: env.X402_RPC_URL || undefined,
    maxTimeoutSeconds: num(env.X402_MAX_TIMEOUT_SECONDS, 60),
  };
}

/** X402_NETWORKS (comma-separated CAIP-2 ids), else the single X402_NETWORK, else Base Sepolia. */
function networkSettings(env: NodeJS.ProcessEnv): NetworkSettings[] {
  const ids = (env.X402_NETWORKS || env.X402_NETWORK || DEFAULT_NETWORK).split(",").map((n) => n.trim()).filter(Boolean);
  const families = ids.map((id) => {
    if (!/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(id)) throw new Error(`X402_NETWORKS: "${id}" is not a CAIP-2 network id (e.g. eip155:8453, solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp)`);
    if (id.startsWith("eip155:")) return "evm" as const;
    if (id.startsWith("solana:")) return "solana" as const;
    throw new Error(`X402_NETWORKS: ${id} is neither an EVM (eip155:…) nor a Solana (solana:…) network; the service takes payments on those two families only`);
  });
  if (new Set(ids).size !== ids.length) throw new Error(`X402_NETWORKS names a network twice: ${ids.join(",")}`);
  const evmCount = families.filter((f) => f === "evm").length;
  if (env.X402_ASSET && evmCount !== 1) throw new Error("X402_ASSET names the token of one EVM network: set it only when X402_NETWORKS has exactly one eip155 network");
  const asset = env.X402_ASSET ? { asset: env.X402_ASSET, name: env.X402_ASSET_NAME || "USD Coin", version: env.X402_ASSET_VERSION || "2" } : undefined;
  return ids.map((id, i) => families[i] === "evm"
    ? { network: id as `${string}:${string}`, family: "evm", payTo: env.X402_PAY_TO || undefined, asset }
    : { network: id as `${string}:${string}`, family: "solana", payTo: env.X402_PAY_TO_SOLANA || undefined });
}
