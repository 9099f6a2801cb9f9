// Kill -9 during load, restart: the ledger, the allowance counters and the credit balances must agree with the
// responses that were sent. The server runs as a child process (`node engine/cli.ts serve`) on SQLite under a
// DATA_DIR of this test, then on PostgreSQL (a schema of this run, leases of 1 s), its upstream pointed
// (UPSTREAM_BANK_OF_ENGLAND) at a slow loopback server of the test. Each run reports what it saw.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { openStore, type StoreOptions } from "../../engine/access/store/index.ts";
import { TEST_DATABASE_URL, testSchema } from "../support/x402-postgres.ts";
import { hashKey, newApiKey, utcDay } from "../../engine/access/keys.ts";
import { fixture, tempDir } from "../support/helpers.ts";
import { exited, freePort, serve, waitHealthy } from "../support/processes.ts";

const KEY_ALLOWANCE = 1000; // bank-of-england's key size (endpoints/bank-of-england/_group.yaml)
const CREDIT = 1_000_000; // $1 in micro-dollars: 1000 calls at $0.001

/** Where the killed server keeps its store, and how the test reaches it. */
interface Backend {
  name: string;
  env: Record<string, string>;
  store: StoreOptions;
  /** Sets a bucket's use directly, as if the calls had been made. */
  setUsed(principal: string, day: string, used: number): Promise<void>;
  cleanup(): Promise<void>;
}

const sqlite = async (): Promise<Backend> => {
  const dataDir = tempDir("pda-crash-");
  return {
    name: "SQLite",
    env: { DATA_DIR: dataDir, DATABASE_URL: "" },
    store: { dataDir },
    setUsed: async (principal, day, used) => {
      const db = new DatabaseSync(path.join(dataDir, "access.sqlite"));
      db.prepare("INSERT INTO allowance_usage (bucket, principal, day, used) VALUES ('group:bank-of-england', ?, ?, ?)").run(principal, day, used);
      db.close();
    },
    cleanup: async () => {},
  };
};

const postgres = async (): Promise<Backend> => {
  const s = await testSchema();
  return {
    name: "PostgreSQL",
    // A lease of 1 s: the restarted instance gives back the killed one's calls a second after the kill.
    env: { DATA_DIR: tempDir("pda-crash-"), DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: s.schema, PENDING_STALE_SECONDS: "1" },
    store: { dataDir: "", databaseUrl: TEST_DATABASE_URL, schema: s.schema },
    setUsed: async (principal, day, used) => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${s.schema}` });
      await c.connect();
      await c.query("INSERT INTO allowance_usage (bucket, principal, day, used) VALUES ('group:bank-of-england', $1, $2, $3)", [principal, day, used]);
      await c.end();
    },
    cleanup: s.drop,
  };
};

for (const open of [sqlite, postgres]) {
  describe(`a crash during load (${open === sqlite ? "SQLite" : "PostgreSQL"})`, function () {
    this.timeout(60_000);
    const children: ChildProcess[] = [];
    let upstream: http.Server;
    let backend: Backend;
    after(async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
      upstream?.closeAllConnections();
      await new Promise((r) => upstream?.close(r));
      await backend?.cleanup();
    });

    it("loses nothing: every 200 is charged, a charge beyond them only for calls the kill cut off, counters and balances = ledger", async () => {
      // A slow Bank of England: calls are in flight when the server is killed.
      const csv = fixture("bank-of-england:IUDBEDR.csv");
      upstream = http.createServer((_req, res) => void setTimeout(() => res.writeHead(200, { "content-type": "application/csv" }).end(csv), 25));
      await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", () => r()));
      backend = await open();

      // Two keys: A calls on its allowance, B has spent its allowance and pays from $1 of credit.
      const store = await openStore(backend.store);
      const keyA = newApiKey();
      const keyB = newApiKey();
      const a = (await store.mintKey({ hash: hashKey(keyA), clientId: "crash-test", day: utcDay().day, maxPerDay: 10 }))!;
      const b = (await store.mintKey({ hash: hashKey(keyB), clientId: "crash-test", day: utcDay().day, maxPerDay: 10 }))!;
      await store.addCredit({ keyId: b.id, deltaMicro: CREDIT, kind: "grant" });
      await store.close();
      await backend.setUsed(`key:${b.id}`, utcDay().day, KEY_ALLOWANCE);

      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const env = { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "silent", UPSTREAM_BANK_OF_ENGLAND: `http://127.0.0.1:${(upstream.address() as net.AddressInfo).port}`, ...backend.env };
      const first = serve(env);
      children.push(first);
      await waitHealthy(url);

      // Load: 12 workers, so calls are in flight at the kill after 100 responses; most repeat 8 `from` dates (answered
      // from the answer cache), every 3rd asks a new one (a new answer; bank-rate asks the Bank of England from 2000
      // for any later `from`, so its upstream response is shared).
      const seen = { A: { ok: 0, lost: 0 }, B: { ok: 0, lost: 0 } };
      let responses = 0;
      let next = 0;
      let killed = false;
      const worker = async () => {
        while (!killed) {
          const i = next++;
          const who = i % 2 ? "B" : "A";
          const from = new Date(Date.UTC(2024, 0, 1) + (i % 3 === 2 ? 10 + i : i % 8) * 86_400_000).toISOString().slice(0, 10);
          try {
            const res = await fetch(`${url}/v1/bank-of-england/bank-rate?from=${from}`, { headers: { "X-API-Key": who === "A" ? keyA : keyB } });
            const body: any = await res.json();
            if (res.status === 200) {
              assert.equal(body.meta.paid_by, who === "A" ? "allowance" : "credit");
              seen[who].ok++;
            }
            if (++responses === 100) {
              killed = true;
              first.kill("SIGKILL");
            }
          } catch {
            seen[who].lost++;
          }
        }
      };
      await Promise.all(Array.from({ length: 12 }, worker));
      await exited(first);
      assert.ok(seen.A.lost + seen.B.lost > 0, "some calls were in flight at the kill");

      // Restart: the calls the kill interrupted are given back (SQLite: at start-up; PostgreSQL: once the killed
      // instance's lease ran out, by the sweep).
      const second = serve(env);
      children.push(second);
      await waitHealthy(url);
      const after = await openStore(backend.store);
      const pending = async () => (await after.calls()).filter((c) => c.outcome === "pending").length;
      for (let i = 0; i < 100 && (await pending()); i++) await new Promise((r) => setTimeout(r, 100));
      second.kill("SIGTERM");
      await exited(second);

      const day = utcDay().day;
      const report: string[] = [];
      for (const [who, key] of [["A", a], ["B", b]] as const) {
        const ledger = await after.calls({ principal: `key:${key.id}` });
        const ok = ledger.filter((c) => c.outcome === "ok").length;
        report.push(`${who} (${who === "A" ? "allowance" : "credit"}): ${seen[who].ok} answered 200, ${ok} charged, ${ok - seen[who].ok} charged but cut off by the kill, ${seen[who].lost} in flight`);
        assert.equal(ledger.filter((c) => c.outcome === "pending").length, 0, `${who}: nothing left pending`);
        assert.ok(ok >= seen[who].ok, `${who}: each 200 sent is in the ledger (${ok} ledger, ${seen[who].ok} sent)`);
        assert.ok(ok - seen[who].ok <= seen[who].lost, `${who}: the ledger has no charge beyond the calls whose answer the kill cut off`);
        assert.deepEqual([...new Set(ledger.map((c) => c.outcome))].filter((o) => o !== "ok" && o !== "interrupted"), [], `${who}: only ok and interrupted calls`);
        if (who === "A") assert.equal((await after.usage(`key:${key.id}`, day)).get("group:bank-of-england"), ok, "A: allowance used = ledger");
        else {
          const balance = (await after.keyById(key.id))!.creditMicro;
          assert.equal(balance, CREDIT - ok * 1000, "B: balance = credit - ledger");
          assert.equal((await after.creditEntries(key.id)).reduce((s, e) => s + e.deltaMicro, 0), balance, "B: credit ledger sums to the balance");
          assert.equal((await after.usage(`key:${key.id}`, day)).get("group:bank-of-england"), KEY_ALLOWANCE);
        }
      }
      console.log(`      crash on ${backend.name}: ${report.join("; ")}`);
      await after.close();
    });
  });
}
