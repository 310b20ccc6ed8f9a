// Migration 0010: delivery addresses (checkout and saved), the order's address, contact, card and status, and its
// status history.

import { sql, type Kysely } from "kysely";

/** The alphabet of order numbers: no 0/O, 1/I/L, so a number read out on the phone is not misheard. */
const ORDER_NUMBER_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

// Delivery addresses and the order's life. The address a shopper is checking out with is kept per basket owner (a
// guest session or an account), beside the basket, so a reload or a second tab keeps it; an account also keeps the
// addresses it used. A payment row snapshots the address and receipt e-mail its intent was priced with, and the
// order copies them. An order gains a human number, its card's brand and last four, when it was paid (what it is
// dated and sorted by: an intent reused later keeps its first creation time), and a status with a history.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("checkout_addresses")
    .addColumn("id", "uuid", (column) => column.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("session_id", "uuid", (column) => column.unique().references("sessions.id").onDelete("cascade"))
    .addColumn("user_id", "uuid", (column) => column.unique().references("users.id").onDelete("cascade"))
    .addColumn("address", "jsonb", (column) => column.notNull())
    .addColumn("contact_email", "text")
    .addColumn("updated_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("checkout_addresses_one_owner", sql`(session_id is null) <> (user_id is null)`)
    .execute();

  await db.schema
    .createTable("saved_addresses")
    .addColumn("id", "uuid", (column) => column.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("user_id", "uuid", (column) => column.notNull().references("users.id").onDelete("cascade"))
    .addColumn("address", "jsonb", (column) => column.notNull())
    // The address's fields, normalised: the same address used twice is one saved address.
    .addColumn("fingerprint", "text", (column) => column.notNull())
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("last_used_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("saved_addresses_user_fingerprint")
    .on("saved_addresses")
    .columns(["user_id", "fingerprint"])
    .unique()
    .execute();
  await db.schema
    .createIndex("saved_addresses_user_recent")
    .on("saved_addresses")
    .columns(["user_id", "last_used_at desc"])
    .execute();

  await db.schema
    .alterTable("checkout_payments")
    .addColumn("delivery_address", "jsonb")
    .addColumn("contact_email", "text")
    .execute();

  await db.schema
    .alterTable("orders")
    .addColumn("number", "text")
    .addColumn("delivery_address", "jsonb")
    .addColumn("contact_email", "text")
    .addColumn("card_brand", "text")
    .addColumn("card_last4", "text")
    .addColumn("status", "text", (column) => column.notNull().defaultTo("paid"))
    .addColumn("refunded_cents", "integer", (column) => column.notNull().defaultTo(0))
    .addColumn("paid_at", "timestamptz")
    .execute();
  // Orders recorded before this were paid when they were recorded, closer than their intent's creation.
  await sql`update orders set paid_at = recorded_at`.execute(db);
  await numberExistingOrders(db);
  const orders = db.schema.alterTable("orders");
  await orders.alterColumn("number", (column) => column.setNotNull()).execute();
  // The shop draws numbers itself (crypto-random, server/orders/order-number.ts); this default only serves rows
  // written by hand, e.g. by an operator's script.
  const letter = sql`substr(${sql.lit(ORDER_NUMBER_ALPHABET)}, 1 + floor(random() * ${sql.lit(ORDER_NUMBER_ALPHABET.length)})::int, 1)`;
  await orders
    .alterColumn("number", (column) =>
      column.setDefault(
        sql`'SF-' || to_char(now() at time zone 'UTC', 'YYMM') || '-' || ${letter} || ${letter} || ${letter} || ${letter}`,
      ),
    )
    .execute();
  await orders.alterColumn("paid_at", (column) => column.setNotNull()).execute();
  await orders.alterColumn("paid_at", (column) => column.setDefault(sql`now()`)).execute();
  await orders
    .addCheckConstraint(
      "orders_status_check",
      sql`status in ('paid', 'shipped', 'cancelled', 'refunded', 'partially_refunded', 'disputed')`,
    )
    .execute();
  await orders.addCheckConstraint("orders_refunded_check", sql`refunded_cents between 0 and amount_cents`).execute();
  await db.schema.createIndex("orders_number").on("orders").column("number").unique().execute();
  // Listed newest paid first; the old indexes ordered by the intent's creation.
  await db.schema
    .createIndex("orders_user_paid")
    .on("orders")
    .columns(["user_id", "paid_at desc", "id desc"])
    .execute();
  await db.schema
    .createIndex("orders_session_paid")
    .on("orders")
    .columns(["session_id", "paid_at desc", "id desc"])
    .execute();
  await db.schema.dropIndex("orders_user_newest").execute();
  await db.schema.dropIndex("orders_session_newest").execute();

  await db.schema
    .createTable("order_status_history")
    .addColumn("id", "bigint", (column) => column.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("order_id", "text", (column) => column.notNull().references("orders.id").onDelete("cascade"))
    .addColumn("status", "text", (column) => column.notNull())
    .addColumn("carrier", "text")
    .addColumn("tracking_number", "text")
    .addColumn("amount_cents", "integer")
    .addColumn("note", "text")
    // Who made the change: "shop" when a payment recorded it, "processor" for its events, an operator otherwise.
    .addColumn("actor", "text", (column) => column.notNull())
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("order_status_history_order")
    .on("order_status_history")
    .columns(["order_id", "id"])
    .execute();
  await sql`insert into order_status_history (order_id, status, actor, created_at) select id, 'paid', 'shop', paid_at from orders`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("order_status_history").execute();
  await db.schema
    .createIndex("orders_user_newest")
    .on("orders")
    .columns(["user_id", "created_at desc", "id desc"])
    .execute();
  await db.schema
    .createIndex("orders_session_newest")
    .on("orders")
    .columns(["session_id", "created_at desc", "id desc"])
    .execute();
  await db.schema.dropIndex("orders_user_paid").execute();
  await db.schema.dropIndex("orders_session_paid").execute();
  await db.schema.dropIndex("orders_number").execute();
  await db.schema.alterTable("orders").dropConstraint("orders_status_check").execute();
  await db.schema.alterTable("orders").dropConstraint("orders_refunded_check").execute();
  await db.schema
    .alterTable("orders")
    .dropColumn("number")
    .dropColumn("delivery_address")
    .dropColumn("contact_email")
    .dropColumn("card_brand")
    .dropColumn("card_last4")
    .dropColumn("status")
    .dropColumn("refunded_cents")
    .dropColumn("paid_at")
    .execute();
  await db.schema.alterTable("checkout_payments").dropColumn("delivery_address").dropColumn("contact_email").execute();
  await db.schema.dropTable("saved_addresses").execute();
  await db.schema.dropTable("checkout_addresses").execute();
}

/** Existing orders get numbers of the same shape as new ones, drawn until unique (a few hundred per month at most). */
async function numberExistingOrders(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ id: string; paid_at: Date }>`select id, paid_at from orders order by id`.execute(db);
  const taken = new Set<string>();
  for (const row of rows) {
    let number: string;
    do number = orderNumberAt(row.paid_at);
    while (taken.has(number));
    taken.add(number);
    await sql`update orders set number = ${number} where id = ${row.id}`.execute(db);
  }
}

/** SF-YYMM-XXXX, as server/orders/order-number.ts makes them (copied: a migration never changes with the code). */
function orderNumberAt(date: Date): string {
  const yymm = `${String(date.getUTCFullYear() % 100).padStart(2, "0")}${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  const suffix = Array.from(bytes, (byte) => ORDER_NUMBER_ALPHABET[byte % ORDER_NUMBER_ALPHABET.length]).join("");
  return `SF-${yymm}-${suffix}`;
}
