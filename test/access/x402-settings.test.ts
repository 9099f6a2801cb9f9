// x402 settings from the environment: testnet defaults, the CDP facilitator and its auth, several networks.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { createFacilitatorConfig } from "@coinbase/x402";
import { accessSettings, CDP_FACILITATOR_URL } from "../../engine/access/settings.ts";
import { facilitatorClient } from "../../engine/access/facilitator.ts";
import { Payments } from "../../engine/access/x402.ts";
import type { Config } from "../../engine/config.ts";
import { memoryLog } from "../support/helpers.ts";

const config = { baseUrl: "http://127.0.0.1:8080" } as Config;
const x402 = (env: NodeJS.ProcessEnv) => accessSettings(config, env).x402;
const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

/** A CDP-format Ed25519 secret (base64 of seed and public key). */
function cdpSecret(): string {
  const jwk = crypto.generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  return Buffer.concat([Buffer.from(jwk.d!, "base64url"), Buffer.from(jwk.x!, "base64url")]).toString("base64");
}
const claimsOf = (authorization: string) => JSON.parse(Buffer.from(authorization.replace(/^Bearer /, "").split(".")[1], "base64url").toString());

describe("x402 settings", () => {
  it("default to a testnet with the testnet facilitator: Base Sepolia on x402.org, no CDP", () => {
    const s = x402({});
    assert.deepEqual(s.networks.map((n) => n.network), ["eip155:84532"]);
    assert.equal(s.facilitatorUrl, "https://x402.org/facilitator");
    assert.equal(s.cdp, undefined);
  });

  it("use CDP's facilitator with a CDP key; X402_FACILITATOR_URL still overrides the URL and keeps the key", () => {
    const env = { CDP_API_KEY_ID: "key-id", CDP_API_KEY_SECRET: "secret" };
    assert.equal(x402(env).facilitatorUrl, CDP_FACILITATOR_URL);
    assert.deepEqual(x402(env).cdp, { keyId: "key-id", keySecret: "secret" });
    const other = x402({ ...env, X402_FACILITATOR_URL: "http://127.0.0.1:4021/x402" });
    assert.equal(other.facilitatorUrl, "http://127.0.0.1:4021/x402");
    assert.ok(other.cdp);
    assert.deepEqual(x402(env).networks.map((n) => n.network), ["eip155:84532"], "a key alone moves no money on a mainnet");
  });

  it("refuse half a CDP key", () => {
    assert.throws(() => x402({ CDP_API_KEY_ID: "key-id" }), /CDP_API_KEY_ID and CDP_API_KEY_SECRET must be set together/);
    assert.throws(() => x402({ CDP_API_KEY_SECRET: "s" }), /CDP_API_KEY_ID and CDP_API_KEY_SECRET must be set together/);
  });

  it("sign CDP's URL exactly as @coinbase/x402's own createFacilitatorConfig does (same uris claims)", async () => {
    const secret = cdpSecret();
    const ours = facilitatorClient(x402({ CDP_API_KEY_ID: "key-id", CDP_API_KEY_SECRET: secret }));
    const official = (await createFacilitatorConfig("key-id", secret).createAuthHeaders!()) as Record<string, Record<string, string>>;
    for (const op of ["verify", "settle", "supported"]) {
      const { headers } = await ours.createAuthHeaders(op);
      assert.deepEqual(claimsOf(headers.Authorization).uris, claimsOf(official[op].Authorization).uris, op);
      assert.equal(claimsOf(headers.Authorization).iss, "cdp");
    }
  });

  it("read X402_NETWORKS: one entry per network, EVM paid to X402_PAY_TO and Solana to X402_PAY_TO_SOLANA; it wins over X402_NETWORK", () => {
    const s = x402({ X402_NETWORKS: ` eip155:8453, ${SOLANA}`, X402_NETWORK: "eip155:84532", X402_PAY_TO: "0xabc", X402_PAY_TO_SOLANA: "SoLPayTo" });
    assert.deepEqual(s.networks.map((n) => [n.network, n.family, n.payTo]), [["eip155:8453", "evm", "0xabc"], [SOLANA, "solana", "SoLPayTo"]]);
    assert.deepEqual(x402({ X402_NETWORK: "eip155:8453" }).networks.map((n) => n.network), ["eip155:8453"]);
  });

  it("refuse what cannot be a payment network, a network named twice, and X402_ASSET for several EVM networks", () => {
    assert.throws(() => x402({ X402_NETWORKS: "base" }), /"base" is not a CAIP-2 network id/);
    assert.throws(() => x402({ X402_NETWORKS: "cosmos:cosmoshub-4" }), /neither an EVM .* nor a Solana/);
    assert.throws(() => x402({ X402_NETWORKS: "eip155:8453,eip155:8453" }), /names a network twice/);
    assert.throws(() => x402({ X402_NETWORKS: "eip155:8453,eip155:137", X402_ASSET: "0x1" }), /X402_ASSET .* exactly one eip155 network/);
  });

  it("stop the start on a network whose USDC is not known and no X402_ASSET, naming the variable", async () => {
    const payments = new Payments(x402({ X402_NETWORK: "eip155:31337", X402_PAY_TO: "0xabc" }), memoryLog().log);
    await assert.rejects(payments.start(), /no USDC is known on eip155:31337 .*set X402_ASSET/);
  });
});
