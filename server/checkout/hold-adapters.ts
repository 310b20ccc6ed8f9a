// The hold's adapters for stock and a promotion code's use: how each kind is reserved, renamed, released and settled
// under the payment's key.

import { AppError } from "#shared/errors";
import type { InventoryService } from "#server/inventory/inventory-service";
import type { Logger } from "#server/logger";
import type { PromotionService } from "#server/promotions/promotion-service";
import type { HoldAdapter } from "./checkout-hold";

/** The payment's stock (server/inventory writes the reservations): held per variant, sold when the order is written. */
export function stockHold(inventory: InventoryService): HoldAdapter {
  return {
    kind: "stock",
    // Short stock refuses with its sentence; the same key again keeps the time it was first given.
    reserve: ({ hold, replaces, stock, holder, isNew }) => inventory.reserve(hold, stock, { replaces, holder, isNew }),
    rename: (from, to) => inventory.renameHold(from, to),
    // Back for others (and any variant this brings back in stock sends its alerts).
    release: (hold, actor) => inventory.release(hold, actor),
    async settle(trx, { hold, orderId, items, strict }) {
      // The hold becomes a sale: once, whichever of page, webhook and sweep gets here.
      const { oversold } = await inventory.sell(
        trx,
        hold,
        items.map((item) => ({ variantId: item.variantId ?? item.productId, quantity: item.quantity })),
        orderId,
      );
      // Nobody paid for a $0.00 order: short stock refuses it (the transaction is undone) rather than overselling.
      if (oversold && strict)
        throw new AppError("STOCK_SHORT", "Some of your items have just sold out. Please check your basket.");
      return oversold ? { oversold: true } : null;
    },
  };
}

/** The payment's use of its promotion code (server/promotions writes the uses): held, then redeemed by the order. */
export function promotionUseHold(promotions: PromotionService, logger: Logger): HoldAdapter {
  return {
    kind: "promotion",
    async reserve({ hold, replaces, pricing, customer, holder, settlesAtOnce, isNew }) {
      // Redeemed strictly in the order's own transaction right after: a used-up code refuses the order there.
      if (settlesAtOnce) return false;
      // A pricing without a code holds none: whatever these keys held of a code before is let go (a new key held none).
      if (pricing.promotion) {
        await promotions.reserve(hold, pricing.promotion.code, pricing.itemsCents, customer, { replaces, holder });
        return true;
      }
      for (const key of isNew ? replaces : [hold, ...replaces]) await promotions.release(key);
      return false;
    },
    rename: (from, to) => promotions.renameHold(from, to),
    release: (hold) => promotions.release(hold),
    async settle(trx, { hold, orderId, pricing, customer, strict }) {
      const promotion = pricing?.promotion ?? null;
      if (!promotion || !customer) return null;
      // The use becomes a redemption here, once; over the limit, a paid order is kept as paid (and flagged).
      const { overLimit } = await promotions.redeem(trx, { hold, orderId, code: promotion.code, customer, strict });
      if (!overLimit) return null;
      logger.error(
        { orderId, code: promotion.code },
        "checkout: an order was paid after its code's use lapsed and the code's uses had gone: over the limit",
      );
      return { promotionOverLimit: true };
    },
  };
}

/**
 * The kinds every checkout payment holds today, in the order they are reserved: stock first (the commonest refusal),
 * then the code's use. A balance (store credit, gift card) comes after them: one more adapter in this list.
 */
export function defaultHoldAdapters({
  inventory,
  promotions,
  logger,
}: {
  inventory: InventoryService;
  promotions: PromotionService;
  logger: Logger;
}): HoldAdapter[] {
  return [stockHold(inventory), promotionUseHold(promotions, logger)];
}
