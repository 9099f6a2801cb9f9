// Did an x402 payment settle? Asked when the facilitator's /settle answer was lost or was a failure: the EIP-3009
// token records each used authorization (authorizationState(from, nonce)), so the chain knows. Read it through
// X402_RPC_URL when set; else ask the facilitator to verify the payload again (a used nonce is refused as such).
import type { Address, Hex } from "viem";
import type { FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Logger } from "../basics/log.ts";

const TOKEN = [
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
] as const;

/** The chain's client: viem is big and only a settlement check needs it, so the first one loads it. */
async function chainClient(rpcUrl: string) {
  const { createPublicClient, http, parseAbi } = await import("viem");
  return { rpc: createPublicClient({ transport: http(rpcUrl, { timeout: 10_000 }) }), token: parseAbi(TOKEN) };
}

/** How far back the settlement transaction is looked for (blocks): a settlement is at most hours old. */
const LOG_WINDOW = 5_000n;

export interface Authorization { from: Address; nonce: Hex; validBefore: number }

export function authorizationOf(payment: PaymentPayload): Authorization | undefined {
  const a = (payment.payload as { authorization?: { from?: string; nonce?: string; validBefore?: string } }).authorization;
  return a?.from && a.nonce ? { from: a.from as Address, nonce: a.nonce as Hex, validBefore: Number(a.validBefore ?? 0) } : undefined;
}

/** used: settled (with its transaction when found); unused: not (yet) settled; undefined: nobody could tell. */
export type ChainAnswer = { used: true; transaction: string } | { used: false } | undefined;

export class SettlementCheck {
  private readonly rpcUrl?: string;
  private chain?: ReturnType<typeof chainClient>;
  private readonly facilitator: FacilitatorClient;
  private readonly log: Logger;

  constructor(opts: { rpcUrl?: string; facilitator: FacilitatorClient; log: Logger }) {
    this.rpcUrl = opts.rpcUrl;
    this.facilitator = opts.facilitator;
    this.log = opts.log;
  }

  async check(payment: PaymentPayload, req: PaymentRequirements): Promise<ChainAnswer> {
    const auth = authorizationOf(payment);
    if (!auth) return undefined;
    return this.rpcUrl ? this.onChain(req.asset as Address, auth) : this.byFacilitator(payment, req);
  }

  private async onChain(asset: Address, auth: Authorization): Promise<ChainAnswer> {
    try {
      const { rpc, token } = await (this.chain ??= chainClient(this.rpcUrl!));
      const used = await rpc.readContract({ address: asset, abi: token, functionName: "authorizationState", args: [auth.from, auth.nonce] });
      return used ? { used: true, transaction: await this.transactionOf(asset, auth) } : { used: false };
    } catch (err) {
      this.log.warn({ err }, "x402 settlement check: the RPC could not be read");
      return undefined;
    }
  }

  /** The settlement's transaction hash, from the token's AuthorizationUsed event; "" when not found. */
  private async transactionOf(asset: Address, auth: Authorization): Promise<string> {
    try {
      const { rpc, token } = await this.chain!;
      const latest = await rpc.getBlockNumber();
      const logs = await rpc.getLogs({ address: asset, event: token[1], args: { authorizer: auth.from, nonce: auth.nonce }, fromBlock: latest > LOG_WINDOW ? latest - LOG_WINDOW : 0n, toBlock: latest });
      return logs[0]?.transactionHash ?? "";
    } catch {
      return "";
    }
  }

  /** Without an RPC: a facilitator refuses an authorization whose nonce was used, and says so in its reason. */
  private async byFacilitator(payment: PaymentPayload, req: PaymentRequirements): Promise<ChainAnswer> {
    try {
      const v = await this.facilitator.verify(payment, req);
      if (v.isValid) return { used: false };
      return /nonce_already_used|authorization.*used/i.test(`${v.invalidReason} ${v.invalidMessage ?? ""}`) ? { used: true, transaction: "" } : undefined;
    } catch (e) {
      const reason = (e as { invalidReason?: string }).invalidReason ?? "";
      return /nonce_already_used/.test(reason) ? { used: true, transaction: "" } : undefined;
    }
  }
}
