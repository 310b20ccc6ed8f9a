import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { toStripeShipping, type DeliveryAddress } from "#shared/address";
import type { BasketView } from "#shared/basket";
import { readOrderItem, type OrderItem, type StoredOrderItem } from "#shared/orders";
import type { AddressService, CheckoutAddress } from "#server/addresses/address-service";
import { ownerColumn, ownerColumns, type BasketOwner } from "#server/basket/basket-owner";
import type { BasketService } from "#server/basket/basket-service";
import type { DB, Writer } from "#server/db/client";
import type { Holder } from "#server/holds/hold-claims";
import type { OrderProcessor } from "#server/db/schema";
import { erasedDeliveryAddress, type OrderService } from "#server/orders/order-service";
import type { InventoryService, StockLine } from "#server/inventory/inventory-service";
import type { Logger } from "#server/logger";
import { newOrderNumber } from "#server/orders/order-number";
import { sha256Base64url } from "#server/tokens";
import type { PaymentProvider, ProviderIntent } from "#server/payments/payment-provider";
import { countryName } from "#shared/address";
import { noDeliveryMessage, type PriceBreakdown } from "#shared/pricing";
import { priceOrder, type PricingAddress, type ShopRates } from "#server/pricing/price-order";
import type { ShippingService } from "#server/shipping/shipping-service";
import { isIntentStateRefusal } from "#server/payments/processor-errors";
import { promotionRefusal, type PromotionCustomer, type PromotionService } from "#server/promotions/promotion-service";
import type { PromotionInput } from "#server/pricing/price-order";

/** Marks the intents this shop created; webhook events for any other intent are acknowledged and ignored. */
export const SHOP_METADATA_KEY = "storefront_checkout";
/** The fingerprint of the snapshot the intent's amount was set for: an order is recorded only when it is the row's. */
export const FINGERPRINT_METADATA_KEY = "storefront_basket";
/** The intent's breakdown, in cents, for anyone reading it at the processor: items, shipping, discount, tax, total. */
export const BREAKDOWN_METADATA_KEYS = {
  items: "storefront_items_cents",
  shipping: "storefront_shipping_cents",
  shippingMethod: "storefront_shipping_method",
  discount: "storefront_discount_cents",
  tax: "storefront_tax_cents",
  total: "storefront_total_cents",
} as const;
/** The basket's items other than gift cards: what a promotion code's minimum is judged on and what it discounts. */
function goodsCentsOf(view: BasketView): number {
  return view.items.reduce((sum, line) => sum + (line.giftCard === undefined ? line.lineCents : 0), 0);
}

/** Passes of preparePayment before giving up on a shopper whose basket keeps changing under it. */
const PREPARE_PASSES = 3;
/** Order numbers drawn before giving up: a clash is one in hundreds of thousands, three in a row never happens. */
const ORDER_NUMBER_DRAWS = 5;
/** Open intents the start-up sweep reads at a time. */
const SWEEP_PAGE_SIZE = 200;

/** What else a newly recorded order writes, in the order's own transaction (its confirmation e-mail). */
export type OrderRecordedHook = (trx: Writer, orderId: string) => Promise<unknown>;

export interface CheckoutDependencies {
  db: DB;
  basket: BasketService;
  addresses: AddressService;
  shipping: ShippingService;
  provider: PaymentProvider;
  logger: Logger;
  inventory: InventoryService;
  promotions: PromotionService;
  /** Writes the paid order and its first status, in the transaction that settles the payment. */
  orders: Pick<OrderService, "recordPaidOrder" | "flagPaidOrder">;
  onOrderRecorded?: OrderRecordedHook;
}

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
export function createCheckoutService({
  db,
  basket,
  addresses,
  shipping,
  provider,
  logger,
  inventory,
  promotions,
  orders,
  onOrderRecorded,
}: CheckoutDependencies) {
  // Which processor (and mode) this shop runs on: an intent another one made is never reused or handed out.
  const { processor, livemode } = provider.identity;
  const isOtherProcessors = (payment: { processor: string | null; livemode: boolean | null }) =>
    payment.processor !== null && (payment.processor !== processor || payment.livemode !== livemode);

  /**
   * What the basket costs delivered to the address with the chosen option, by the one pricing function. Rates are
   * read at every pricing: an operator's change reaches the next page view and the next Buy Now.
   */
  async function priceView(
    view: BasketView,
    checkoutAddress: CheckoutAddress | null,
    promotion: PromotionInput,
    knownRates?: ShopRates,
  ): Promise<PriceBreakdown> {
    const rates = knownRates ?? (await shipping.loadRates());
    const address: PricingAddress | null = checkoutAddress
      ? { country: checkoutAddress.address.country, state: checkoutAddress.address.region }
      : null;
    return priceOrder({
      lines: view.items.map((line) => ({
        key: line.itemId,
        title: line.product.title,
        unitPriceCents: line.variant.priceCents,
        quantity: line.quantity,
        weightGrams: line.variant.weightGrams,
        taxable: line.variant.chargeTax,
        isGiftCard: line.giftCard !== undefined,
      })),
      address,
      methodId: checkoutAddress?.deliveryMethodId ?? null,
      promotion,
      rates,
    });
  }

  /**
   * The basket priced with the code applied on /payment, when the code can be used on it now (judged on the items
   * before any discount); otherwise priced without it, with the sentence saying why (`refusal`).
   */
  async function priceWithPromotion(
    view: BasketView,
    checkoutAddress: CheckoutAddress | null,
    customer: PromotionCustomer | null,
    rates: ShopRates,
  ): Promise<{
    pricing: PriceBreakdown;
    promotion: PromotionInput;
    refusal: { code: string; message: string } | null;
  }> {
    const none: PromotionInput = { kind: "none" };
    const withoutCode = await priceView(view, checkoutAddress, none, rates);
    const code = checkoutAddress?.promotionCode ?? null;
    if (!code || !customer) return { pricing: withoutCode, promotion: none, refusal: null };
    // A code's minimum is judged on what it may discount: the items that are not gift cards.
    const verdict = await promotions.judge(code, goodsCentsOf(view), customer);
    if (!verdict.ok) return { pricing: withoutCode, promotion: none, refusal: { code, message: verdict.message } };
    const pricing = await priceView(view, checkoutAddress, verdict.promotion, rates);
    const tooSmall = promotions.refusalForTotal(pricing);
    if (tooSmall) return { pricing: withoutCode, promotion: none, refusal: { code, message: tooSmall } };
    return { pricing, promotion: verdict.promotion, refusal: null };
  }

  /** What preparing a payment (or placing a $0.00 order) charges: a code that cannot be used now is refused. */
  async function priceToPay(
    view: BasketView,
    checkoutAddress: CheckoutAddress | null,
    customer: PromotionCustomer,
  ): Promise<PriceBreakdown> {
    // A gift card line without its recipient (one added before the product became a gift card) cannot be sent.
    if (view.items.some((line) => line.giftCard === null))
      throw new AppError(
        "INVALID_INPUT",
        "A gift card in your basket does not say who it is for: remove it and add it again from its page.",
      );
    const { pricing, refusal } = await priceWithPromotion(view, checkoutAddress, customer, await shipping.loadRates());
    if (refusal) throw promotionRefusal(refusal.message);
    return pricing;
  }

  /** Holds the code's use for `hold` when the pricing has one, and lets go of what `hold` held otherwise. */
  async function holdPromotionUse(
    hold: string,
    pricing: PriceBreakdown,
    customer: PromotionCustomer,
    holder: Holder | undefined,
    replaces: readonly string[] = [],
  ): Promise<void> {
    if (pricing.promotion) {
      await promotions.reserve(hold, pricing.promotion.code, pricing.itemsCents, customer, { replaces, holder });
    } else {
      for (const key of [hold, ...replaces]) await promotions.release(key);
    }
  }

  /** The $0.00 order's one-time token: this owner, this basket revision, this snapshot. Another basket, another token. */
  function freeOrderToken(owner: BasketOwner, revision: number, fingerprint: string): string {
    const { column, value } = ownerColumn(owner);
    return sha256Base64url(JSON.stringify(["free-order", column, value, revision, fingerprint]));
  }

  /** What the intent is for: the basket's lines, where they go and where the receipt goes. */
  function snapshot(
    view: BasketView,
    delivery: Delivery,
    pricing: PriceBreakdown,
  ): { items: OrderItem[]; fingerprint: string } {
    const items = view.items.map(({ product, variant, quantity, giftCard }) => ({
      productId: product.id,
      variantId: variant.id,
      title: product.title,
      options: variant.options,
      sku: variant.sku,
      priceCents: product.priceCents,
      quantity,
      rating: product.rating,
      image: product.image,
      ...(giftCard
        ? {
            giftCard: {
              recipientEmail: giftCard.recipientEmail,
              senderName: giftCard.senderName,
              message: giftCard.message,
              sendOn: giftCard.sendOn,
            },
          }
        : {}),
    }));
    // One entry per line, quantity included: two books and one book are different baskets at different amounts.
    const lines = items.map((item) => [item.variantId, item.priceCents, item.quantity]);
    // The address too: a new address updates the open intent's `shipping`, and an intent paid with another address
    // than the row's is caught like one paid for another basket.
    // And the whole breakdown: another delivery option or a changed rate is another amount for the same lines.
    return {
      items,
      fingerprint: sha256Base64url(JSON.stringify([lines, delivery.address, delivery.contactEmail, pricing])),
    };
  }

  /** The intent's metadata: whose it is, and which snapshot its amount was set for (checked when it is paid). */
  function metadataFor(owner: BasketOwner, fingerprint: string, pricing: PriceBreakdown): Record<string, string> {
    const { column, value } = ownerColumn(owner);
    return {
      [SHOP_METADATA_KEY]: "1",
      [FINGERPRINT_METADATA_KEY]: fingerprint,
      [column]: value,
      [BREAKDOWN_METADATA_KEYS.items]: String(pricing.itemsCents),
      [BREAKDOWN_METADATA_KEYS.shipping]: String(pricing.shippingCents),
      // Stripe keeps metadata values of up to 500 characters.
      [BREAKDOWN_METADATA_KEYS.shippingMethod]: (pricing.shipping?.name ?? "").slice(0, 500),
      [BREAKDOWN_METADATA_KEYS.discount]: String(pricing.discountCents),
      [BREAKDOWN_METADATA_KEYS.tax]: String(pricing.taxCents),
      [BREAKDOWN_METADATA_KEYS.total]: String(pricing.totalCents),
    };
  }

  /**
   * One pass of preparePayment; null when another call for the same shopper changed the payment row under this
   * one. A re-pricing first claims the row (compare-and-set on its revision, marking it pending), then updates the
   * processor, then writes the row (compare-and-set on its claim). A claim taken over by another call means that
   * call's processor update may have landed before this one's, so the processor may hold this pass's basket while
   * the row holds the other's: the caller goes round again, and the next pass writes the processor whatever the
   * row says (`mustUpdateProcessor`). A pending row is never taken as settled, even when its fingerprint matches.
   */
  async function preparePaymentOnce(
    owner: BasketOwner,
    view: BasketView,
    delivery: Delivery,
    pricing: PriceBreakdown,
    mustUpdateProcessor: boolean,
    holder: Holder | undefined,
  ): Promise<{ clientSecret: string; amountCents: number } | null> {
    const customer: PromotionCustomer = { owner, email: delivery.contactEmail };
    const { items, fingerprint } = snapshot(view, delivery, pricing);
    const amountCents = pricing.totalCents;
    const shipping = toStripeShipping(delivery.address);
    const deliveryColumns = {
      delivery_address: JSON.stringify(delivery.address),
      contact_email: delivery.contactEmail,
    };
    const { column, value } = ownerColumn(owner);
    // The owner's newest open payment of this processor, if any, and how many payments the owner has made in all
    // (which names the next intent's idempotency key), in one statement.
    const isOpenHere = sql<boolean>`(status = 'open' and processor = ${processor} and livemode = ${livemode})`;
    const newest = await db
      .selectFrom("checkout_payments")
      .select([
        "payment_intent_id",
        "client_secret",
        "basket_fingerprint",
        "pending_fingerprint",
        "amount_cents",
        "revision",
      ])
      .select([isOpenHere.as("is_open_here"), sql<number>`count(*) over ()::int`.as("attempts")])
      .where(column, "=", value)
      .orderBy(isOpenHere, "desc")
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
    const open = newest?.is_open_here ? newest : undefined;
    const stockLines = toStockLines(view);

    const isSettled = open?.pending_fingerprint === null;
    if (open && isSettled && open.basket_fingerprint === fingerprint && !mustUpdateProcessor) {
      // The same intent again: its hold is taken again (until RESERVATION_MINUTES after it was first taken, not
      // later), or refused if the stock went.
      await inventory.reserve(open.payment_intent_id, stockLines, { holder });
      await holdPromotionUse(open.payment_intent_id, pricing, customer, holder);
      return { clientSecret: open.client_secret, amountCents: open.amount_cents };
    }

    if (open) {
      // Before the intent changes: short stock, or a code used up meanwhile, is refused with the intent as it was.
      await inventory.reserve(open.payment_intent_id, stockLines, { holder });
      await holdPromotionUse(open.payment_intent_id, pricing, customer, holder);
      const claimed = await db
        .updateTable("checkout_payments")
        .set({ pending_fingerprint: fingerprint, revision: open.revision + 1, updated_at: sql`now()` })
        .where("payment_intent_id", "=", open.payment_intent_id)
        .where("status", "=", "open")
        .where("revision", "=", open.revision)
        .executeTakeFirst();
      if (claimed.numUpdatedRows === 0n) return null;
      // The amount and the fingerprint change in the same processor call, so the intent always says which snapshot
      // its amount belongs to.
      // Only the processor's refusal for the intent's state (being authenticated, paid, cancelled, gone) makes a new
      // intent. A timeout or a fault of the processor's is the shopper's error to retry: the claim stays pending, so
      // the next attempt updates this intent again rather than leaving a second one open beside it.
      const updated = await provider
        .updateIntent(open.payment_intent_id, {
          amountCents,
          metadata: metadataFor(owner, fingerprint, pricing),
          shipping,
        })
        .catch((error: unknown) => {
          if (isIntentStateRefusal(error)) return null;
          throw error;
        });
      if (updated) {
        const written = await db
          .updateTable("checkout_payments")
          .set({
            amount_cents: amountCents,
            basket_fingerprint: fingerprint,
            pending_fingerprint: null,
            items: JSON.stringify(items),
            pricing: JSON.stringify(pricing),
            ...deliveryColumns,
            revision: open.revision + 2,
            updated_at: sql`now()`,
          })
          .where("payment_intent_id", "=", open.payment_intent_id)
          .where("status", "=", "open")
          .where("revision", "=", open.revision + 1)
          .executeTakeFirst();
        if (written.numUpdatedRows === 0n) return null;
        return { clientSecret: open.client_secret, amountCents: updated.amountCents };
      }
      // Not updatable any more (being authenticated, or already paid): leave it to its fate and start afresh.
      await provider.cancelIntent(open.payment_intent_id).catch((error: unknown) => {
        // A paid one cannot be cancelled: the sweep and the webhook make it an order. Anything else is left to expire.
        logger.warn(
          { err: error, paymentIntentId: open.payment_intent_id },
          "checkout: a replaced intent was not cancelled",
        );
      });
      await db
        .updateTable("checkout_payments")
        .set({ status: "replaced", revision: sql`revision + 1`, updated_at: sql`now()` })
        .where("payment_intent_id", "=", open.payment_intent_id)
        .where("status", "=", "open")
        .execute();
    }

    // The stock is held before the intent exists, under a key of its own, and becomes the intent's once its row is
    // written; a replaced intent's hold goes in the same step. Short stock: no intent is created.
    const hold = `new:${randomUUID()}`;
    const replaced = open ? [open.payment_intent_id] : [];
    try {
      await inventory.reserve(hold, stockLines, { replaces: replaced, holder });
      await holdPromotionUse(hold, pricing, customer, holder, replaced);
    } catch (error) {
      for (const id of [hold, ...replaced]) {
        await inventory.release(id);
        await promotions.release(id);
      }
      throw error;
    }

    // The same owner, basket and attempt always ask for the same intent: two tabs racing get one intent. Intents for
    // different baskets are different intents, each with its own row, so they cannot cross.
    const intent = await provider
      .createIntent({
        amountCents,
        metadata: metadataFor(owner, fingerprint, pricing),
        shipping,
        idempotencyKey: `storefront:${column}:${value}:${fingerprint}:${newest?.attempts ?? 0}`,
      })
      .catch(async (error: unknown) => {
        await inventory.release(hold);
        await promotions.release(hold);
        throw error;
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
        pricing: JSON.stringify(pricing),
        ...deliveryColumns,
        status: "open",
        processor,
        livemode,
      })
      .onConflict((conflict) => conflict.column("payment_intent_id").doNothing())
      .execute();
    await inventory.renameHold(hold, intent.id);
    await promotions.renameHold(hold, intent.id);
    return { clientSecret: intent.clientSecret, amountCents: intent.amountCents };
  }

  const service = {
    /**
     * POST /payments/create?total=…: the client secret of an intent for exactly this basket. The page's total must
     * be the server's (409 otherwise: a tampered or stale page). While the basket is unchanged the same intent is
     * returned; a changed basket updates the open intent, or replaces it when the processor no longer allows that.
     */
    async preparePayment(
      owner: BasketOwner | null,
      expectedTotalCents: number,
      accountEmail: string | null = null,
      /** The session and client address paying: their holds are bounded (server/holds/). */
      holder?: Holder,
    ): Promise<{ clientSecret: string; amountCents: number }> {
      let view = await basket.getBasket(owner);
      if (!owner || view.count === 0)
        throw new AppError("BASKET_EMPTY", "Your basket is empty, so there is nothing to pay for.");
      const checkoutAddress = await addresses.getCheckoutAddress(owner);
      const customer: PromotionCustomer = {
        owner,
        email: deliveryFor(checkoutAddress, accountEmail)?.contactEmail ?? accountEmail,
      };
      // A code that cannot be used any more is refused in its own words, before any card is charged.
      let pricing = await priceToPay(view, checkoutAddress, customer);
      if (expectedTotalCents !== pricing.totalCents) throw totalChanged(pricing.totalCents);
      if (pricing.totalCents === 0)
        throw new AppError("TOTAL_MISMATCH", "There is nothing to pay: place your order without a card.");
      // After the total: a page with a stale total is told so first, whatever else it lacks.
      const delivery = deliveryFor(checkoutAddress, accountEmail);
      if (!delivery) throw new AppError("ADDRESS_REQUIRED", "Add a delivery address");
      if (pricing.isUndeliverable)
        throw new AppError("NOT_DELIVERABLE", noDeliveryMessage(countryName(delivery.address.country)));
      for (let pass = 1; ; pass++) {
        const prepared = await preparePaymentOnce(owner, view, delivery, pricing, pass > 1, holder);
        if (prepared) return prepared;
        if (pass === PREPARE_PASSES) {
          throw new AppError(
            "TOTAL_MISMATCH",
            "Your basket is being changed in another window. Please check it and pay again.",
          );
        }
        // Price what the basket holds now: the call that won may have been for a newer basket.
        view = await basket.getBasket(owner);
        if (view.count === 0)
          throw new AppError("BASKET_EMPTY", "Your basket is empty, so there is nothing to pay for.");
        pricing = await priceToPay(view, checkoutAddress, customer);
      }
    },

    /**
     * What /payment shows: the basket, the address and what it all costs, by the pricing function. `byOption` prices
     * the basket with each delivery option that serves the address, so the page can show another choice's totals at
     * once while the choice is being kept.
     */
    async priceCheckout(owner: BasketOwner | null, accountEmail: string | null = null): Promise<CheckoutPricing> {
      const [view, checkoutAddress] = await Promise.all([basket.getBasket(owner), addresses.getCheckoutAddress(owner)]);
      const rates = await shipping.loadRates();
      const delivery = deliveryFor(checkoutAddress, accountEmail);
      const customer = owner ? { owner, email: delivery?.contactEmail ?? accountEmail } : null;
      const { pricing, promotion, refusal } = await priceWithPromotion(view, checkoutAddress, customer, rates);
      // A code the basket no longer qualifies for (under its minimum, used up, ended) is taken off, and the page says why.
      if (refusal && owner) await addresses.setPromotionCode(owner, null);
      const byOption: Record<string, PriceBreakdown> = {};
      if (checkoutAddress) {
        for (const option of pricing.deliveryOptions) {
          byOption[option.methodId] =
            option.methodId === pricing.shipping?.methodId
              ? pricing
              : await priceView(view, { ...checkoutAddress, deliveryMethodId: option.methodId }, promotion, rates);
        }
      }
      const isFree =
        owner !== null &&
        delivery !== null &&
        view.count > 0 &&
        pricing.totalCents === 0 &&
        pricing.promotion !== null &&
        !pricing.isUndeliverable;
      const freeOrderTokenValue = isFree
        ? freeOrderToken(owner, view.revision, snapshot(view, delivery, pricing).fingerprint)
        : null;
      return {
        basket: view,
        checkoutAddress,
        pricing,
        byOption,
        removedPromotion: refusal,
        freeOrderToken: freeOrderTokenValue,
      };
    },

    /**
     * Applies a promotion code on /payment (one per order: it takes the place of any other), when it can be used on
     * this basket now; otherwise refuses it with the sentence the shopper reads and keeps what was applied before.
     */
    async applyPromotion(owner: BasketOwner, code: string, accountEmail: string | null = null): Promise<void> {
      const [view, checkoutAddress] = await Promise.all([basket.getBasket(owner), addresses.getCheckoutAddress(owner)]);
      if (!checkoutAddress) throw new AppError("ADDRESS_REQUIRED", "Add a delivery address first.");
      const customer: PromotionCustomer = {
        owner,
        email: deliveryFor(checkoutAddress, accountEmail)?.contactEmail ?? accountEmail,
      };
      const { refusal } = await priceWithPromotion(
        view,
        { ...checkoutAddress, promotionCode: code },
        customer,
        await shipping.loadRates(),
      );
      if (refusal) throw promotionRefusal(refusal.message);
      await addresses.setPromotionCode(owner, code);
    },

    async removePromotion(owner: BasketOwner): Promise<void> {
      await addresses.setPromotionCode(owner, null);
    },

    /**
     * Places a $0.00 order (a code paid for all of it) without a card. The page's token names the basket revision
     * and snapshot it was shown for; the order's id comes from it, so a double click, a second tab or two instances
     * place it once: claiming the token (the order's key), the code's use and the stock happen in one transaction.
     */
    async placeFreeOrder(
      owner: BasketOwner | null,
      token: string,
      accountEmail: string | null = null,
    ): Promise<{ orderId: string; orderNumber: string; isNew: boolean }> {
      const orderId = `free_${token}`;
      const placed = await db.selectFrom("orders").select("number").where("id", "=", orderId).executeTakeFirst();
      if (placed) return { orderId, orderNumber: placed.number, isNew: false };
      const view = await basket.getBasket(owner);
      if (!owner || view.count === 0)
        throw new AppError("BASKET_EMPTY", "Your basket is empty, so there is nothing to order.");
      const checkoutAddress = await addresses.getCheckoutAddress(owner);
      const delivery = deliveryFor(checkoutAddress, accountEmail);
      if (!delivery) throw new AppError("ADDRESS_REQUIRED", "Add a delivery address");
      const customer: PromotionCustomer = { owner, email: delivery.contactEmail };
      const pricing = await priceToPay(view, checkoutAddress, customer);
      if (pricing.isUndeliverable)
        throw new AppError("NOT_DELIVERABLE", noDeliveryMessage(countryName(delivery.address.country)));
      if (pricing.totalCents !== 0 || !pricing.promotion) throw totalChanged(pricing.totalCents);
      const { items, fingerprint } = snapshot(view, delivery, pricing);
      if (token !== freeOrderToken(owner, view.revision, fingerprint)) {
        throw new AppError("TOTAL_MISMATCH", "Your basket has changed. Please check it and place your order again.");
      }
      // Short stock is refused with its sentence before anything is written.
      await inventory.reserve(orderId, toStockLines(view));
      const { column, value } = ownerColumn(owner);
      try {
        const placed = await writeOrder({
          id: orderId,
          amountCents: 0,
          created: new Date(),
          card: null,
          strict: true,
          payment: {
            user_id: column === "user_id" ? value : null,
            session_id: column === "session_id" ? value : null,
            items,
            pricing,
            currency: "usd",
            delivery_address: delivery.address,
            contact_email: delivery.contactEmail,
            processor: "none",
            livemode,
          },
        });
        // Placed meanwhile by the other click (or tab, or instance): the hold this one took is nobody's.
        if (!placed.isNew) await inventory.release(orderId);
        return placed;
      } catch (error) {
        await inventory.release(orderId);
        throw error;
      }
    },

    /**
     * Records the order for a succeeded intent, exactly once. `owner` is given when a browser asks (it must be the
     * payer); the webhook and the start-up sweep pass none. The webhook also passes the intent its signed
     * payment_intent.succeeded event carried, which then need not be asked for again. Returns null for an intent
     * the shop did not create (or another shopper's).
     *
     * An order is written only when the processor's amount and basket fingerprint are the snapshot's: otherwise the
     * shopper paid for something other than the items the row lists, and the payment is kept as needs_review
     * (never fulfilled; the operator refunds it) instead of becoming an order that lists more, or less, than was paid.
     */
    async recordOrder(
      paymentIntentId: string,
      owner: BasketOwner | null,
      succeededIntent?: ProviderIntent,
    ): Promise<RecordOutcome | null> {
      // With the order's number, if there is an order: a payment already recorded then needs nothing more.
      const payment = await db
        .selectFrom("checkout_payments")
        .leftJoin("orders", "orders.id", "checkout_payments.payment_intent_id")
        .selectAll("checkout_payments")
        .select("orders.number as order_number")
        .where("checkout_payments.payment_intent_id", "=", paymentIntentId)
        .executeTakeFirst();
      if (!payment) return null;
      if (owner) {
        const { column, value } = ownerColumn(owner);
        if (payment[column] !== value) return null;
      }
      // Marked paid in the same transaction that wrote the order (usually by the webhook, before the page asks):
      // nothing left to check with the processor.
      if (payment.status === "paid")
        return { kind: "recorded", orderId: paymentIntentId, orderNumber: payment.order_number ?? "", isNew: false };
      // Held for review (and perhaps refunded since): never an order.
      if (payment.status === "needs_review" || payment.status === "refunded")
        return { kind: "needs-review", paidAmountCents: payment.paid_amount_cents ?? 0, isNew: false };
      // Made by the processor the shop used before a switch: this one does not know it, and must not be asked.
      if (isOtherProcessors(payment)) return null;
      const intent =
        succeededIntent?.id === paymentIntentId && succeededIntent.status === "succeeded"
          ? succeededIntent
          : await provider.retrieveIntent(paymentIntentId);
      // Not a failure: the bank decides later, and payment_intent.succeeded then records the order.
      if (intent.status === "processing") return { kind: "processing" };
      if (intent.status !== "succeeded") {
        throw new AppError(
          "PAYMENT_NOT_COMPLETE",
          "Your payment has not gone through, so no order was placed. Your basket is unchanged.",
        );
      }
      const mismatch = describeMismatch(intent, payment);
      if (mismatch) return holdForReview(intent, mismatch);
      // An event's intent names its PaymentMethod by id only: ask for the card's brand and last four. Without an
      // answer the order is still recorded, just without them.
      const card =
        intent.card ??
        (await provider.retrieveIntent(paymentIntentId).then(
          (retrieved) => retrieved.card,
          () => null,
        ));
      const written = await writeOrder({
        id: intent.id,
        amountCents: intent.amountCents,
        currency: intent.currency,
        created: intent.created,
        card,
        payment,
      });
      return { kind: "recorded", ...written };
    },

    /** The shopper's paid payments that did not match their basket: no order, a refund to come. Newest first. */
    async listPaymentsUnderReview(owner: BasketOwner | null): Promise<PaymentUnderReview[]> {
      if (!owner) return [];
      const { column, value } = ownerColumn(owner);
      const rows = await db
        .selectFrom("checkout_payments")
        .select(["payment_intent_id", "paid_amount_cents", "updated_at"])
        .where(column, "=", value)
        .where("status", "=", "needs_review")
        .orderBy("updated_at", "desc")
        .limit(20)
        .execute();
      return rows.map((row) => ({
        paymentIntentId: row.payment_intent_id,
        paidAmountCents: row.paid_amount_cents ?? 0,
        heldAt: row.updated_at.toISOString(),
      }));
    },

    /**
     * The processor says the intent was cancelled (payment_intent.canceled): it can never be paid, so the stock it
     * held and its promotion code's use are released now (and any variant that brings back in stock sends its
     * alerts), not at their expiry.
     */
    async releaseCancelledPayment(paymentIntentId: string): Promise<void> {
      const payment = await db
        .selectFrom("checkout_payments")
        .select("status")
        .where("payment_intent_id", "=", paymentIntentId)
        .executeTakeFirst();
      // The shop's own cancel of an intent it replaced: the new payment takes the hold over in one step (reserve's replaces).
      if (payment?.status === "replaced") return;
      await inventory.release(paymentIntentId, "processor");
      await promotions.release(paymentIntentId);
    },

    /**
     * Every shopper's payments held for review in one mode (test or live; null: both), newest first: paid, no order,
     * each for the operator to refund (the console's "Needs attention"). At most `limit`; `count` is all of them.
     */
    async listHeldPayments(
      livemode: boolean | null,
      limit: number,
    ): Promise<{ payments: HeldPayment[]; count: number }> {
      const held = db
        .selectFrom("checkout_payments")
        .where("status", "=", "needs_review")
        .$if(livemode !== null, (query) => query.where(sql<boolean>`coalesce(livemode, false) = ${livemode}`));
      const [rows, total] = await Promise.all([
        held
          .select([
            "payment_intent_id",
            "paid_amount_cents",
            "amount_cents",
            "contact_email",
            "review_reason",
            "updated_at",
            "livemode",
          ])
          .orderBy("updated_at", "desc")
          .orderBy("payment_intent_id")
          .limit(limit)
          .execute(),
        held.select(sql<number>`count(*)::int`.as("count")).executeTakeFirstOrThrow(),
      ]);
      return {
        payments: rows.map((row) => ({
          paymentIntentId: row.payment_intent_id,
          paidAmountCents: row.paid_amount_cents ?? row.amount_cents,
          contactEmail: row.contact_email,
          reason: row.review_reason,
          heldAt: row.updated_at,
          isTest: row.livemode !== true,
        })),
        count: total.count,
      };
    },

    /** One payment held for review, or undefined when there is none by that id (or it is no longer held). */
    async findHeldPayment(paymentIntentId: string): Promise<HeldPayment | undefined> {
      const row = await db
        .selectFrom("checkout_payments")
        .select([
          "payment_intent_id",
          "paid_amount_cents",
          "amount_cents",
          "contact_email",
          "review_reason",
          "updated_at",
          "livemode",
        ])
        .where("payment_intent_id", "=", paymentIntentId)
        .where("status", "=", "needs_review")
        .executeTakeFirst();
      return (
        row && {
          paymentIntentId: row.payment_intent_id,
          paidAmountCents: row.paid_amount_cents ?? row.amount_cents,
          contactEmail: row.contact_email,
          reason: row.review_reason,
          heldAt: row.updated_at,
          isTest: row.livemode !== true,
        }
      );
    },

    /** A held payment given back in full: it leaves "Needs attention". False when it was not held (any more). */
    async markHeldPaymentRefunded(writer: Writer, paymentIntentId: string): Promise<boolean> {
      const updated = await writer
        .updateTable("checkout_payments")
        .set({ status: "refunded", updated_at: sql`now()` })
        .where("payment_intent_id", "=", paymentIntentId)
        .where("status", "=", "needs_review")
        .executeTakeFirst();
      return updated.numUpdatedRows > 0n;
    },

    /** At sign-in: a guest's payments (those in progress too) join the account, beside its orders. */
    async adoptGuestPayments(sessionId: string, userId: string): Promise<void> {
      await db
        .updateTable("checkout_payments")
        .set({ user_id: userId, session_id: null })
        .where("session_id", "=", sessionId)
        .execute();
    },

    /**
     * At account deletion, in its transaction: paid (or held, or refunded) payments stay for the books, naming nobody,
     * as its orders do. Payments still open go with the account.
     */
    async anonymisePaymentsOf(writer: Writer, userId: string): Promise<void> {
      await writer
        .updateTable("checkout_payments")
        .set({ user_id: null, session_id: null, contact_email: null, delivery_address: erasedDeliveryAddress })
        .where("user_id", "=", userId)
        .where("status", "in", ["paid", "needs_review", "refunded"])
        .execute();
    },

    /**
     * At start-up: intents still open from the last days are asked about; any that succeeded while no server was
     * there to record them (a crash between charge and record) get their order now.
     */
    async recordMissedOrders(): Promise<number> {
      let recorded = 0;
      // Every open intent, a page at a time in id order (a keyset, so rows that change status meanwhile shift nothing).
      for (let after = ""; ;) {
        const page = await db
          .selectFrom("checkout_payments")
          .select("payment_intent_id")
          .where("status", "=", "open")
          .where((where) =>
            where.or([
              where("processor", "is", null),
              where.and([where("processor", "=", processor), where("livemode", "=", livemode)]),
            ]),
          )
          .where("updated_at", ">", sql<Date>`now() - interval '7 days'`)
          .where("payment_intent_id", ">", after)
          .orderBy("payment_intent_id")
          .limit(SWEEP_PAGE_SIZE)
          .execute();
        for (const { payment_intent_id: id } of page) {
          const result = await service.recordOrder(id, null).catch((error: unknown) => {
            // The next start, or the intent's webhook, tries this one again; the sweep goes on with the others.
            logger.warn({ err: error, paymentIntentId: id }, "checkout: the start-up sweep could not record an order");
            return null;
          });
          if (result?.kind === "recorded" && result.isNew) recorded++;
        }
        if (page.length < SWEEP_PAGE_SIZE) break;
        after = page.at(-1)?.payment_intent_id ?? after;
      }
      if (recorded > 0) logger.warn({ recorded }, "checkout: recorded orders for payments that had none");
      return recorded;
    },
  };
  return service;

  /** Why a succeeded intent cannot become the row's order, or null when amount and fingerprint are the snapshot's. */
  function describeMismatch(
    intent: ProviderIntent,
    payment: { amount_cents: number; basket_fingerprint: string },
  ): string | null {
    if (intent.amountCents !== payment.amount_cents)
      return `paid ${intent.amountCents} cents for a basket priced at ${payment.amount_cents}`;
    const paidFingerprint = intent.metadata[FINGERPRINT_METADATA_KEY];
    // Intents created before fingerprints travelled in their metadata carry none; their amount is all there is to check.
    if (paidFingerprint !== undefined && paidFingerprint !== payment.basket_fingerprint)
      return "paid for a different basket than the one recorded";
    return null;
  }

  /** Keeps a paid but mismatched payment for the operator, once; the basket is left as it is. */
  async function holdForReview(intent: ProviderIntent, reason: string): Promise<RecordOutcome> {
    const held = await db
      .updateTable("checkout_payments")
      .set({
        status: "needs_review",
        paid_amount_cents: intent.amountCents,
        review_reason: reason,
        updated_at: sql`now()`,
      })
      .where("payment_intent_id", "=", intent.id)
      .where("status", "in", ["open", "replaced"])
      .executeTakeFirst();
    const isNew = held.numUpdatedRows > 0n;
    // Never fulfilled: what it held goes back for others.
    if (isNew) await inventory.release(intent.id);
    if (isNew) await promotions.release(intent.id);
    if (isNew)
      logger.error(
        { paymentIntentId: intent.id, paidAmountCents: intent.amountCents, reason },
        "checkout: payment needs review, no order recorded",
      );
    return { kind: "needs-review", paidAmountCents: intent.amountCents, isNew };
  }

  /**
   * One transaction: the order (unique by intent id, and by its number) and its first status, which the orders
   * module writes; the payment marked paid, the paid quantities out of the basket. A clash on the number (another
   * order drew it) draws again.
   */
  async function writeOrder(order: OrderToWrite): Promise<{ orderId: string; orderNumber: string; isNew: boolean }> {
    for (let draw = 1; ; draw++) {
      const written = await writeOrderOnce(order, newOrderNumber(new Date()));
      if (written) return written;
      if (draw === ORDER_NUMBER_DRAWS) throw new Error("checkout: no free order number after several draws");
    }
  }

  async function writeOrderOnce(
    { id, amountCents, currency, created, card, payment, strict = false }: OrderToWrite,
    number: string,
  ) {
    return db.transaction().execute(async (trx) => {
      const promotion = payment.pricing?.promotion ?? null;
      const inserted = await orders.recordPaidOrder(trx, {
        id,
        number,
        userId: payment.user_id,
        sessionId: payment.session_id,
        amountCents,
        currency: currency ?? payment.currency,
        items: payment.items,
        pricing: payment.pricing,
        processor: (payment.processor as OrderProcessor | null) ?? processor,
        livemode: payment.livemode ?? livemode,
        createdAt: created,
        deliveryAddress: payment.delivery_address,
        contactEmail: payment.contact_email,
        card: card ?? null,
        promotion: promotion ? { code: promotion.code, kind: promotion.kind } : null,
        discountCents: payment.pricing?.discountCents ?? 0,
      });
      if (!inserted) {
        // Either key: the order exists already (recorded by another path), or the number is taken (draw again).
        const existing = await trx.selectFrom("orders").select("number").where("id", "=", id).executeTakeFirst();
        return existing ? { orderId: id, orderNumber: existing.number, isNew: false } : null;
      }
      const owner: BasketOwner | null = payment.user_id
        ? { userId: payment.user_id }
        : payment.session_id
          ? { sessionId: payment.session_id }
          : null;
      // The payment's use of its code becomes a redemption here, once; over the limit, a paid order is kept as paid.
      if (promotion && owner) {
        const { overLimit } = await promotions.redeem(trx, {
          hold: id,
          orderId: id,
          code: promotion.code,
          customer: { owner, email: payment.contact_email },
          strict,
        });
        if (overLimit) {
          await orders.flagPaidOrder(trx, id, { promotionOverLimit: true });
          logger.error(
            { orderId: id, code: promotion.code },
            "checkout: an order was paid after its code's use lapsed and the code's uses had gone: over the limit",
          );
        }
      }
      // The payment's hold becomes a sale, in this transaction: once, whichever of page, webhook and sweep gets here.
      const items = payment.items.map(readOrderItem);
      const { oversold } = await inventory.sell(
        trx,
        id,
        items.map((item) => ({ variantId: item.variantId ?? item.productId, quantity: item.quantity })),
        id,
      );
      // Nobody paid for a $0.00 order: short stock refuses it (the transaction is undone) rather than overselling.
      if (oversold && strict)
        throw new AppError("STOCK_SHORT", "Some of your items have just sold out. Please check your basket.");
      if (oversold) await orders.flagPaidOrder(trx, id, { oversold: true });
      await trx
        .updateTable("checkout_payments")
        .set({ status: "paid", updated_at: sql`now()` })
        .where("payment_intent_id", "=", id)
        .execute();
      // A snapshot taken before lines had quantities lists one entry per item: each means one.
      if (owner) await basket.removePaidItems(owner, payment.items.map(readOrderItem), trx);
      await onOrderRecorded?.(trx, id);
      return { orderId: id, orderNumber: inserted.orderNumber, isNew: true };
    });
  }
}

/** What a basket's lines hold of each variant, named for a refusal ("Only 1 left of Classic Tee (M, Black)"). */
function toStockLines(view: BasketView): StockLine[] {
  return view.items.map((line) => ({
    variantId: line.variant.id,
    quantity: line.quantity,
    title: line.product.title,
    optionValues: line.variant.options.map((option) => option.value),
  }));
}

/** Where an order goes and where its receipt goes: the checkout address, and a guest's e-mail or the account's. */
interface Delivery {
  address: DeliveryAddress;
  contactEmail: string | null;
}

/** 409 with the total the server now makes it: the page shows it and re-prices. */
function totalChanged(totalCents: number): AppError {
  return new AppError(
    "TOTAL_MISMATCH",
    `The total has changed to ${formatCents(totalCents)}. Please check it and pay again.`,
    { details: { totalCents } },
  );
}

function deliveryFor(checkoutAddress: CheckoutAddress | null, accountEmail: string | null): Delivery | null {
  if (!checkoutAddress) return null;
  return { address: checkoutAddress.address, contactEmail: accountEmail ?? checkoutAddress.contactEmail };
}

/** An order to write: a succeeded intent's (its id, amount, card), or a $0.00 order's (`strict`: nothing was paid). */
interface OrderToWrite {
  id: string;
  amountCents: number;
  currency?: string;
  created: Date;
  card: { brand: string; last4: string } | null;
  payment: PaymentToRecord;
  strict?: boolean;
}

/** What the checkout's /payment shows: the basket priced, each delivery option's price, and the code's state. */
export interface CheckoutPricing {
  basket: BasketView;
  checkoutAddress: CheckoutAddress | null;
  pricing: PriceBreakdown;
  byOption: Record<string, PriceBreakdown>;
  /** A code taken off because it no longer applies, and why ("Spend $5.00 more to use this code."). */
  removedPromotion: { code: string; message: string } | null;
  /** The $0.00 order's one-time token, when a code pays for everything (the page places the order without a card). */
  freeOrderToken: string | null;
}

interface PaymentToRecord {
  user_id: string | null;
  session_id: string | null;
  items: StoredOrderItem[];
  pricing: PriceBreakdown | null;
  currency: string;
  delivery_address: DeliveryAddress | null;
  contact_email: string | null;
  processor: string | null;
  livemode: boolean | null;
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;

/** What recording a succeeded intent came to: its order, or a payment held for the operator's review. */
export type RecordOutcome =
  | { kind: "recorded"; orderId: string; orderNumber: string; isNew: boolean }
  /** The payment is processing: no order yet, and not a failure (payment_intent.succeeded will record it). */
  | { kind: "processing" }
  | { kind: "needs-review"; paidAmountCents: number; isNew: boolean };

/** A paid payment held for review, as the console lists it for a refund. */
export interface HeldPayment {
  paymentIntentId: string;
  /** What the processor says was paid. */
  paidAmountCents: number;
  contactEmail: string | null;
  /** Why it was held ("paid for a different basket than the one recorded"). */
  reason: string | null;
  heldAt: Date;
  isTest: boolean;
}

export interface PaymentUnderReview {
  paymentIntentId: string;
  paidAmountCents: number;
  /** ISO 8601: when the mismatch was found. */
  heldAt: string;
}
