// PostgreSQL (DATABASE_URL), for several instances behind a load balancer. DATABASE_SCHEMA picks the schema.
import pg from "pg";
import type { Db } from "./db.ts";

// BIGINT columns hold micro-dollars and epoch milliseconds: well inside Number's exact range.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * The statement as pg takes it: `$n` placeholders, and a name, so that each connection parses and plans it once.
 * Not named: statements with `*` (another instance's migration adding a column would break their cached plans).
 */
const prepared = new Map<string, { name?: string; text: string }>();
const statement = (sql: string, values: unknown[]) => {
  let s = prepared.get(sql);
  if (!s) {
    let i = 0;
    const text = sql.replace(/\?/g, () => `$${++i}`);
    prepared.set(sql, (s = { name: sql.includes("*") ? undefined : `pda_${prepared.size}`, text }));
  }
  return { ...s, values };
};

export async function openPostgres(url: string, schema = "public"): Promise<Db> {
  if (!/^[a-z_][a-z0-9_]*$/i.test(schema)) throw new Error(`DATABASE_SCHEMA "${schema}" is not a plain SQL name`);
  // Pipeline mode: a connection sends its queued statements without waiting for the answers of the earlier ones.
  const pool = new pg.Pool({ connectionString: url, max: 10, pipeline: true, options: `-c search_path=${schema}` });
  pool.on("error", () => undefined); // an idle client's error: the next query reconnects
  const on = (q: pg.Pool | pg.PoolClient): Db => ({
    dialect: "postgres",
    all: async <T>(sql: string, params: unknown[] = []) => (await q.query(statement(sql, params))).rows as T[],
    run: async (sql, params = []) => (await q.query(statement(sql, params))).rowCount ?? 0,
    tx: async (fn) => {
      if (q !== pool) return fn(on(q));
      const client = await pool.connect();
      let broken = false;
      try {
        // BEGIN and the statements fn sends before it first waits (a group commit's whole batch) leave in one write,
        // and are answered in one round trip (pipeline mode). Not waiting for BEGIN is safe: a pooled connection is
        // never left inside a transaction, so BEGIN fails only if the connection does, and the statements with it.
        client.connection.stream.cork();
        process.nextTick(() => client.connection.stream.uncork());
        const [begun, done] = await Promise.allSettled([client.query("BEGIN"), fn(on(client))]);
        if (begun.status === "rejected") throw begun.reason;
        if (done.status === "rejected") throw done.reason;
        const out = done.value;
        await client.query("COMMIT");
        return out;
      } catch (e) {
        // A connection that could not roll back may still be inside the transaction: it is dropped, not pooled.
        await client.query("ROLLBACK").catch(() => (broken = true));
        throw e;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  });
  const dedicated = new Set<pg.PoolClient>();
  const db: Db = {
    ...on(pool),
    dedicated: (opts = {}) => {
      let current: Promise<pg.PoolClient> | undefined;
      const drop = (c: pg.PoolClient) => {
        if (!dedicated.delete(c)) return;
        current = undefined;
        c.release(true);
      };
      const connect = async () => {
        const c = await pool.connect();
        c.on("error", () => drop(c)); // lost while idle: the next statement connects again
        dedicated.add(c);
        if (opts.asyncCommit) {
          try {
            await c.query("SET synchronous_commit = off");
          } catch (e) {
            drop(c);
            throw e;
          }
        }
        return c;
      };
      return {
        all: async <T>(sql: string, params: unknown[] = []) => {
          const pending = (current ??= connect());
          const c = await pending.catch((e) => {
            if (current === pending) current = undefined;
            throw e;
          });
          try {
            return (await c.query(statement(sql, params))).rows as T[];
          } catch (e) {
            drop(c);
            throw e;
          }
        },
      };
    },
    close: async () => {
      for (const c of dedicated) c.release(true); // not pooled again with this connection's own settings
      dedicated.clear();
      await pool.end();
    },
  };

  // Instances starting together: "IF NOT EXISTS" alone still races on the catalog, so take a lock first.
  await db.tx(async (t) => {
    await t.run("SELECT pg_advisory_xact_lock(4020401)");
    await t.run(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  });
  return db;
}
