// The balances a payment uses as one adapter of its hold, so store credit and gift cards are held, renamed, released
// and spent with the stock and the code's use.

import type { HoldAdapter } from "./checkout-hold";
import type { CheckoutBalances } from "#server/balances/checkout-balances";

/**
 * The balances a checkout pays with, as one adapter of the payment's hold (checkout-hold.ts): after the
 * stock and the code's use, each balance the quote applied is held for the payment (a balance with less on it now
 * refuses the payment with its sentence), renamed with it, released with it, and spent in the order's transaction.
 */
export function balanceHold(balances: CheckoutBalances): HoldAdapter {
  return {
    kind: "balance",
    reserve: ({ hold, replaces, pricing, isNew }) => balances.reserve(hold, pricing, replaces, { isNew }),
    rename: (from, to) => balances.rename(from, to),
    release: (hold) => balances.release(hold),
    async settle(trx, { hold, orderId, pricing, customer, strict }) {
      await balances.settle(trx, { hold, orderId, pricing, owner: customer?.owner ?? null, strict });
      // A shortfall (a hold that lapsed while its balance went elsewhere) is logged; the paid order stands.
      return null;
    },
  };
}
