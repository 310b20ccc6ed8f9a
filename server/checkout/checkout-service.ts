import { sql } from "kysely";
import { AppError } from "../../shared/errors";
import { formatCents } from "../../shared/money";
import type { BasketView } from "../../shared/basket";
import type { OrderItem } from "../../shared/orders";
import type { BasketOwner, BasketService } from "../basket/basket-service";
import type { DB } from "../db/client";
import type { Logger } from "../logger";
import type { PaymentProvider, ProviderIntent } from "../payments/payment-provider";

/** Marks the intents this shop created; webhook events for any other intent are acknowledged and ignored. */
export const SHOP_METADATA_KEY = "storefront_checkout";

/**
 * Checkout: the one flow that crosses basket, payments and orders. Its steps never hold a database transaction
 * across a call to the processor (the built-in one answers over HTTP from this same process and database).
 *
 * 1. preparePayment: price the basket on the server, reuse or replace the owner's open intent.
 * 2. (the browser confirms the card with the processor)
 * 3. recordOrder: the server asks the processor whether the intent succeeded, then writes the order once,
 *    keyed by the intent id, and takes the paid items out of the basket in the same transaction. The browser's call, the webhook
 *    and the start-up sweep all end here; whichever comes first wins.
 */
export function createCheckoutService(db: DB, basket: BasketService, provider: PaymentProvider, logger: Logger) {
  const ownerColumns = (owner: BasketOwner) =>
    "userId" in owner ? { user_id: owner.userId, session_id: null } : { user_id: null, session_id: owner.sessionId };
  const ownerFilter = (owner: BasketOwner) =>
    "userId" in owner ? (["user_id", owner.userId] as const) : (["session_id", owner.sessionId] as const);

  async function snapshot(view: BasketView): Promise<{ items: OrderItem[]; fingerprint: string }> {
    const items = view.items.map(({ product }) => ({
      productId: product.id,
      title: product.title,
      priceCents: product.priceCents,
      rating: product.rating,
      image: product.image,
    }));
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(items.map((item) => [item.productId, item.priceCents]))));
    return { items, fingerprint: Buffer.from(digest).toString("base64url") };
  }

  function metadataFor(owner: BasketOwner): Record<string, string> {
    return "userId" in owner ? { [SHOP_METADATA_KEY]: "1", user_id: owner.userId } : { [SHOP_METADATA_KEY]: "1", session_id: owner.sessionId };
  }

  const service = {
    /**
     * POST /payments/create?total=…: the client secret of an intent for exactly this basket. The page's total must
     * be the server's (409 otherwise: a tampered or stale page). While the basket is unchanged the same intent is
     * returned; a changed basket updates the open intent, or replaces it when the processor no longer allows that.
     */
    async preparePayment(owner: BasketOwner | null, expectedTotalCents: number): Promise<{ clientSecret: string; amountCents: number }> {
      const view = await basket.getBasket(owner);
      if (!owner || view.count === 0) throw new AppError("BASKET_EMPTY", "Your basket is empty, so there is nothing to pay for.");
      if (expectedTotalCents !== view.subtotalCents) {
        throw new AppError("TOTAL_MISMATCH", `Your basket has changed: the total is now ${formatCents(view.subtotalCents)}. Please check it and pay again.`, {
          details: { totalCents: view.subtotalCents },
        });
      }
      const { items, fingerprint } = await snapshot(view);
      const [column, value] = ownerFilter(owner);
      const open = await db
        .selectFrom("checkout_payments")
        .select(["payment_intent_id", "client_secret", "basket_fingerprint", "amount_cents"])
        .where(column, "=", value)
        .where("status", "=", "open")
        .orderBy("created_at", "desc")
        .executeTakeFirst();

      if (open?.basket_fingerprint === fingerprint) return { clientSecret: open.client_secret, amountCents: open.amount_cents };

      if (open) {
        const updated = await provider
          .updateIntent(open.payment_intent_id, { amountCents: view.subtotalCents, metadata: metadataFor(owner) })
          .catch(() => null);
        if (updated) {
          await db
            .updateTable("checkout_payments")
            .set({ amount_cents: view.subtotalCents, basket_fingerprint: fingerprint, items: JSON.stringify(items), updated_at: sql`now()` })
            .where("payment_intent_id", "=", open.payment_intent_id)
            .execute();
          return { clientSecret: open.client_secret, amountCents: updated.amountCents };
        }
        // Not updatable any more (being authenticated, or already paid): leave it to its fate and start afresh.
        await provider.cancelIntent(open.payment_intent_id).catch(() => undefined);
        await db.updateTable("checkout_payments").set({ status: "replaced", updated_at: sql`now()` }).where("payment_intent_id", "=", open.payment_intent_id).execute();
      }

      // The same owner, basket and attempt always ask for the same intent: two tabs racing get one intent.
      const attempts = await db
        .selectFrom("checkout_payments")
        .select(sql<number>`count(*)::int`.as("count"))
        .where(column, "=", value)
        .executeTakeFirstOrThrow();
      const intent = await provider.createIntent({
        amountCents: view.subtotalCents,
        metadata: metadataFor(owner),
        idempotencyKey: `storefront:${column}:${value}:${fingerprint}:${attempts.count}`,
      });
      await db
        .insertInto("checkout_payments")
        .values({
          payment_intent_id: intent.id,
          ...ownerColumns(owner),
          client_secret: intent.clientSecret,
          amount_cents: intent.amountCents,
          currency: intent.currency,
          basket_fingerprint: fingerprint,
          items: JSON.stringify(items),
          status: "open",
        })
        .onConflict((conflict) => conflict.column("payment_intent_id").doNothing())
        .execute();
      return { clientSecret: intent.clientSecret, amountCents: intent.amountCents };
    },

    /**
     * Records the order for a succeeded intent, exactly once. `owner` is given when a browser asks (it must be the
     * payer); the webhook and the start-up sweep pass none. The webhook also passes the intent its signed
     * payment_intent.succeeded event carried, which then need not be asked for again. Returns the order id, or null
     * for an intent the shop did not create.
     */
    async recordOrder(
      paymentIntentId: string,
      owner: BasketOwner | null,
      succeededIntent?: ProviderIntent,
    ): Promise<{ orderId: string; isNew: boolean } | null> {
      const payment = await db.selectFrom("checkout_payments").selectAll().where("payment_intent_id", "=", paymentIntentId).executeTakeFirst();
      if (!payment) return null;
      if (owner) {
        const [column, value] = ownerFilter(owner);
        if (payment[column] !== value) return null;
      }
      // Marked paid in the same transaction that wrote the order (usually by the webhook, before the page asks):
      // nothing left to check with the processor.
      if (payment.status === "paid") return { orderId: paymentIntentId, isNew: false };
      const intent = succeededIntent?.id === paymentIntentId && succeededIntent.status === "succeeded" ? succeededIntent : await provider.retrieveIntent(paymentIntentId);
      if (intent.status !== "succeeded") {
        throw new AppError("PAYMENT_NOT_COMPLETE", "Your payment has not gone through, so no order was placed. Your basket is unchanged.");
      }
      if (intent.amountCents !== payment.amount_cents) {
        // The processor took a different amount than the shop priced: record what was paid, and say so loudly.
        logger.error({ paymentIntentId, paid: intent.amountCents, priced: payment.amount_cents }, "checkout: paid amount differs from the priced basket");
      }
      return writeOrder(intent, payment);
    },

    /**
     * At start-up: intents still open from the last days are asked about; any that succeeded while no server was
     * there to record them (a crash between charge and record) get their order now.
     */
    async recordMissedOrders(): Promise<number> {
      const open = await db
        .selectFrom("checkout_payments")
        .select("payment_intent_id")
        .where("status", "=", "open")
        .where("updated_at", ">", sql<Date>`now() - interval '7 days'`)
        .orderBy("updated_at", "desc")
        .limit(500)
        .execute();
      let recorded = 0;
      for (const { payment_intent_id: id } of open) {
        const result = await service.recordOrder(id, null).catch(() => null);
        if (result?.isNew) recorded++;
      }
      if (recorded > 0) logger.warn({ recorded }, "checkout: recorded orders for payments that had none");
      return recorded;
    },
  };
  return service;

  /** One transaction: the order (unique by intent id), the payment marked paid, the paid items out of the basket. */
  async function writeOrder(intent: ProviderIntent, payment: { user_id: string | null; session_id: string | null; items: OrderItem[]; currency: string }) {
    return db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto("orders")
        .values({
          id: intent.id,
          user_id: payment.user_id,
          session_id: payment.session_id,
          amount_cents: intent.amountCents,
          currency: intent.currency,
          items: JSON.stringify(payment.items),
          created_at: intent.created,
        })
        .onConflict((conflict) => conflict.column("id").doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!inserted) return { orderId: intent.id, isNew: false };
      await trx.updateTable("checkout_payments").set({ status: "paid", updated_at: sql`now()` }).where("payment_intent_id", "=", intent.id).execute();
      const owner: BasketOwner | null = payment.user_id ? { userId: payment.user_id } : payment.session_id ? { sessionId: payment.session_id } : null;
      if (owner) await basket.removePaidItems(owner, payment.items.map((item) => item.productId), trx);
      return { orderId: intent.id, isNew: true };
    });
  }
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
