// The x402 requirements of each endpoint as the access layer offers them, for the documents that list them.
import { isAccessService } from "../../access/index.ts";
import type { Offers } from "../openapi.ts";
import type { Engine } from "../../engine.ts";

export function offersOf(engine: Engine): Offers {
  const access = engine.access;
  return isAccessService(access) ? (e) => access.payments.offersFor(e) : () => [];
}
