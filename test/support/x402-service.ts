// The service under test for the access suites: the real engine and access layer, on a copy of the
// bank-of-england group with small allowances (so buckets run out in a few calls), paid through a local chain.
//   group bank-of-england: 3 free calls a day without a key (MCP), 5 with a key; bank-rate and sonia draw from it,
//   and sonia also from its own endpoint bucket of 1 / 2.
// Upstream: the Bank of England CSV fixtures of endpoints/bank-of-england/fixtures, replayed with nock.
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import { ROOT, fixture, startTestServer, tempDir } from "./helpers.ts";
import { DEFAULT_NETWORK } from "../../engine/access/settings.ts";
import type { Running } from "../../engine/http/server.ts";
import type { X402Chain } from "./x402-chain.ts";

/**
 * x402 offered on the default testnet with a facilitator nobody answers at: enough for a 402 to be built, for
 * suites that never settle a payment.
 */
export const TESTNET_X402_ENV = { X402_NETWORK: DEFAULT_NETWORK, X402_PAY_TO: "0x00000000000000000000000000000000000000aa", X402_FACILITATOR_URL: "http://127.0.0.1:9/facilitator" };

export const BOE = "https://www.bankofengland.co.uk";
export const BOE_PATH = "/boeapps/database/_iadb-fromshowcolumns.asp";
export const GROUP_ALLOWANCE = { anonymous: 3, key: 5 };
export const SONIA_ALLOWANCE = { anonymous: 1, key: 2 };

/** A temporary endpoints folder: the real bank-of-england files with test-sized allowances. */
export function smallAllowanceEndpoints(): string {
  const dir = path.join(tempDir("pda-access-endpoints-"), "bank-of-england");
  fs.mkdirSync(dir, { recursive: true });
  const src = path.join(ROOT, "endpoints", "bank-of-england");
  const group = fs.readFileSync(path.join(src, "_group.yaml"), "utf8").replace(/^allowance:.*$/m, `allowance: { anonymous: ${GROUP_ALLOWANCE.anonymous}, key: ${GROUP_ALLOWANCE.key} }`);
  fs.writeFileSync(path.join(dir, "_group.yaml"), group);
  fs.copyFileSync(path.join(src, "bank-rate.yaml"), path.join(dir, "bank-rate.yaml"));
  fs.writeFileSync(path.join(dir, "sonia.yaml"), `${fs.readFileSync(path.join(src, "sonia.yaml"), "utf8")}\nallowance: { anonymous: ${SONIA_ALLOWANCE.anonymous}, key: ${SONIA_ALLOWANCE.key} }\n`);
  return path.dirname(dir);
}

/** Replays the Bank of England database for bank-rate and sonia (any number of calls); a `from` of 1999-01-01 gets an HTML error page (-> 502). */
export function mockBankOfEngland(): void {
  nock(BOE).persist().get(BOE_PATH).query((q) => q.Datefrom === "01/Jan/1999").reply(200, fixture("bank-of-england:not-a-series.html"), { "content-type": "text/html" });
  for (const series of ["IUDBEDR", "IUDSOIA"]) {
    nock(BOE).persist().get(BOE_PATH).query((q) => q.SeriesCodes === series && q.Datefrom !== "01/Jan/1999").reply(200, fixture(`bank-of-england:${series}.csv`), { "content-type": "application/csv" });
  }
}

export async function startAccessServer(chain: X402Chain, env: Record<string, string> = {}): Promise<Running> {
  mockBankOfEngland();
  return startTestServer({ env: { ...chain.env, ...env }, config: { endpointsDir: smallAllowanceEndpoints() } });
}
