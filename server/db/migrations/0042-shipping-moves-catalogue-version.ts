// Migration 0042: a change to shipping zones, their methods or tax rates moves the catalogue's version.

import { sql, type Kysely } from "kysely";

const TABLES = ["shipping_zones", "shipping_zone_regions", "shipping_methods", "tax_rates"] as const;

/**
 * The rates every quote prices with are kept per catalogue version (server/shipping/shipping-service.ts), as the shop's
 * settings are (migration 0032): each change to the tables they are read from moves the version, once per statement,
 * so every instance reads them again at its next version check.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`
      create trigger ${sql.id(`${table}_bump_catalogue_version`)}
      after insert or update or delete or truncate on ${sql.id(table)}
      for each statement execute function bump_catalogue_version()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`drop trigger ${sql.id(`${table}_bump_catalogue_version`)} on ${sql.id(table)}`.execute(db);
  }
}
