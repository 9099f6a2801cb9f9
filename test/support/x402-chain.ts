// A real x402 payment setup for tests, all in this process and on loopback (protocols.md §3):
//   hardhat's in-process chain (chain id 31337) -> an EIP-3009 token compiled with solc and deployed with viem
//   -> the @x402 library's real facilitator (x402Facilitator + ExactEvmScheme) served over HTTP on 127.0.0.1
//   -> a funded payer account and an x402-paying fetch.
//
//   const chain = await startX402Chain();
//   const server = await startTestServer({ env: { ...chain.env } });     // X402_* variables for the service
//   const res = await chain.payingFetch(`${server.url}/v1/...`);        // pays on 402 and retries
//   await chain.balanceOf(chain.payTo);                                  // atomic units (bigint)
//   await chain.close();
//
// Real: signatures, EIP-712 domain, facilitator verification and simulation, on-chain transfer and nonce use, all
// x402 wire formats. Not real: Base itself, Circle's USDC bytecode (ours is minimal), the hosted facilitator, gas markets.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import solc from "solc";
import { createPublicClient, createWalletClient, custom, defineChain, publicActions, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, nonceManager, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactEvmScheme as FacilitatorExactEvm } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme as ClientExactEvm } from "@x402/evm/exact/client";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { TEST_USDC_SOURCE } from "./chain-token.ts";

export const CHAIN_ID = 31337;
export const NETWORK = `eip155:${CHAIN_ID}`;
export const TOKEN_NAME = "USD Coin";
export const TOKEN_VERSION = "2";

// hardhat's public dev accounts (the "test test ... junk" mnemonic), pre-funded with ETH for gas.
const FACILITATOR_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const DEPLOYER_KEY: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

const TOKEN_ABI = [
  { type: "function", name: "mint", stateMutability: "nonpayable", inputs: [{ name: "to", type: "address" }, { name: "value", type: "uint256" }], outputs: [] },
  { type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "a", type: "address" }], outputs: [{ type: "uint256" }] },
  { type: "function", name: "authorizationState", stateMutability: "view", inputs: [{ name: "a", type: "address" }, { name: "n", type: "bytes32" }], outputs: [{ type: "bool" }] },
] as const;

/**
 * How the facilitator answers /settle: as the library does; with a failure full of facilitator internals (viem text,
 * calldata, addresses); settling on chain and then dropping the connection; or dropping it without settling.
 */
export type SettleMode = "normal" | "verbose-failure" | "settle-then-drop" | "drop";

export interface X402Chain {
  network: string;
  /** The token contract (the x402 `asset`). */
  asset: Address;
  /** Where payments go (the service's payTo). */
  payTo: Address;
  /** A funded payer (5 USDC unless told otherwise). */
  payer: PrivateKeyAccount;
  facilitatorUrl: string;
  /** The chain's JSON-RPC over HTTP (X402_RPC_URL). */
  rpcUrl: string;
  /** Changes how the facilitator answers /settle from now on. */
  settleMode(mode: SettleMode): void;
  /** Settles a payment on chain through the facilitator directly (a settlement that lands late). */
  settle(payload: PaymentPayload): Promise<{ success: boolean; transaction: string }>;
  /** The X402_* variables that point the service at this chain (docs/configuration.md). */
  env: Record<string, string>;
  publicClient: PublicClient;
  /** fetch that answers a 402 by paying with the payer and retrying once (the real @x402/fetch client). */
  payingFetch: typeof fetch;
  /** The x402 client itself, e.g. to build a PaymentPayload for MCP: client.createPaymentPayload(paymentRequired). */
  client: x402Client;
  /** Another x402 client of the same payer, for a test to add its own hooks to. */
  newClient(): x402Client;
  /** How many times the facilitator was asked to settle. */
  settleRequests(): number;
  createPaymentPayload(paymentRequired: PaymentRequired): Promise<PaymentPayload>;
  balanceOf(address: Address): Promise<bigint>;
  nonceUsed(from: Address, nonce: Hex): Promise<boolean>;
  mint(to: Address, amount: bigint): Promise<void>;
  close(): Promise<void>;
}

let compiled: { abi: unknown[]; bytecode: Hex } | undefined;

/** Compiles the test token once per process (solc-js, ~2 s). */
function compileToken(): { abi: unknown[]; bytecode: Hex } {
  if (compiled) return compiled;
  const input = {
    language: "Solidity",
    sources: { "TestUSDC.sol": { content: TEST_USDC_SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length) throw new Error(`solc: ${errors.map((e: { formattedMessage: string }) => e.formattedMessage).join("\n")}`);
  const c = out.contracts["TestUSDC.sol"].TestUSDC;
  compiled = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return compiled;
}

async function hardhatProvider(): Promise<{ request(args: { method: string; params?: unknown }): Promise<unknown> }> {
  // One in-process chain per test process; every harness deploys its own token on it.
  const hre = (await import("hardhat")).default as unknown as { network: { provider: { request(args: { method: string; params?: unknown }): Promise<unknown> } } };
  return hre.network.provider;
}

export async function startX402Chain(opts: { payerFunds?: bigint } = {}): Promise<X402Chain> {
  const provider = await hardhatProvider();
  const chain = defineChain({ id: CHAIN_ID, name: "hardhat", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: ["http://127.0.0.1:8545"] } } });
  const transport = custom(provider);
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;

  const deployer = createWalletClient({ account: privateKeyToAccount(DEPLOYER_KEY, { nonceManager }), chain, transport });
  const { abi, bytecode } = compileToken();
  const deployTx = await deployer.deployContract({ abi, bytecode, args: [TOKEN_NAME, TOKEN_VERSION] });
  const asset = (await publicClient.waitForTransactionReceipt({ hash: deployTx })).contractAddress as Address;

  const mint = async (to: Address, amount: bigint) => {
    const hash = await deployer.writeContract({ address: asset, abi: TOKEN_ABI, functionName: "mint", args: [to, amount] });
    await publicClient.waitForTransactionReceipt({ hash });
  };
  const payer = privateKeyToAccount(generatePrivateKey());
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  await mint(payer.address, opts.payerFunds ?? 5_000_000n);

  // The facilitator: the library's own verify/settle code, paying gas from a dev account with a nonce manager.
  const facilitatorAccount = privateKeyToAccount(FACILITATOR_KEY, { nonceManager });
  const w = createWalletClient({ account: facilitatorAccount, chain, transport }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({
    address: facilitatorAccount.address,
    getCode: (a) => w.getCode(a),
    readContract: (a) => w.readContract({ ...a, args: a.args ?? [] } as never),
    verifyTypedData: (a) => w.verifyTypedData(a as never),
    writeContract: (a) => w.writeContract({ ...a, args: a.args ?? [] } as never),
    sendTransaction: (a) => w.sendTransaction(a as never),
    waitForTransactionReceipt: (a) => w.waitForTransactionReceipt(a),
  });
  const facilitator = new x402Facilitator().register(NETWORK, new FacilitatorExactEvm(signer));
  const app = express();
  app.use(express.json());
  app.get("/supported", (_req, res) => void res.json(facilitator.getSupported()));
  app.post("/verify", async (req, res) => {
    try {
      res.json(await facilitator.verify(req.body.paymentPayload, req.body.paymentRequirements));
    } catch (e) {
      res.status(500).json({ error: (e as Error).message });
    }
  });
  let mode: SettleMode = "normal";
  let settleRequests = 0;
  app.post("/settle", async (req, res) => {
    settleRequests++;
    if (mode === "drop") return void req.socket.destroy();
    if (mode === "verbose-failure") {
      const internals = `ContractFunctionExecutionError: The contract function "transferWithAuthorization" reverted. Contract Call: address: ${req.body.paymentRequirements.asset} function: transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) args: (${JSON.stringify(req.body.paymentPayload.payload)}) sender: ${facilitatorAccount.address} Docs: https://viem.sh/docs/contract/writeContract Version: viem@2.57.20 calldata 0x${"e3ee160e".padEnd(3000, "0")}`;
      return void res.json({ success: false, errorReason: `invalid_exact_evm_transaction_failed: ${internals}`, errorMessage: internals, transaction: "", network: NETWORK, payer: req.body.paymentPayload.payload.authorization.from });
    }
    try {
      const settled = await facilitator.settle(req.body.paymentPayload, req.body.paymentRequirements);
      if (mode === "settle-then-drop") return void req.socket.destroy();
      res.json(settled);
    } catch (e) {
      res.status(500).json({ error: (e as Error).message });
    }
  });
  // The chain's JSON-RPC over HTTP, for a service (or a command) in another process or with X402_RPC_URL.
  app.post("/rpc", async (req, res) => {
    try {
      res.json({ jsonrpc: "2.0", id: req.body.id, result: await provider.request({ method: req.body.method, params: req.body.params }) });
    } catch (e) {
      res.json({ jsonrpc: "2.0", id: req.body.id, error: { code: -32000, message: (e as Error).message } });
    }
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const facilitatorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const newClient = () => x402Client.fromConfig({
    schemes: [{ network: NETWORK, client: new ClientExactEvm(payer) }],
    spendControls: { allowedAssets: [{ network: NETWORK, asset, maxAmountPerPayment: "1000000" }] },
  } as never);
  const client = newClient();

  return {
    network: NETWORK,
    asset,
    payTo,
    payer,
    facilitatorUrl,
    rpcUrl: `${facilitatorUrl}/rpc`,
    settleMode: (m) => void (mode = m),
    settle: async (payload) => facilitator.settle(payload, payload.accepted),
    env: {
      X402_NETWORK: NETWORK,
      X402_ASSET: asset,
      X402_ASSET_NAME: TOKEN_NAME,
      X402_ASSET_VERSION: TOKEN_VERSION,
      X402_PAY_TO: payTo,
      X402_FACILITATOR_URL: facilitatorUrl,
    },
    publicClient,
    payingFetch: wrapFetchWithPayment(fetch, client),
    client,
    newClient,
    settleRequests: () => settleRequests,
    createPaymentPayload: (pr) => client.createPaymentPayload(pr),
    balanceOf: (a) => publicClient.readContract({ address: asset, abi: TOKEN_ABI, functionName: "balanceOf", args: [a] }),
    nonceUsed: (from, nonce) => publicClient.readContract({ address: asset, abi: TOKEN_ABI, functionName: "authorizationState", args: [from, nonce] }),
    mint,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
