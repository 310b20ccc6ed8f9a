import { sql, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { migrateProcessor } from "./migrate.ts";
import { down, up } from "./migrations/0001-processor-tables.ts";
import { down as downRefunds, up as upRefunds } from "./migrations/0003-refunds-and-processing.ts";
import { describeEachDatabase } from "../testing/test-database.ts";

const TABLES = [
  "processor_keys",
  "processor_payment_intents",
  "processor_idempotency_keys",
  "processor_events",
  "processor_refunds",
];

describeEachDatabase("the processor's migrations", (getDatabase) => {
  const existing = async () => {
    const { rows } = await sql<{
      name: string | null;
    }>`select to_regclass(name)::text as name from unnest(${TABLES}::text[]) as name`.execute(getDatabase().db);
    return rows.map((row) => row.name).filter(Boolean);
  };

  it("creates the processor's tables, drops them all on the way down, and creates them again", async () => {
    const db = getDatabase().db;
    expect(await existing()).toEqual(TABLES);
    await downRefunds(db as unknown as Kysely<unknown>);
    await down(db as unknown as Kysely<unknown>);
    expect(await existing()).toEqual([]);
    await up(db as unknown as Kysely<unknown>);
    await upRefunds(db as unknown as Kysely<unknown>);
    expect(await existing()).toEqual(TABLES);
  });

  it("keeps its history apart, and finds tables made before it had migrations in place without touching their rows", async () => {
    const db = getDatabase().db;
    await db
      .insertInto("processor_keys")
      .values({ id: 1, secret_key: "sk_test_kept", publishable_key: "pk_test_kept", webhook_secret: "whsec_kept" })
      .execute();
    // A database whose tables came from elsewhere: the processor's history is empty, so its first migration runs again.
    await sql`drop table processor_migration`.execute(db);
    await migrateProcessor(db);
    const { rows } = await sql<{ name: string }>`select name from processor_migration order by name`.execute(db);
    expect(rows.map((row) => row.name)).toEqual([
      "0001-processor-tables",
      "0002-intent-shipping",
      "0003-refunds-and-processing",
      "0004-authentication-redirect",
      "0005-intent-version",
    ]);
    expect(await db.selectFrom("processor_keys").select("secret_key").execute()).toEqual([
      { secret_key: "sk_test_kept" },
    ]);
    await db.deleteFrom("processor_keys").execute();
  });

  it("refuses a card kept as more than its last four digits, and a status Stripe does not have", async () => {
    const db = getDatabase().db;
    const insert = (values: { card_last4?: string; status?: "succeeded" }) =>
      db
        .insertInto("processor_payment_intents")
        .values({
          id: `pi_${crypto.randomUUID()}`,
          client_secret: crypto.randomUUID(),
          amount: 100,
          currency: "usd",
          metadata: "{}",
          ...values,
        })
        .execute();
    await expect(insert({ card_last4: "4242424242424242" })).rejects.toThrow(/check constraint/);
    await expect(insert({ status: "requires_capture" as "succeeded" })).rejects.toThrow(/check constraint/);
    await expect(insert({ card_last4: "4242", status: "succeeded" })).resolves.toBeDefined();
  });
});
