// The one quote of a basket: the rates, the code's verdict and the balances read, then the pricing function, for the
// basket page, the payment and the order alike.

import type { BasketView } from "#shared/basket";
import type { PriceBreakdown } from "#shared/pricing";
import type { CheckoutAddress } from "#server/addresses/address-service";
import type { PromotionCustomer, PromotionService } from "#server/promotions/promotion-service";
import { priceOrder, type PricingAddress, type PromotionInput, type ShopRates } from "./price-order.ts";

/** What a quote reads: the shop's delivery zones and tax rates (server/shipping), and the codes (server/promotions). */
export interface QuoteDependencies {
  shipping: { loadRates(): Promise<ShopRates> };
  promotions: Pick<PromotionService, "judge" | "refusalForTotal">;
}

/** A code on /payment the basket cannot use now, and the sentence saying why ("Spend $5.00 more to use this code."). */
export interface QuoteRefusal {
  code: string;
  message: string;
}

/** A basket priced with its code: the breakdown, the promotion it was priced with, and why a code was left out. */
export interface PromotedQuote {
  pricing: PriceBreakdown;
  promotion: PromotionInput;
  refusal: QuoteRefusal | null;
}

/**
 * The one quote: the I/O shell around the pure `priceOrder`. It reads what pricing needs (the rates, the code's
 * verdict) and hands the function a basket's lines; every page, the payment and the order that show or charge what a
 * basket costs get their figures here. An order keeps the breakdown it was charged with, and what reads an order
 * later (its page, e-mails, the console, exports) reads the line amounts it stored (`orderLineAmounts`,
 * shared/orders.ts), never multiplying a price by a quantity itself (server/quality/money-rule.test.ts).
 */
export function createQuote({ shipping, promotions }: QuoteDependencies) {
  /**
   * What the basket costs delivered to the address with the chosen option. Rates are read at every quote unless
   * given: an operator's change reaches the next page view and the next Buy Now.
   */
  async function quoteBasket(
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
   * The basket quoted with the code applied on /payment, when the code can be used on it now (judged on the items
   * before any discount); otherwise quoted without it, with the sentence saying why (`refusal`).
   */
  async function quoteWithPromotion(
    view: BasketView,
    checkoutAddress: CheckoutAddress | null,
    customer: PromotionCustomer | null,
    rates: ShopRates,
  ): Promise<PromotedQuote> {
    const none: PromotionInput = { kind: "none" };
    const withoutCode = await quoteBasket(view, checkoutAddress, none, rates);
    const code = checkoutAddress?.promotionCode ?? null;
    if (!code || !customer) return { pricing: withoutCode, promotion: none, refusal: null };
    // A code's minimum is judged on what it may discount: the items that are not gift cards.
    const goodsCents = view.items.reduce((sum, line) => sum + (line.giftCard === undefined ? line.lineCents : 0), 0);
    const verdict = await promotions.judge(code, goodsCents, customer);
    if (!verdict.ok) return { pricing: withoutCode, promotion: none, refusal: { code, message: verdict.message } };
    const pricing = await quoteBasket(view, checkoutAddress, verdict.promotion, rates);
    const tooSmall = promotions.refusalForTotal(pricing);
    if (tooSmall) return { pricing: withoutCode, promotion: none, refusal: { code, message: tooSmall } };
    return { pricing, promotion: verdict.promotion, refusal: null };
  }

  return { loadRates: () => shipping.loadRates(), quoteBasket, quoteWithPromotion };
}

export type Quote = ReturnType<typeof createQuote>;
