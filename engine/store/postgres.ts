// PostgreSQL (DATABASE_URL), for several instances behind a load balancer. DATABASE_SCHEMA picks the schema.
import pg from "pg";
import type { Db } from "./db.ts";

// BIGINT columns hold micro-dollars and epoch milliseconds: well inside Number's exact range.
pg.types.setTypeParser(20, (v) => Number(v));

const numbered = (sql: string) => {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
};

export async function openPostgres(url: string, schema = "public"): Promise<Db> {
  if (!/^[a-z_][a-z0-9_]*$/i.test(schema)) throw new Error(`DATABASE_SCHEMA "${schema}" is not a plain SQL name`);
  const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${schema}` });
  pool.on("error", () => undefined); // an idle client's error: the next query reconnects
  const on = (q: pg.Pool | pg.PoolClient): Db => ({
    dialect: "postgres",
    all: async <T>(sql: string, params: unknown[] = []) => (await q.query(numbered(sql), params)).rows as T[],
    run: async (sql, params = []) => (await q.query(numbered(sql), params)).rowCount ?? 0,
    tx: async (fn) => {
      if (q !== pool) return fn(on(q));
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(on(client));
        await client.query("COMMIT");
        return out;
      } catch (e) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  });
  const db = on(pool);
  // Instances starting together: "IF NOT EXISTS" alone still races on the catalog, so take a lock first.
  await db.tx(async (t) => {
    await t.run("SELECT pg_advisory_xact_lock(4020401)");
    await t.run(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  });
  return db;
}
