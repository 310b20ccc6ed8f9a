// Migration 0017: shipping zones, their regions and methods, tax rates, and the delivery option and pricing kept with
// payments and orders.

import { sql, type Kysely } from "kysely";

/**
 * Delivery options and sales tax. Shipping zones with the countries (and US states) they cover, one row per region so
 * the database itself keeps a region in one zone at most (unique country + state; '' is the whole country); their
 * methods with a price, "Free over" and weight tiers; tax rates by country and state. The delivery option a basket
 * owner chose is kept beside its checkout address; what a payment and an order were priced at is kept whole with them
 * (`pricing`), so the order page, the e-mail and the console read the figures that were charged.
 *
 * A fresh shop gets one zone, "Everywhere", covering every country the address form offers, with "Standard
 * delivery" at $0.00: the totals stay what they were until the operator sets prices.
 */
/** The address form's countries when this migration was written (shared/address.ts COUNTRIES), fixed here as a migration must be. */
const ADDRESS_FORM_COUNTRIES = [
  "US",
  "AU",
  "AT",
  "BE",
  "CA",
  "DK",
  "FR",
  "DE",
  "IE",
  "IT",
  "JP",
  "MX",
  "NL",
  "NZ",
  "NO",
  "ES",
  "SE",
  "CH",
  "GB",
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table shipping_zones (
      id uuid primary key default gen_random_uuid(),
      name text not null unique,
      position integer not null default 0,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table shipping_zone_regions (
      zone_id uuid not null references shipping_zones (id) on delete cascade,
      country text not null,
      state text not null default '',
      primary key (country, state)
    )`.execute(db);
  await db.schema.createIndex("shipping_zone_regions_zone").on("shipping_zone_regions").column("zone_id").execute();
  await sql`
    create table shipping_methods (
      id uuid primary key default gen_random_uuid(),
      zone_id uuid not null references shipping_zones (id) on delete cascade,
      name text not null,
      estimate text not null default '',
      price_cents integer not null check (price_cents >= 0),
      free_over_cents integer check (free_over_cents >= 0),
      weight_tiers jsonb not null default '[]',
      position integer not null default 0,
      created_at timestamptz not null default now(),
      unique (zone_id, name)
    )`.execute(db);
  await sql`
    create table tax_rates (
      id uuid primary key default gen_random_uuid(),
      country text not null,
      state text not null default '',
      rate integer not null check (rate >= 0 and rate <= 100000),
      taxes_shipping boolean not null default false,
      created_at timestamptz not null default now(),
      unique (country, state)
    )`.execute(db);
  await sql`alter table checkout_addresses add column delivery_method_id uuid`.execute(db);
  await sql`alter table checkout_payments add column pricing jsonb`.execute(db);
  await sql`alter table orders add column pricing jsonb`.execute(db);

  // The seed: "Everywhere", every country of the address form, "Standard delivery" free.
  const { rows } = await sql<{
    id: string;
  }>`insert into shipping_zones (name) values ('Everywhere') returning id`.execute(db);
  const zoneId = rows[0]!.id;
  for (const country of ADDRESS_FORM_COUNTRIES) {
    await sql`insert into shipping_zone_regions (zone_id, country) values (${zoneId}, ${country})`.execute(db);
  }
  await sql`insert into shipping_methods (zone_id, name, estimate, price_cents) values (${zoneId}, 'Standard delivery', '3-5 business days', 0)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop column pricing`.execute(db);
  await sql`alter table checkout_payments drop column pricing`.execute(db);
  await sql`alter table checkout_addresses drop column delivery_method_id`.execute(db);
  await db.schema.dropTable("tax_rates").execute();
  await db.schema.dropTable("shipping_methods").execute();
  await db.schema.dropTable("shipping_zone_regions").execute();
  await db.schema.dropTable("shipping_zones").execute();
}
