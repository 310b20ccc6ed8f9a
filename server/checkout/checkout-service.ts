// Checkout as the server's other parts call it: composes the quote, hold, create-intent, record-order and release steps
// into preparing and recording a payment.

import { AppError } from "#shared/errors";
import { countryName } from "#shared/address";
import { amountDue, noDeliveryMessage } from "#shared/pricing";
import { ownerColumn, type BasketOwner } from "#server/basket/basket-owner";
import { createCheckoutHold } from "./checkout-hold";
import type { Holder } from "#server/holds/hold-claims";
import { defaultHoldAdapters } from "./hold-adapters";
import { createQuote } from "#server/pricing/quote";
import type { PromotionCustomer } from "#server/promotions/promotion-service";
import {
  deliveryFor,
  freeOrderToken,
  snapshot,
  totalChanged,
  type CheckoutContext,
  type CheckoutDependencies,
} from "./checkout-context";
import { createCheckoutPayments } from "./checkout-payments";
import { createIntentStep, type PreparedPayment } from "./create-intent-step";
import { createHoldStep } from "./hold-step";
import { createQuoteStep } from "./quote-step";
import { createRecordOrderStep } from "./record-order-step";
import { createReleaseStep } from "./release-step";

export {
  BREAKDOWN_METADATA_KEYS,
  FINGERPRINT_METADATA_KEY,
  SHOP_METADATA_KEY,
  type CheckoutDependencies,
  type CheckoutPricing,
  type HeldPayment,
  type OrderRecordedHook,
  type PaymentUnderReview,
  type RecordOutcome,
} from "./checkout-context";

/** Passes of preparePayment before giving up on a shopper whose basket keeps changing under it. */
const PREPARE_PASSES = 3;

/**
 * Checkout: the one flow that crosses basket, payments and orders, as a workflow of named steps, each in its own
 * module and each saying how it is undone. Its steps never hold a database transaction across a call to the
 * processor (the built-in one answers from this same process and database).
 *
 * 1. quote (quote-step.ts): price the basket on the server by the one quote (server/pricing/quote.ts). Nothing to undo.
 * 2. hold (hold-step.ts): the payment's stock, code's use and any other kind, together (checkout-hold.ts). Undone by 5.
 * 3. create intent (create-intent-step.ts): reuse, update or replace the owner's open intent. A replaced intent is
 *    cancelled; a failed creation releases the hold of step 2.
 * 4. (the browser confirms the card with the processor)
 * 5. record order (record-order-step.ts): the server asks the processor whether the intent succeeded, then writes the
 *    order once, keyed by the intent id, settling the hold in the same transaction. Undone only by a refund.
 * 6. release (release-step.ts): a cancelled, replaced or mismatched payment gives back what it held.
 */
export function createCheckoutService(dependencies: CheckoutDependencies) {
  const { db, basket, addresses, provider, inventory, promotions, logger } = dependencies;
  const context: CheckoutContext = {
    ...dependencies,
    holds: dependencies.holds ?? createCheckoutHold(defaultHoldAdapters({ inventory, promotions, logger })),
    quote: createQuote(dependencies),
    processor: provider.identity.processor,
    livemode: provider.identity.livemode,
  };
  const quote = createQuoteStep(context);
  const hold = createHoldStep(context);
  const release = createReleaseStep(context);
  const intent = createIntentStep(context, hold, release);
  const record = createRecordOrderStep(context, release);

  /**
   * POST /payments/create?total=…: the client secret of an intent for exactly this basket. The page's total must
   * be the server's (409 otherwise: a tampered or stale page). While the basket is unchanged the same intent is
   * returned; a changed basket updates the open intent, or replaces it when the processor no longer allows that.
   */
  async function preparePayment(
    owner: BasketOwner | null,
    expectedTotalCents: number,
    accountEmail: string | null = null,
    /** The session and client address paying: their holds are bounded (server/holds/hold-claims.ts). */
    holder?: Holder,
  ): Promise<PreparedPayment> {
    let view = await basket.getBasket(owner);
    if (!owner || view.count === 0)
      throw new AppError("BASKET_EMPTY", "Your basket is empty, so there is nothing to pay for.");
    const checkoutAddress = await addresses.getCheckoutAddress(owner);
    const customer: PromotionCustomer = {
      owner,
      email: deliveryFor(checkoutAddress, accountEmail)?.contactEmail ?? accountEmail,
    };
    // A code that cannot be used any more is refused in its own words, before any card is charged.
    let pricing = await quote.priceToPay(view, checkoutAddress, customer);
    if (expectedTotalCents !== pricing.totalCents) throw totalChanged(pricing.totalCents);
    if (amountDue(pricing) === 0)
      throw new AppError("TOTAL_MISMATCH", "There is nothing to pay: place your order without a card.");
    // After the total: a page with a stale total is told so first, whatever else it lacks.
    const delivery = deliveryFor(checkoutAddress, accountEmail);
    if (!delivery) throw new AppError("ADDRESS_REQUIRED", "Add a delivery address");
    if (pricing.isUndeliverable)
      throw new AppError("NOT_DELIVERABLE", noDeliveryMessage(countryName(delivery.address.country)));
    for (let pass = 1; ; pass++) {
      const prepared = await intent.preparePaymentOnce(owner, view, delivery, pricing, pass > 1, holder);
      if (prepared) return { ...prepared, dueCents: amountDue(pricing) };
      if (pass === PREPARE_PASSES) {
        throw new AppError(
          "TOTAL_MISMATCH",
          "Your basket is being changed in another window. Please check it and pay again.",
        );
      }
      // Price what the basket holds now: the call that won may have been for a newer basket.
      view = await basket.getBasket(owner);
      if (view.count === 0) throw new AppError("BASKET_EMPTY", "Your basket is empty, so there is nothing to pay for.");
      pricing = await quote.priceToPay(view, checkoutAddress, customer);
    }
  }

  /**
   * Places a $0.00 order (a code paid for all of it) without a card: quote, hold, record order, with no intent. The
   * page's token names the basket revision and snapshot it was shown for; the order's id comes from it, so a double
   * click, a second tab or two instances place it once: claiming the token (the order's key), the code's use and the
   * stock happen in one transaction. Its hold is released when the order is not written (or another click wrote it).
   */
  async function placeFreeOrder(
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
    const pricing = await quote.priceToPay(view, checkoutAddress, customer);
    if (pricing.isUndeliverable)
      throw new AppError("NOT_DELIVERABLE", noDeliveryMessage(countryName(delivery.address.country)));
    // Nothing left for a card, paid for by a code or by balances (store credit, gift cards).
    if (amountDue(pricing) !== 0 || (!pricing.promotion && (pricing.balances ?? []).length === 0))
      throw totalChanged(pricing.totalCents);
    const { items, fingerprint } = snapshot(view, delivery, pricing);
    if (token !== freeOrderToken(owner, view.revision, fingerprint)) {
      throw new AppError("TOTAL_MISMATCH", "Your basket has changed. Please check it and place your order again.");
    }
    // Short stock is refused with its sentence before anything is written; the code's use is redeemed strictly in the
    // order's transaction (a double click's two calls must not both hold it under the one key).
    await hold.take({ key: orderId, view, pricing, customer, settlesAtOnce: true });
    const { column, value } = ownerColumn(owner);
    try {
      const written = await record.writeOrder({
        id: orderId,
        // The order's total: $0.00 for a code that paid all of it, else what the balances paid.
        amountCents: pricing.totalCents,
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
          livemode: context.livemode,
        },
      });
      // Placed meanwhile by the other click (or tab, or instance): the hold this one took is nobody's.
      if (!written.isNew) await release.releaseHold(orderId);
      return written;
    } catch (error) {
      await release.releaseHold(orderId);
      throw error;
    }
  }

  return {
    preparePayment,
    priceCheckout: quote.priceCheckout,
    applyPromotion: quote.applyPromotion,
    removePromotion: quote.removePromotion,
    placeFreeOrder,
    recordOrder: record.recordOrder,
    releaseCancelledPayment: release.releaseCancelledPayment,
    ...createCheckoutPayments(context, record),
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
