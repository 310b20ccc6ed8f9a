import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { migrateCurrentSchema } from "@storefront/schema-migrator";
import * as processorTables from "./migrations/0001-processor-tables.ts";
import * as intentShipping from "./migrations/0002-intent-shipping.ts";
import * as refundsAndProcessing from "./migrations/0003-refunds-and-processing.ts";
import * as authenticationRedirect from "./migrations/0004-authentication-redirect.ts";
import * as intentVersion from "./migrations/0005-intent-version.ts";

/** Every migration of the processor, in order. Never edit one that has shipped: add the next. */
const migrations: Record<string, Migration> = {
  "0001-processor-tables": processorTables,
  "0002-intent-shipping": intentShipping,
  "0003-refunds-and-processing": refundsAndProcessing,
  "0004-authentication-redirect": authenticationRedirect,
  "0005-intent-version": intentVersion,
};

/**
 * Brings the processor's tables up to date. Its history is kept in tables of its own (`processor_migration`,
 * `processor_migration_lock`), so it never mixes with the history of a shop sharing the schema.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database will do: the processor adds its own tables to it
export async function migrateProcessor(db: Kysely<any>): Promise<void> {
  await migrateCurrentSchema(db, {
    provider: { getMigrations: async () => migrations },
    migrationTableName: "processor_migration",
    migrationLockTableName: "processor_migration_lock",
    failure: "Processor migration failed",
  });
}
