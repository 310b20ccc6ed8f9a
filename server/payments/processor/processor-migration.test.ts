import { sql, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { down, up } from "../../db/migrations/0005-processor";
import { describeEachDatabase } from "../../testing/test-database";

const TABLES = ["processor_keys", "processor_payment_intents", "processor_idempotency_keys", "processor_events"];

describeEachDatabase("migration 0005-processor", (getDatabase) => {
  const existing = async () => {
    const { rows } = await sql<{ name: string | null }>`select to_regclass(name)::text as name from unnest(${TABLES}::text[]) as name`.execute(getDatabase().db);
    return rows.map((row) => row.name).filter(Boolean);
  };

  it("creates the processor's tables, drops them all on the way down, and creates them again", async () => {
    const db = getDatabase().db;
    expect(await existing()).toEqual(TABLES);
    await down(db as unknown as Kysely<unknown>);
    expect(await existing()).toEqual([]);
    await up(db as unknown as Kysely<unknown>);
    expect(await existing()).toEqual(TABLES);
  });

  it("refuses a card kept as more than its last four digits, and a status Stripe does not have", async () => {
    const db = getDatabase().db;
    const insert = (values: { card_last4?: string; status?: "succeeded" }) =>
      db
        .insertInto("processor_payment_intents")
        .values({ id: `pi_${crypto.randomUUID()}`, client_secret: crypto.randomUUID(), amount: 100, currency: "usd", metadata: "{}", ...values })
        .execute();
    await expect(insert({ card_last4: "4242424242424242" })).rejects.toThrow(/check constraint/);
    await expect(insert({ status: "processing" as "succeeded" })).rejects.toThrow(/check constraint/);
    await expect(insert({ card_last4: "4242", status: "succeeded" })).resolves.toBeDefined();
  });
});
