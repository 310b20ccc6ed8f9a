import { expect, it, vi } from "vitest";
import { sql } from "kysely";
import type { DB } from "#server/db/client";
import { createLogger } from "#server/logger";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { createRetentionSweep } from "./retention-sweep";

const BOOK = "12321341";
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms);
let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now()}${++counter}`;

/** A guest session that expired (or expires) at `expiresAt`, with a basket of `items` books and one paid order. */
async function seedGuest(db: DB, expiresAt: Date, items = 2) {
  const session = await db
    .insertInto("sessions")
    .values({
      token_hash: unique("hash"),
      expires_at: expiresAt,
      created_at: ago(40 * DAY),
      last_seen_at: ago(31 * DAY),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const basket = await db
    .insertInto("baskets")
    .values({ session_id: session.id })
    .returning("id")
    .executeTakeFirstOrThrow();
  if (items > 0)
    await db
      .insertInto("basket_items")
      .values({ basket_id: basket.id, product_id: BOOK, variant_id: BOOK, quantity: items, added_price_cents: 1196 })
      .execute();
  const orderId = unique("pi_");
  await db
    .insertInto("orders")
    .values({
      id: orderId,
      session_id: session.id,
      amount_cents: 1196,
      currency: "usd",
      items: JSON.stringify([
        {
          productId: BOOK,
          title: "Book",
          priceCents: 1196,
          rating: 4,
          image: { src: "/images/book.webp", width: 1, height: 1 },
        },
      ]),
      created_at: ago(35 * DAY),
    })
    .execute();
  return { sessionId: session.id, basketId: basket.id, orderId };
}

const countOf = async (
  db: DB,
  table:
    | "sessions"
    | "baskets"
    | "basket_items"
    | "rate_limits"
    | "processed_webhook_events"
    | "account_tokens"
    | "promotion_uses"
    | "basket_reminders",
  column: string,
  values: string[],
) =>
  Number(
    (
      await sql<{
        n: string;
      }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(values)})`.execute(db)
    ).rows[0]?.n,
  );

describeEachDatabase("retention sweep", (getDatabase) => {
  const logger = createLogger("silent");

  it("deletes expired sessions with their baskets but keeps their orders, and keeps live and just-expired sessions", async () => {
    const { db } = getDatabase();
    const expired = await Promise.all([
      seedGuest(db, ago(2 * HOUR)),
      seedGuest(db, ago(40 * DAY), 3),
      seedGuest(db, ago(2 * DAY), 1),
    ]);
    const justExpired = await seedGuest(db, ago(10 * 60 * 1000));
    const live = await seedGuest(db, new Date(Date.now() + DAY));

    // Batches of two: five baskets' worth of rows need several rounds, which must all happen.
    const deleted = await createRetentionSweep({ db, logger, batchSize: 2 }).runOnce();
    expect(deleted.sessions).toBeGreaterThanOrEqual(3);

    const gone = expired.map((guest) => guest.sessionId);
    expect(await countOf(db, "sessions", "id", gone)).toBe(0);
    expect(
      await countOf(
        db,
        "baskets",
        "id",
        expired.map((guest) => guest.basketId),
      ),
    ).toBe(0);
    expect(
      await countOf(
        db,
        "basket_items",
        "basket_id",
        expired.map((guest) => guest.basketId),
      ),
    ).toBe(0);
    // The orders are still there, for the shop's books, no longer tied to a session nobody can use.
    const orders = await db
      .selectFrom("orders")
      .select(["id", "session_id", "amount_cents"])
      .where(
        "id",
        "in",
        expired.map((guest) => guest.orderId),
      )
      .execute();
    expect(orders).toHaveLength(3);
    expect(orders.every((order) => order.session_id === null && order.amount_cents === 1196)).toBe(true);

    const kept = [justExpired.sessionId, live.sessionId];
    expect(await countOf(db, "sessions", "id", kept)).toBe(2);
    expect(await countOf(db, "basket_items", "basket_id", [justExpired.basketId, live.basketId])).toBe(2);
  });

  it("deletes rate-limit windows older than a day, and webhook events older than 30 days", async () => {
    const { db } = getDatabase();
    const [oldWindow, recentWindow] = [unique("auth:ip:old"), unique("auth:ip:recent")];
    await db
      .insertInto("rate_limits")
      .values([
        { key: oldWindow, window_started_at: ago(25 * HOUR), attempts: 7 },
        { key: recentWindow, window_started_at: ago(23 * HOUR), attempts: 7 },
      ])
      .execute();
    const [oldEvent, recentEvent] = [unique("evt_old"), unique("evt_recent")];
    await db
      .insertInto("processed_webhook_events")
      .values([
        { id: oldEvent, type: "payment_intent.succeeded", processed_at: ago(31 * DAY) },
        { id: recentEvent, type: "payment_intent.succeeded", processed_at: ago(29 * DAY) },
      ])
      .execute();
    await createRetentionSweep({ db, logger }).runOnce();

    expect(await countOf(db, "rate_limits", "key", [oldWindow])).toBe(0);
    expect(await countOf(db, "rate_limits", "key", [recentWindow])).toBe(1);
    expect(await countOf(db, "processed_webhook_events", "id", [oldEvent])).toBe(0);
    expect(await countOf(db, "processed_webhook_events", "id", [recentEvent])).toBe(1);
  });

  it("two instances sweeping at once share the work without failing, and every expired session goes", async () => {
    const { db } = getDatabase();
    const guests = await Promise.all(Array.from({ length: 12 }, () => seedGuest(db, ago(3 * HOUR), 1)));
    const [first, second] = await Promise.all([
      createRetentionSweep({ db, logger, batchSize: 3 }).runOnce(),
      createRetentionSweep({ db, logger, batchSize: 3 }).runOnce(),
    ]);
    expect((first?.sessions ?? 0) + (second?.sessions ?? 0)).toBeGreaterThanOrEqual(guests.length);
    expect(
      await countOf(
        db,
        "sessions",
        "id",
        guests.map((guest) => guest.sessionId),
      ),
    ).toBe(0);
  });

  it("deletes reset and confirmation link hashes a day after they expired, and keeps live ones", async () => {
    const { db } = getDatabase();
    const user = await db
      .insertInto("users")
      .values({ email: `${unique("tokens")}@example.com`, password_hash: "x" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const [stale, fresh] = [unique("stale-token"), unique("fresh-token")];
    await db
      .insertInto("account_tokens")
      .values([
        { token_hash: stale, user_id: user.id, purpose: "password-reset", expires_at: ago(25 * HOUR), used_at: null },
        { token_hash: fresh, user_id: user.id, purpose: "password-reset", expires_at: ago(-HOUR), used_at: null },
      ])
      .execute();
    await createRetentionSweep({ db, logger }).runOnce();
    expect(await countOf(db, "account_tokens", "token_hash", [stale])).toBe(0);
    expect(await countOf(db, "account_tokens", "token_hash", [fresh])).toBe(1);
  });

  it("deletes a promotion code's holds a day after they lapsed unredeemed, and keeps live holds and redemptions", async () => {
    const { db } = getDatabase();
    const promotion = await db
      .insertInto("promotions")
      .values({
        code: unique("SWEEP"),
        kind: "percentage",
        value: 10,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const [lapsed, justLapsed, live, redeemed] = ["lapsed", "just-lapsed", "live", "redeemed"].map((name) =>
      unique(`hold-${name}`),
    );
    const hold = (id: string, expiresAt: Date, redeemedAt: Date | null = null) => ({
      hold: id,
      promotion_id: promotion.id,
      expires_at: expiresAt,
      redeemed_at: redeemedAt,
    });
    await db
      .insertInto("promotion_uses")
      .values([
        hold(lapsed!, ago(25 * HOUR)),
        hold(justLapsed!, ago(HOUR)),
        hold(live!, ago(-HOUR)),
        hold(redeemed!, ago(40 * DAY), ago(40 * DAY)),
      ])
      .execute();
    await createRetentionSweep({ db, logger }).runOnce();
    expect(await countOf(db, "promotion_uses", "hold", [lapsed!])).toBe(0);
    expect(await countOf(db, "promotion_uses", "hold", [justLapsed!, live!, redeemed!])).toBe(3);
  });

  it("deletes basket reminders 400 days on, past the dashboard's longest range, and keeps younger ones", async () => {
    const { db } = getDatabase();
    const reminder = (decidedAt: Date) => ({
      basket_revision: 1,
      step: 1 as const,
      outcome: "sent" as const,
      email: `${unique("reminded")}@retention.test`,
      decided_at: decidedAt,
    });
    const rows = await db
      .insertInto("basket_reminders")
      .values([reminder(ago(401 * DAY)), reminder(ago(399 * DAY))])
      .returning("id")
      .execute();
    await createRetentionSweep({ db, logger }).runOnce();
    expect(await countOf(db, "basket_reminders", "id", [rows[0]!.id])).toBe(0);
    expect(await countOf(db, "basket_reminders", "id", [rows[1]!.id])).toBe(1);
  });

  it("a listening shop sweeps at start, and close waits for the sweep", async () => {
    const { db } = getDatabase();
    const guest = await seedGuest(db, ago(3 * HOUR));
    const shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    try {
      await vi.waitFor(async () => expect(await countOf(db, "sessions", "id", [guest.sessionId])).toBe(0), {
        timeout: 10_000,
      });
    } finally {
      await running.close();
    }
  });
});
