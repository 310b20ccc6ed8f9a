import { readFileSync } from "node:fs";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestShop } from "#server/testing/test-app";
import { testDatabaseKinds, testSchemaName } from "#server/testing/test-database";
import { createPglite, openDatabase, wrapPglite, type DatabaseHandle } from "./client";
import { migrationNames } from "./migrate";

/** A database made by the shop before the test processor owned its migrations (see the file's header). */
const FIXTURE = readFileSync(new URL("./fixtures/database-at-a54d46d.sql", import.meta.url), "utf8");
const PAID_INTENT = /INSERT INTO orders VALUES \('(pi_\w+)'/.exec(FIXTURE)?.[1] ?? "";
const FIXTURE_SECRET_KEY = /'(sk_test_\w+)'/.exec(FIXTURE)?.[1] ?? "";

async function openFixtureDatabase(kind: DatabaseHandle["kind"]): Promise<DatabaseHandle> {
  if (kind === "pglite") {
    const pglite = createPglite();
    await pglite.exec(FIXTURE);
    return wrapPglite(pglite);
  }
  const url = process.env.TEST_DATABASE_URL ?? "";
  const schema = testSchemaName("upgrade");
  const admin = openDatabase({ kind: "postgres", url });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  await admin.close();
  const database = openDatabase({ kind: "postgres", url, schema });
  // No parameters: node-postgres sends the script as one simple query, statements and all.
  await sql.raw(FIXTURE).execute(database.db);
  return database;
}

for (const kind of testDatabaseKinds) {
  describe(`a database made before the test processor had migrations of its own [${kind}]`, () => {
    let database: DatabaseHandle;
    let shop: Awaited<ReturnType<typeof createTestShop>>;
    let running: Awaited<ReturnType<typeof shop.listen>>;
    beforeAll(async () => {
      database = await openFixtureDatabase(kind);
      shop = await createTestShop(database);
      running = await shop.listen(0);
    });
    afterAll(async () => {
      await running?.close();
      await database?.close();
    });

    it("starts the shop: both histories complete, the processor's keys, intents and the shop's orders kept", async () => {
      const shopHistory = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        database.db,
      );
      expect(shopHistory.rows.map((row) => row.name)).toEqual(migrationNames);
      const processorHistory = await sql<{ name: string }>`select name from processor_migration order by name`.execute(
        database.db,
      );
      expect(processorHistory.rows.map((row) => row.name)).toEqual([
        "0001-processor-tables",
        "0002-intent-shipping",
        "0003-refunds-and-processing",
        "0004-authentication-redirect",
        "0005-intent-version",
      ]);

      expect(shop.processorKeys?.secretKey).toBe(FIXTURE_SECRET_KEY);
      const intent = await fetch(`http://127.0.0.1:${running.port}/_processor/v1/payment_intents/${PAID_INTENT}`, {
        headers: { authorization: `Bearer ${FIXTURE_SECRET_KEY}` },
      });
      expect(intent.status).toBe(200);
      expect(await intent.json()).toMatchObject({ id: PAID_INTENT, status: "succeeded", amount: 1196 });
      const orders = await database.db.selectFrom("orders").select(["id", "amount_cents"]).execute();
      expect(orders).toEqual([{ id: PAID_INTENT, amount_cents: 1196 }]);
    });
  });
}
