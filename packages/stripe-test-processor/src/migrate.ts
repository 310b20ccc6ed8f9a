import { sql, type Kysely } from "kysely";
import { Migrator, type Migration, type MigrationProvider } from "kysely/migration";
import * as processorTables from "./migrations/0001-processor-tables.ts";
import * as intentShipping from "./migrations/0002-intent-shipping.ts";
import * as refundsAndProcessing from "./migrations/0003-refunds-and-processing.ts";
import * as authenticationRedirect from "./migrations/0004-authentication-redirect.ts";

/** Every migration of the processor, in order. Never edit one that has shipped: add the next. */
const migrations: Record<string, Migration> = {
  "0001-processor-tables": processorTables,
  "0002-intent-shipping": intentShipping,
  "0003-refunds-and-processing": refundsAndProcessing,
  "0004-authentication-redirect": authenticationRedirect,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Brings the processor's tables up to date. Its history is kept in tables of its own (`processor_migration`,
 * `processor_migration_lock`), so it never mixes with the history of a shop sharing the database; Kysely's migrator
 * holds a PostgreSQL advisory lock for the run, so instances starting together apply each migration once.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database will do: the processor adds its own tables to it
export async function migrateProcessor(db: Kysely<any>): Promise<void> {
  // Name the schema: Kysely otherwise takes a migration table in any schema of the database as ours.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: "processor_migration",
    migrationLockTableName: "processor_migration_lock",
    migrationTableSchema: rows[0]?.schema ?? "public",
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === "Error");
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : "";
    throw new Error(`Processor migration failed${name}`, { cause: error });
  }
}
