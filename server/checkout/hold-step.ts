// Step 2 of checkout: take or renew what the payment holds (stock, the code's use, balances) under its key, or refuse
// with the sentence of what is short.

import type { BasketView } from "#shared/basket";
import type { PriceBreakdown } from "#shared/pricing";
import type { Holder } from "#server/holds/hold-claims";
import type { HeldKinds, HoldRequest } from "./checkout-hold";
import type { PromotionCustomer } from "#server/promotions/promotion-service";
import { toStockLines, type CheckoutContext } from "./checkout-context";

/** A payment's hold as checkout asks for it: the basket and its quote, for whom, under which key. */
export interface PaymentHold {
  key: string;
  view: BasketView;
  pricing: PriceBreakdown;
  customer: PromotionCustomer;
  holder?: Holder;
  /** Earlier keys of the same payment that this hold takes over (a replaced intent's). */
  replaces?: readonly string[];
  /** A $0.00 order, written in the same call (HoldRequest's settlesAtOnce). */
  settlesAtOnce?: boolean;
  /** `key` was made for this hold: nothing was held under it before (HoldRequest's isNew). */
  isNew?: boolean;
}

/**
 * Step 2 of checkout, hold: everything the payment must keep while the shopper pays (its stock, its code's use, and
 * whatever other adapters the one hold has, server/checkout/checkout-hold.ts), taken together under the payment's key.
 * Undone by the release step (`release`), or by settling when the order is recorded; a hold nobody settles or
 * releases lapses at RESERVATION_MINUTES.
 */
export function createHoldStep({ holds }: CheckoutContext) {
  const request = ({
    key,
    view,
    pricing,
    customer,
    holder,
    replaces = [],
    settlesAtOnce,
    isNew,
  }: PaymentHold): HoldRequest => ({
    hold: key,
    replaces,
    holder,
    settlesAtOnce,
    isNew,
    stock: toStockLines(view),
    pricing,
    customer,
  });

  return {
    /**
     * A new hold (and the replaced ones it takes over, in the same step): short stock or a code used up meanwhile
     * refuses it, and then nothing is held under any of its keys.
     */
    take: (hold: PaymentHold) => holds.reserve(request(hold)),
    /**
     * The payment's hold taken again (until RESERVATION_MINUTES after it was first taken, not later), or refused if
     * the stock went: its intent is then left as it was.
     */
    renew: (hold: PaymentHold) => holds.renew(request(hold)),
    /**
     * A hold taken under its own key becomes its intent's once the intent exists; `held` (what `take` resolved with)
     * limits it to the kinds that hold something.
     */
    rename: (from: string, to: string, held?: HeldKinds) => holds.rename(from, to, held),
  };
}

export type HoldStep = ReturnType<typeof createHoldStep>;
