// PostgreSQL for the store and multi-instance access tests: 127.0.0.1:5432, database test (TEST_DATABASE_URL overrides),
// one fresh schema per test run so parallel runs do not collide; drop() removes it.
import { randomUUID } from "node:crypto";
import pg from "pg";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export async function testSchema(): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `t_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  return {
    schema,
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}
