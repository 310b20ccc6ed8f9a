/**
 * What one checkout payment holds while the shopper pays: its stock, its promotion code's use and (with more adapters)
 * any other thing that must be kept for it, reserved, renewed, released and settled together under one key (the
 * checkout payment's id). Checkout asks this hold; it never pairs one kind of hold with another by hand.
 */

import type { PriceBreakdown } from "#shared/pricing";
import type { OrderItem } from "#shared/orders";
import type { Writer } from "#server/db/client";
import type { PromotionCustomer } from "#server/promotions/promotion-service";
import type { StockLine } from "#server/inventory/inventory-service";
import type { Holder } from "#server/holds/hold-claims";

/** What a payment asks to hold, under `hold` (the checkout payment's id; `new:…` until its intent exists). */
export interface HoldRequest {
  hold: string;
  /** Earlier holds of the same payment that this one takes over, in the same step (a replaced intent's). */
  replaces: readonly string[];
  /** The session and client address paying: their holds are bounded (hold-claims.ts). None for a $0.00 order. */
  holder?: Holder;
  /** The basket's lines, named for a refusal ("Only 1 left of Classic Tee (M, Black)"). */
  stock: readonly StockLine[];
  /** What the payment is for, from the one quote: its promotion, and any amount a balance pays. */
  pricing: PriceBreakdown;
  customer: PromotionCustomer;
  /**
   * The order is written at once, in the same call, with nothing to wait for (a $0.00 order, no intent): a kind whose
   * strict `settle` refuses by itself what cannot be had may hold nothing here. Stock still holds, so short stock is
   * refused with its sentence before anything is written.
   */
  settlesAtOnce?: boolean;
  /**
   * `hold` is a key made for this request (`new:…`): nothing was ever held under it, so no kind has anything of its
   * own to let go of first (what `replaces` held still goes).
   */
  isNew?: boolean;
}

/** The kinds that hold something under a reserved key: only they have anything to rename. */
export type HeldKinds = ReadonlySet<string>;

/** A paid (or $0.00) order settling its hold, in the transaction that writes the order. */
export interface HoldSettlement {
  /** The hold's key: the checkout payment's id, which is also the order's. */
  hold: string;
  orderId: string;
  items: readonly OrderItem[];
  pricing: PriceBreakdown | null;
  /** Who ordered; null for a payment whose owner is gone (account deleted): its code's use is not redeemed. */
  customer: PromotionCustomer | null;
  /** Nobody paid (a $0.00 order): what cannot be settled in full refuses the order instead of flagging it. */
  strict: boolean;
}

/** What settling found, for the order's record: sold past the stock, or a code used past its limit. */
export interface OrderFlags {
  oversold?: true;
  promotionOverLimit?: true;
}

/**
 * One kind of thing a checkout payment holds. A new kind (a store credit or gift card balance) is one adapter in the
 * list given to `createCheckoutHold`; checkout does not change. Every method is keyed by the checkout payment's id
 * (`hold`), and each is the undo of another:
 *
 * - `reserve` takes the hold, or renews it when `hold` already holds (never past the first reservation's time), and
 *   takes over `replaces`. Refuses (throws an AppError with the shopper's sentence) when it cannot be held; it then
 *   holds nothing new. Holding nothing (a pricing without a code, a balance of $0.00) lets go of what the keys held.
 *   Resolves false when it holds nothing under `hold` afterwards (then `rename` has nothing of it to move). Undone by
 *   `release`.
 * - `rename` moves the hold from its own key to the intent's, once the intent exists. Undone by nothing: both keys
 *   name the same payment.
 * - `release` gives back what `hold` held (a cancelled, replaced or refused payment). Safe to call twice and on a key
 *   that holds nothing.
 * - `settle` turns the hold into the order's, in the order's transaction `trx` (`settlement.hold` is the payment's
 *   id, `pricing` says how much of what was used): at most once, whichever of page, webhook and sweep gets there. It
 *   returns what the order must be flagged with, or throws to refuse a `strict` order. Undone only by a refund.
 */
export interface HoldAdapter {
  /** For logs and errors: "stock", "promotion", "store credit". */
  readonly kind: string;
  reserve(request: HoldRequest): Promise<boolean>;
  rename(from: string, to: string): Promise<void>;
  release(hold: string, actor: string): Promise<void>;
  settle(trx: Writer, settlement: HoldSettlement): Promise<OrderFlags | null>;
}

/**
 * The one hold of a checkout payment, over its adapters (stock first, then the code's use, then balances). Reserving
 * goes in that order and stops at the first refusal, letting go of everything this step would have held, so no kind
 * is ever held without the others.
 */
export function createCheckoutHold(adapters: readonly HoldAdapter[]) {
  const hold = {
    /**
     * Takes or renews every kind for the payment; on a refusal nothing is held under `hold` or `replaces`. Resolves
     * with the kinds that hold something under `hold`, for `rename`.
     */
    async reserve(request: HoldRequest): Promise<HeldKinds> {
      const held = new Set<string>();
      try {
        for (const adapter of adapters) if (await adapter.reserve(request)) held.add(adapter.kind);
        return held;
      } catch (error) {
        for (const key of [request.hold, ...request.replaces]) await hold.release(key);
        throw error;
      }
    },

    /**
     * Takes or renews every kind for a payment that already holds under `request.hold` (the same intent again, or
     * before its intent changes): a refusal leaves what it held to its expiry or to the intent's own end.
     */
    async renew(request: HoldRequest): Promise<void> {
      for (const adapter of adapters) await adapter.reserve(request);
    },

    /**
     * The hold taken under its own key becomes the intent's: every kind, or only the kinds `held` names (what
     * `reserve` said holds something under `from`; the others have nothing to move).
     */
    async rename(from: string, to: string, held?: HeldKinds): Promise<void> {
      for (const adapter of adapters) if (!held || held.has(adapter.kind)) await adapter.rename(from, to);
    },

    /** Gives back every kind `key` held; `actor` names who let go in the stock's ledger ("shop", "processor"). */
    async release(key: string, actor = "shop"): Promise<void> {
      for (const adapter of adapters) await adapter.release(key, actor);
    },

    /** Every kind becomes the order's, in its transaction; the flags to record on the order, one per adapter. */
    async settle(trx: Writer, settlement: HoldSettlement): Promise<OrderFlags[]> {
      const flags: OrderFlags[] = [];
      for (const adapter of adapters) {
        const flagged = await adapter.settle(trx, settlement);
        if (flagged) flags.push(flagged);
      }
      return flags;
    },
  };
  return hold;
}

export type CheckoutHold = ReturnType<typeof createCheckoutHold>;
