// Stopping the server while a keyed call waits on its upstream: within the grace period the call finishes and is
// charged; past it the call is cut off, nothing is logged as an error ("database is not open" was), and the
// next start gives the call back.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { fixture, startTestServer, tempDir } from "../support/helpers.ts";
import { openStore } from "../../engine/access/store/index.ts";
import type { AccessService } from "../../engine/access/index.ts";

interface LogLine { level: number; msg: string }

/** The Bank of England's database, answering its CSV after `delayMs`. */
async function slowBankOfEngland(delayMs: number): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((_req, res) => {
    setTimeout(() => res.writeHead(200, { "content-type": "application/csv" }).end(fixture("bank-of-england:IUDBEDR.csv")), delayMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => (server.closeAllConnections(), server.close()) };
}

async function keyedCallDuringStop(graceMs: number) {
  const upstream = await slowBankOfEngland(600);
  const dataDir = tempDir("pda-stop-");
  const lines: LogLine[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const server = await startTestServer({ log, env: { DATA_DIR: dataDir, DATABASE_URL: "", UPSTREAM_BANK_OF_ENGLAND: upstream.url, X402_PAY_TO: "" }, config: { shutdownGraceMs: graceMs } });
  const minted = (await (server.engine.access as AccessService).mintKey("10.7.0.1"))!;
  const call = fetch(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`, { headers: { "X-API-Key": minted.key } })
    .then(async (r) => ({ status: r.status, body: (await r.json()) as { meta?: { paid_by?: string } } }), () => ({ status: 0, body: {} as { meta?: { paid_by?: string } } }));
  await new Promise((r) => setTimeout(r, 200));
  await server.close();
  const answer = await call;
  // The upstream still answers: a call cut off past the grace period wakes after the store closed.
  await new Promise((r) => setTimeout(r, 800));
  upstream.close();
  return { answer, lines, dataDir, keyId: minted.record.id };
}

describe("stopping with a call in flight", function () {
  this.timeout(20_000);

  it("lets the call finish within the grace period: answered 200 and charged once", async () => {
    const { answer, lines, dataDir, keyId } = await keyedCallDuringStop(5_000);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.meta?.paid_by, "allowance");
    assert.deepEqual(lines.filter((l) => l.level >= 50).map((l) => l.msg), []);
    const store = await openStore({ dataDir });
    assert.deepEqual((await store.calls({ principal: `key:${keyId}` })).map((c) => c.outcome), ["ok"]);
    await store.close();
  });

  it("past the grace period cuts the call off without an error, and the next start gives it back", async () => {
    const { answer, lines, dataDir, keyId } = await keyedCallDuringStop(50);
    assert.equal(answer.status, 0, "the connection was cut before an answer");
    assert.deepEqual(lines.filter((l) => l.level >= 50).map((l) => l.msg), []);
    const next = await startTestServer({ env: { DATA_DIR: dataDir, DATABASE_URL: "" } });
    await next.close();
    const store = await openStore({ dataDir });
    assert.deepEqual((await store.calls({ principal: `key:${keyId}` })).map((c) => c.outcome), ["interrupted"]);
    await store.close();
  });
});
