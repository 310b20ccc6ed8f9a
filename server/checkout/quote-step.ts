// Step 1 of checkout: what the basket costs by the one quote, taking off a code the basket no longer qualifies for;
// holds nothing, so nothing to undo.

import { AppError } from "#shared/errors";
import type { BasketView } from "#shared/basket";
import { amountDue, type PriceBreakdown } from "#shared/pricing";
import { applyBalances } from "#server/pricing/apply-balances";
import type { CheckoutAddress } from "#server/addresses/address-service";
import type { BasketOwner } from "#server/basket/basket-owner";
import { promotionRefusal, type PromotionCustomer } from "#server/promotions/promotion-service";
import { deliveryFor, freeOrderToken, snapshot, type CheckoutContext, type CheckoutPricing } from "./checkout-context";

/**
 * Step 1 of checkout, quote: what the basket costs, by the one quote (server/pricing/quote.ts). It holds nothing and
 * writes nothing but taking off a code the basket no longer qualifies for, so there is nothing to undo: a shopper who
 * goes no further leaves no trace.
 */
export function createQuoteStep({ quote, basket, addresses, balances }: CheckoutContext) {
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
    const { pricing, refusal } = await quote.quoteWithPromotion(
      view,
      checkoutAddress,
      customer,
      await quote.loadRates(),
    );
    if (refusal) throw promotionRefusal(refusal.message);
    // The balances applied on /payment (store credit, gift cards) pay what they can; the card the rest.
    return balances ? balances.priceWithBalances(customer.owner, pricing) : pricing;
  }

  /**
   * What /payment shows: the basket, the address and what it all costs, by the pricing function. `byOption` prices
   * the basket with each delivery option that serves the address, so the page can show another choice's totals at
   * once while the choice is being kept.
   */
  async function priceCheckout(
    owner: BasketOwner | null,
    accountEmail: string | null = null,
  ): Promise<CheckoutPricing> {
    // Everything the page reads is asked for at once: one round trip to the database, not one after another.
    const [view, checkoutAddress, rates, held] = await Promise.all([
      basket.getBasket(owner),
      addresses.getCheckoutAddress(owner),
      quote.loadRates(),
      balances && owner ? balances.forCheckout(owner) : { applied: [], storeCreditCents: null },
    ]);
    const delivery = deliveryFor(checkoutAddress, accountEmail);
    const customer = owner ? { owner, email: delivery?.contactEmail ?? accountEmail } : null;
    const quoted = await quote.quoteWithPromotion(view, checkoutAddress, customer, rates);
    const { promotion, refusal } = quoted;
    const withBalances = (priced: PriceBreakdown) =>
      held.applied.length > 0 ? applyBalances(priced, held.applied) : priced;
    const pricing = withBalances(quoted.pricing);
    // A code the basket no longer qualifies for (under its minimum, used up, ended) is taken off, and the page says why.
    if (refusal && owner) await addresses.setPromotionCode(owner, null);
    const byOption: Record<string, PriceBreakdown> = {};
    if (checkoutAddress) {
      for (const option of pricing.deliveryOptions) {
        byOption[option.methodId] =
          option.methodId === pricing.shipping?.methodId
            ? pricing
            : withBalances(
                await quote.quoteBasket(
                  view,
                  { ...checkoutAddress, deliveryMethodId: option.methodId },
                  promotion,
                  rates,
                ),
              );
      }
    }
    const isFree =
      owner !== null &&
      delivery !== null &&
      view.count > 0 &&
      amountDue(pricing) === 0 &&
      // Paid for by a code or by balances: nothing is left for a card.
      (pricing.promotion !== null || (pricing.balances ?? []).length > 0) &&
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
      storeCreditCents: held.storeCreditCents,
    };
  }

  /**
   * Applies a promotion code on /payment (one per order: it takes the place of any other), when it can be used on
   * this basket now; otherwise refuses it with the sentence the shopper reads and keeps what was applied before.
   */
  async function applyPromotion(owner: BasketOwner, code: string, accountEmail: string | null = null): Promise<void> {
    const [view, checkoutAddress] = await Promise.all([basket.getBasket(owner), addresses.getCheckoutAddress(owner)]);
    if (!checkoutAddress) throw new AppError("ADDRESS_REQUIRED", "Add a delivery address first.");
    const customer: PromotionCustomer = {
      owner,
      email: deliveryFor(checkoutAddress, accountEmail)?.contactEmail ?? accountEmail,
    };
    const { refusal } = await quote.quoteWithPromotion(
      view,
      { ...checkoutAddress, promotionCode: code },
      customer,
      await quote.loadRates(),
    );
    if (refusal) throw promotionRefusal(refusal.message);
    await addresses.setPromotionCode(owner, code);
  }

  async function removePromotion(owner: BasketOwner): Promise<void> {
    await addresses.setPromotionCode(owner, null);
  }

  return { priceToPay, priceCheckout, applyPromotion, removePromotion };
}
