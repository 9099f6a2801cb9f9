// Access control. Until the access issue lands, every call runs free; prices are already in every file.
import type { Access, Grant } from "./types.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Registry } from "../registry.ts";

export interface AccessDeps { config: Config; log: Logger; registry: Registry; env: NodeJS.ProcessEnv }

export async function createAccess(_deps: AccessDeps): Promise<Access> {
  const grant: Grant = { paidBy: "free", headers: {}, commit: async () => ({ headers: {}, meta: {} }), release: async () => {} };
  return { authorize: async () => grant, close: async () => {} };
}
