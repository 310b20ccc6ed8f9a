import { sql } from "kysely";
import pg from "pg";
import { describe, expect, it, onTestFinished } from "vitest";
import { createTestShop } from "#server/testing/test-app";
import { testSchemaName } from "#server/testing/test-database";
import { openDatabase, type DatabaseHandle } from "./client";
import { migrationNames } from "./migrate";

const url = process.env.TEST_DATABASE_URL;

/** A schema of its own on the test PostgreSQL, empty: no table, no migration applied. */
async function emptySchema(label: string): Promise<string> {
  const schema = testSchemaName(label);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  return schema;
}

function openInstanceDatabase(schema: string): DatabaseHandle {
  const database = openDatabase({ kind: "postgres", url: url!, schema });
  onTestFinished(() => database.close());
  return database;
}

describe.skipIf(!url)("instances starting together on an empty PostgreSQL", () => {
  it("three at once all come up: each migration, the seed and the processor's tables once, the others wait for them", async () => {
    const schema = await emptySchema("three");
    const databases = [0, 1, 2].map(() => openInstanceDatabase(schema));

    const shops = await Promise.all(databases.map((database) => createTestShop(database)));
    const running = await Promise.all(shops.map((shop) => shop.listen(0)));
    onTestFinished(() => Promise.all(running.map((instance) => instance.close())).then(() => undefined));

    for (const instance of running) {
      const ready = await fetch(`http://127.0.0.1:${instance.port}/readyz`);
      expect(ready.status).toBe(200);
      const home = await fetch(`http://127.0.0.1:${instance.port}/basket`, { headers: { accept: "application/json" } });
      expect(home.status).toBe(200);
    }
    const db = databases[0]!.db;
    const { rows: applied } = await sql<{
      name: string;
    }>`select name from ${sql.id(schema, "kysely_migration")} order by name`.execute(db);
    expect(applied.map((row) => row.name)).toEqual(migrationNames);
    const { rows: products } = await sql<{
      count: number;
    }>`select count(*)::int as count from ${sql.id(schema, "products")}`.execute(db);
    expect(products[0]!.count).toBe(6);
    // One set of processor keys: every instance takes payments the others can confirm.
    const keys = new Set(shops.map((shop) => shop.processorKeys?.secretKey));
    expect(keys.size).toBe(1);
  });

  it("an instance waits longer than the pool's 5-second statement timeout for a peer that holds the start-up lock", async () => {
    const schema = await emptySchema("wait");
    const peer = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await peer.connect();
    onTestFinished(() => peer.end());
    await peer.query(`select pg_advisory_lock(hashtext('storefront start-up ' || current_schema()))`);
    const release = setTimeout(
      () => void peer.query(`select pg_advisory_unlock(hashtext('storefront start-up ' || current_schema()))`),
      6_500,
    );
    onTestFinished(() => clearTimeout(release));

    const started = performance.now();
    const shop = await createTestShop(openInstanceDatabase(schema));
    expect(performance.now() - started).toBeGreaterThan(6_000);
    expect((await shop.app.request("/readyz")).status).toBe(200);
  }, 30_000);
});
