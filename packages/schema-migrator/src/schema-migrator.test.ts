import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { describe, expect, it, onTestFinished } from "vitest";
import { migrateCurrentSchema } from "./schema-migrator.ts";

const url = process.env.TEST_DATABASE_URL;

describe.runIf(url)("migrating one schema [postgres]", () => {
  it("is not broken by another schema dropped while it reads the catalogue", async () => {
    const suffix = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
    const [ours, theirs] = [`migrator_test_ours_${suffix}`, `migrator_test_theirs_${suffix}`];
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    onTestFinished(async () => {
      await other.query(`drop schema if exists "${ours}" cascade; drop schema if exists "${theirs}" cascade`);
      await other.end();
    });
    await other.query(
      `create schema "${ours}"; create schema "${theirs}"; create table "${theirs}".things (id serial primary key)`,
    );
    const db = new Kysely<Record<string, never>>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${ours}` }),
      }),
    });
    onTestFinished(() => db.destroy());
    const provider = {
      getMigrations: async () => ({
        "0001-notes": {
          up: (db: Kysely<unknown>) => db.schema.createTable("notes").addColumn("id", "integer").execute(),
        },
      }),
    };

    // A repeatable-read transaction keeps seeing the other schema's table in the catalogue after it is dropped, as a
    // migrator's catalogue read does for the moment between reading a table's row and resolving its name.
    await db.connection().execute(async (connection) => {
      await sql`begin isolation level repeatable read`.execute(connection);
      await sql`select count(*) from pg_catalog.pg_class`.execute(connection);
      await other.query(`drop schema "${theirs}" cascade`);
      // Kysely's own introspector resolves every table of the database by name, the dropped one too.
      await expect(connection.introspection.getTables({ withInternalKyselyTables: true })).rejects.toThrow(
        /does not exist/,
      );
      await sql`rollback`.execute(connection);
      await sql`begin isolation level repeatable read`.execute(connection);
      await sql`select count(*) from pg_catalog.pg_class`.execute(connection);
      await other.query(`create schema "${theirs}"; create table "${theirs}".things (id serial primary key)`);
      await sql`commit`.execute(connection);
    });
    await db
      .transaction()
      .setIsolationLevel("repeatable read")
      .execute(async (transaction) => {
        await sql`select count(*) from pg_catalog.pg_class`.execute(transaction);
        await other.query(`drop schema "${theirs}" cascade`);
        await migrateCurrentSchema(transaction, { provider, failure: "Test migration failed" });
      });
    const { rows } = await other.query(`select name from "${ours}".kysely_migration`);
    expect(rows).toEqual([{ name: "0001-notes" }]);
  });
});
