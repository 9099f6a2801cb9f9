// A stand-in for Coinbase's CDP facilitator, on loopback, for tests of the service's facilitator client:
//   - every request must carry a CDP API key's JWT as CDP checks it: "Authorization: Bearer <jwt>", EdDSA (Ed25519)
//     signed by the key, header kid = the key id, claims iss "cdp", sub = the key id, nbf/exp around now, and
//     uris = ["<METHOD> <host><path>"] naming this very request (what @coinbase/cdp-sdk's generateJwt makes; CDP
//     refuses a JWT made for another request). A request that fails any of it gets 401; all are recorded.
//   - GET <base>/supported says which networks it settles (exact scheme, x402 v2) and its signers;
//   - POST <base>/verify and /settle run the x402 library's own Solana facilitator (x402Facilitator + @x402/svm's
//     ExactSvmScheme): the transaction is decoded and checked as the real one does (transfer instruction, amount,
//     destination, mint, fee payer, the payer's Ed25519 signature). Not real: the chain. Simulation always
//     passes and settlement "sends" nothing: its transaction id is made up.
//   - POST /rpc answers the two Solana JSON-RPC calls an x402 Solana client makes (the USDC mint account, a recent
//     blockhash), so that the real @x402/svm client can build the payment offline.
// Sources: the JWT as made by @coinbase/cdp-sdk 1.57 src/auth/utils/jwt.ts; the facilitator API of
// specs/x402-specification-v2.md §7 (coinbase/x402); the mint layout of the SPL Token program (82 bytes).
import crypto from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import { TOKEN_PROGRAM_ADDRESS } from "@x402/svm";
import { generateKeyPairSigner, getBase58Decoder, getBase58Encoder, type Address } from "@solana/kit";

export const CDP_PATH = "/platform/v2/x402";

export interface RecordedRequest { method: string; path: string; status: number; error?: string; claims?: Record<string, unknown> }

export interface StandInFacilitator {
  /** The facilitator's base URL (X402_FACILITATOR_URL). */
  url: string;
  rpcUrl: string;
  /** A CDP API key the stand-in accepts: CDP_API_KEY_ID / CDP_API_KEY_SECRET (Ed25519, base64 of seed + public key). */
  keyId: string;
  keySecret: string;
  /** The Solana fee payer it names in /supported. */
  feePayer: Address;
  requests: RecordedRequest[];
  /** Which networks /supported names from now on (Solana ones are verified as above; EVM ones only listed). */
  settles(networks: string[]): void;
  /** Stops answering /supported (503) until told otherwise. */
  down(isDown: boolean): void;
  /** Makes sending a Solana settlement fail (as a refused transaction does) until told otherwise. */
  failSends(fail: boolean): void;
  close(): Promise<void>;
}

const b64url = (s: string) => Buffer.from(s, "base64url");

export async function startStandInFacilitator(opts: { networks: string[] }): Promise<StandInFacilitator> {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  const keyId = `organizations/test-org/apiKeys/${crypto.randomUUID()}`;
  const keySecret = Buffer.concat([b64url(jwk.d!), b64url(jwk.x!)]).toString("base64");

  const feePayerSigner = await generateKeyPairSigner();
  const feePayer = feePayerSigner.address;
  let sendsFail = false;
  const signer = {
    getAddresses: () => [feePayer],
    signTransaction: async (tx: string) => tx,
    simulateTransaction: async () => undefined,
    sendTransaction: async () => {
      if (sendsFail) throw new Error("the stand-in refuses to send");
      return getBase58Decoder().decode(crypto.randomBytes(64));
    },
    confirmTransaction: async () => undefined,
  };
  let networks = opts.networks;
  let isDown = false;
  const solana = () => {
    const f = new x402Facilitator();
    const svm = networks.filter((n) => n.startsWith("solana:")) as `${string}:${string}`[];
    return svm.length ? f.register(svm, new ExactSvmScheme(signer as never)) : f;
  };
  let facilitator = solana();
  const requests: RecordedRequest[] = [];

  const app = express();
  app.use(express.json({ limit: "1mb" }));
  const refuse = (req: express.Request, res: express.Response, status: number, error: string, claims?: Record<string, unknown>) => {
    requests.push({ method: req.method, path: req.path, status, error, claims });
    res.status(status).json({ errorType: "unauthorized", errorMessage: error });
  };

  app.use(CDP_PATH, (req, res, next) => {
    const jwt = /^Bearer (.+)$/.exec(req.get("authorization") ?? "")?.[1];
    if (!jwt) return refuse(req, res, 401, "no Bearer JWT");
    const [h, p, s] = jwt.split(".");
    let header: Record<string, unknown>, claims: Record<string, unknown>;
    try {
      header = JSON.parse(b64url(h).toString());
      claims = JSON.parse(b64url(p).toString());
    } catch {
      return refuse(req, res, 401, "the JWT is not three base64url JSON parts");
    }
    if (header.alg !== "EdDSA" || header.typ !== "JWT" || header.kid !== keyId || typeof header.nonce !== "string") return refuse(req, res, 401, `bad JWT header ${JSON.stringify(header)}`, claims);
    if (!crypto.verify(null, Buffer.from(`${h}.${p}`), publicKey, b64url(s))) return refuse(req, res, 401, "the JWT's signature is not the key's", claims);
    const now = Math.floor(Date.now() / 1000);
    const uri = `${req.method} ${req.get("host")}${req.originalUrl.split("?")[0]}`;
    if (claims.iss !== "cdp" || claims.sub !== keyId) return refuse(req, res, 401, "iss must be cdp and sub the key id", claims);
    if (!(Number(claims.nbf) <= now + 5 && now < Number(claims.exp))) return refuse(req, res, 401, "the JWT is not valid now", claims);
    if (JSON.stringify(claims.uris) !== JSON.stringify([uri])) return refuse(req, res, 401, `the JWT's uris ${JSON.stringify(claims.uris)} do not name this request (${uri})`, claims);
    requests.push({ method: req.method, path: req.path, status: 200, claims });
    next();
  });

  app.get(`${CDP_PATH}/supported`, (_req, res) => {
    if (isDown) return void res.status(503).json({ errorMessage: "down for the test" });
    const own = facilitator.getSupported();
    const evm = networks.filter((n) => n.startsWith("eip155:"));
    res.json({
      kinds: [...own.kinds, ...evm.map((network) => ({ x402Version: 2, scheme: "exact", network }))],
      extensions: [],
      signers: { ...own.signers, ...(evm.length ? { "eip155:*": ["0x4b0B1d5E5bEa1D5d1b52BD3F5F0f7F8a0A3c7c11"] } : {}) },
    });
  });
  for (const op of ["verify", "settle"] as const) {
    app.post(`${CDP_PATH}/${op}`, async (req, res) => {
      try {
        res.json(await facilitator[op](req.body.paymentPayload, req.body.paymentRequirements));
      } catch (e) {
        res.status(500).json({ errorMessage: (e as Error).message });
      }
    });
  }

  // Solana JSON-RPC, as much as a paying client needs: any mint is a 6-decimal SPL Token mint.
  app.post("/rpc", (req, res) => {
    const { id, method } = req.body;
    const context = { slot: 1 };
    if (method === "getLatestBlockhash") {
      return void res.json({ jsonrpc: "2.0", id, result: { context, value: { blockhash: getBase58Decoder().decode(crypto.randomBytes(32)), lastValidBlockHeight: 1000 } } });
    }
    if (method === "getAccountInfo") {
      const mint = Buffer.alloc(82); // COption<Pubkey> authority, u64 supply, u8 decimals, bool initialized, COption<Pubkey> freeze
      mint.writeUInt32LE(1, 0);
      Buffer.from(getBase58Encoder().encode(feePayer)).copy(mint, 4);
      mint.writeBigUInt64LE(1_000_000_000_000n, 36);
      mint[44] = 6;
      mint[45] = 1;
      return void res.json({ jsonrpc: "2.0", id, result: { context, value: { data: [mint.toString("base64"), "base64"], executable: false, lamports: 1461600, owner: TOKEN_PROGRAM_ADDRESS, rentEpoch: 0, space: 82 } } });
    }
    res.json({ jsonrpc: "2.0", id, error: { code: -32601, message: `${method} is not served by the stand-in` } });
  });

  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${CDP_PATH}`,
    rpcUrl: `${origin}/rpc`,
    keyId,
    keySecret,
    feePayer,
    requests,
    settles: (n) => {
      networks = n;
      facilitator = solana();
    },
    down: (d) => void (isDown = d),
    failSends: (f) => void (sendsFail = f),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
