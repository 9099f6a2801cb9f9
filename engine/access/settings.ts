// Access configuration from the environment (documented in docs/configuration.md).
import type { Config } from "../config.ts";

/** USDC per network, from @x402/evm's default-asset table: the EIP-712 name differs between Base and Base Sepolia. */
const USDC: Record<string, { asset: string; name: string; version: string }> = {
  "eip155:8453": { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", name: "USD Coin", version: "2" },
  "eip155:84532": { asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", name: "USDC", version: "2" },
};

export interface X402Settings {
  network: string;
  asset: string;
  assetName: string;
  assetVersion: string;
  /** Where payments go; without it the service cannot ask for payment (402s say so). */
  payTo?: string;
  facilitatorUrl: string;
  /** A JSON-RPC URL of the network: settlements whose answer was lost are checked on chain through it. */
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
  const network = env.X402_NETWORK || "eip155:8453";
  const usdc = USDC[network];
  const asset = env.X402_ASSET || usdc?.asset;
  if (!asset) throw new Error(`X402_ASSET must be set for the network ${network} (USDC is known only on ${Object.keys(USDC).join(", ")})`);
  return {
    baseUrl: config.baseUrl,
    freeKeysPerDay: num(env.FREE_KEYS_PER_DAY, 5),
    leaseMs: Math.max(1, num(env.PENDING_STALE_SECONDS, 60)) * 1000,
    shared: Boolean(config.databaseUrl),
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    x402: {
      network,
      asset,
      assetName: env.X402_ASSET_NAME || usdc?.name || "USD Coin",
      assetVersion: env.X402_ASSET_VERSION || usdc?.version || "2",
      payTo: env.X402_PAY_TO || undefined,
      facilitatorUrl: env.X402_FACILITATOR_URL || "https://x402.org/facilitator",
      rpcUrl: env.X402_RPC_URL || undefined,
      maxTimeoutSeconds: num(env.X402_MAX_TIMEOUT_SECONDS, 60),
    },
    stripe: {
      secretKey: env.STRIPE_SECRET_KEY || undefined,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
      apiUrl: env.STRIPE_API_URL || undefined,
      minUsd: num(env.CREDIT_MIN_USD, 1),
      maxUsd: num(env.CREDIT_MAX_USD, 500),
    },
  };
}
