// Operator commands of the access layer:
//   npm run keys -- create [--label TEXT]            a new key (printed once)
//   npm run credit -- grant <key|key-id> <usd> [--note TEXT] [--ref ID]   add (or, negative, remove) card credit
//   npm run credit -- show <key|key-id>              balance and credit ledger
//   npm run payments -- reconcile                    settles the x402 calls whose settlement is unknown, against the chain
// They use the same store as the server (DATA_DIR or DATABASE_URL).
import { parseArgs } from "node:util";
import type { Command } from "./command.ts";
import { loadConfig } from "../config.ts";
import { openStore } from "../access/store/index.ts";
import type { Store } from "../access/store/types.ts";
import { hashKey, newApiKey, utcDay } from "../access/keys.ts";
import { accessSettings } from "../access/settings.ts";
import { Payments } from "../access/x402.ts";
import { reconcileSettlements } from "../access/reconcile.ts";
import { createLogger } from "../basics/log.ts";

async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env);
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, schema: process.env.DATABASE_SCHEMA || undefined });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function findKey(store: Store, keyOrId: string) {
  const key = (await store.findKey(hashKey(keyOrId))) ?? (await store.keyById(keyOrId));
  if (!key) throw new Error(`No key ${keyOrId.slice(0, 8)}… (give the key itself or its key_id)`);
  return key;
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

export const accessCommands: Record<string, Command> = {
  async keys(args) {
    const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { label: { type: "string" } } });
    if (positionals[0] !== "create") fail("Usage: npm run keys -- create [--label TEXT]");
    await withStore(async (store) => {
      const key = newApiKey();
      const record = await store.mintKey({ hash: hashKey(key), clientId: "operator", day: utcDay().day, maxPerDay: Number.MAX_SAFE_INTEGER, label: values.label });
      console.log(JSON.stringify({ key, key_id: record!.id, label: values.label ?? null }, null, 2));
    });
  },

  async credit(args) {
    const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { note: { type: "string" }, ref: { type: "string" } } });
    const [action, keyOrId, amount] = positionals;
    await withStore(async (store) => {
      if (action === "grant" && keyOrId && amount !== undefined) {
        const micro = Math.round(Number(amount) * 1_000_000);
        if (!Number.isFinite(micro) || micro === 0) fail(`"${amount}" is not a dollar amount`);
        const key = await findKey(store, keyOrId);
        const ok = await store.addCredit({ keyId: key.id, deltaMicro: micro, kind: "grant", ref: values.ref ? `grant:${values.ref}` : undefined, note: values.note });
        if (!ok) fail(values.ref ? `Not applied: the reference ${values.ref} was used before, or the balance would go below zero.` : "Not applied: the balance would go below zero.");
        console.log(JSON.stringify({ key_id: key.id, credit_usd: ((await store.keyById(key.id))!.creditMicro) / 1_000_000 }));
      } else if (action === "show" && keyOrId) {
        const key = await findKey(store, keyOrId);
        const entries = await store.creditEntries(key.id);
        console.log(JSON.stringify({ key_id: key.id, credit_usd: key.creditMicro / 1_000_000, entries: entries.map((e) => ({ at: new Date(e.at).toISOString(), usd: e.deltaMicro / 1_000_000, kind: e.kind, ref: e.ref, note: e.note })) }, null, 2));
      } else {
        fail("Usage: npm run credit -- grant <key|key-id> <usd> [--note TEXT] [--ref ID] | show <key|key-id>");
      }
    });
  },

  async payments(args) {
    if (args[0] !== "reconcile") fail("Usage: npm run payments -- reconcile   (X402_RPC_URL: the chain to ask; else the facilitator)");
    const config = loadConfig(process.env);
    const payments = new Payments(accessSettings(config, process.env).x402, createLogger(config.logLevel));
    await withStore(async (store) => console.log(JSON.stringify(await reconcileSettlements(store, payments.check))));
  },
};
