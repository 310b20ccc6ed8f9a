// Two shop instances on one PostgreSQL schema, as two processes behind a load balancer, for tests of what instances
// share.

import { sql } from "kysely";
import { openDatabase, type DatabaseHandle, type DB } from "#server/db/client";
import type { ShopOptions } from "#server/shop";
import { createTestShop } from "./test-app";
import { testSchemaName } from "./test-database";

/**
 * Two shop instances on one PostgreSQL schema of their own, each with its own pool and listening over HTTP, as two
 * processes behind a load balancer would be. Needs TEST_DATABASE_URL.
 */
export async function startTwoInstances(label: string, options: Partial<ShopOptions> = {}) {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("Two instances need PostgreSQL: set TEST_DATABASE_URL");
  const schema = testSchemaName(label);
  const admin = openDatabase({ kind: "postgres", url });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const databases: DatabaseHandle[] = [
    openDatabase({ kind: "postgres", url, schema }),
    openDatabase({ kind: "postgres", url, schema }),
  ];
  // One after the other: the first migrates and seeds, the second finds it done.
  const shops: Awaited<ReturnType<typeof createTestShop>>[] = [];
  for (const database of databases) shops.push(await createTestShop(database, options));
  const running = await Promise.all(shops.map((shop) => shop.listen(0)));
  const keys = shops[0]!.processorKeys!;
  return {
    origins: running.map((instance) => `http://127.0.0.1:${instance.port}`) as [string, string],
    db: databases[0]!.db,
    shops,
    keys,
    async close() {
      await Promise.all(running.map((instance) => instance.close()));
      await Promise.all(databases.map((database) => database.close()));
      await admin.close();
    },
  };
}

/** Intents the built-in processor has made: its own table, in the same database (read here, never by the shop). */
export async function countProcessorIntents(db: DB): Promise<number> {
  const { rows } = await sql<{ count: number }>`select count(*)::int as count from processor_payment_intents`.execute(
    db,
  );
  return rows[0]?.count ?? 0;
}
