// What the steps of checkout share: their dependencies, the intent's metadata keys, and how a delivery is described to
// the processor.

import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import type { DeliveryAddress } from "#shared/address";
import type { BasketView } from "#shared/basket";
import type { OrderItem, StoredOrderItem } from "#shared/orders";
import type { PriceBreakdown } from "#shared/pricing";
import type { AddressService, CheckoutAddress } from "#server/addresses/address-service";
import { ownerColumn, type BasketOwner } from "#server/basket/basket-owner";
import type { BasketService } from "#server/basket/basket-service";
import type { DB, Writer } from "#server/db/client";
import type { CheckoutHold } from "./checkout-hold";
import type { CheckoutBalances } from "#server/balances/checkout-balances";
import type { InventoryService, StockLine } from "#server/inventory/inventory-service";
import type { Logger } from "#server/logger";
import type { OrderService } from "#server/orders/order-service";
import type { PaymentProvider } from "#server/payments/payment-provider";
import type { Quote } from "#server/pricing/quote";
import type { PromotionService } from "#server/promotions/promotion-service";
import type { ShippingService } from "#server/shipping/shipping-service";
import { sha256Base64url } from "#server/tokens";

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

/**
 * What else a newly recorded order writes, in the order's own transaction (its confirmation e-mail, its gift cards),
 * with the items it was written with (no need to read them back).
 */
export type OrderRecordedHook = (trx: Writer, orderId: string, items: readonly StoredOrderItem[]) => Promise<unknown>;

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
  /**
   * What a payment holds while it is paid for (server/checkout/checkout-hold.ts); by default its stock and its code's
   * use. A new kind of hold is one more adapter here.
   */
  holds?: CheckoutHold;
  /** The balances (store credit, gift cards) applied to a checkout: priced after the code, the card pays the rest. */
  balances?: Pick<CheckoutBalances, "forCheckout" | "priceWithBalances">;
  onOrderRecorded?: OrderRecordedHook;
}

/** What every step of the checkout workflow works with: the dependencies, the one quote, the one hold. */
export interface CheckoutContext extends Omit<CheckoutDependencies, "holds"> {
  holds: CheckoutHold;
  quote: Quote;
  /** Which processor (and mode) this shop runs on: an intent another one made is never reused or handed out. */
  processor: PaymentProvider["identity"]["processor"];
  livemode: boolean;
}

/** Where an order goes and where its receipt goes: the checkout address, and a guest's e-mail or the account's. */
export interface Delivery {
  address: DeliveryAddress;
  contactEmail: string | null;
}

export function deliveryFor(checkoutAddress: CheckoutAddress | null, accountEmail: string | null): Delivery | null {
  if (!checkoutAddress) return null;
  return { address: checkoutAddress.address, contactEmail: accountEmail ?? checkoutAddress.contactEmail };
}

/** 409 with the total the server now makes it: the page shows it and re-prices. */
export function totalChanged(totalCents: number): AppError {
  return new AppError(
    "TOTAL_MISMATCH",
    `The total has changed to ${formatCents(totalCents)}. Please check it and pay again.`,
    { details: { totalCents } },
  );
}

/** What a basket's lines hold of each variant, named for a refusal ("Only 1 left of Classic Tee (M, Black)"). */
export function toStockLines(view: BasketView): StockLine[] {
  return view.items.map((line) => ({
    variantId: line.variant.id,
    quantity: line.quantity,
    title: line.product.title,
    optionValues: line.variant.options.map((option) => option.value),
    tracksStock: line.stock.tracksStock,
  }));
}

/** The $0.00 order's one-time token: this owner, this basket revision, this snapshot. Another basket, another token. */
export function freeOrderToken(owner: BasketOwner, revision: number, fingerprint: string): string {
  const { column, value } = ownerColumn(owner);
  return sha256Base64url(JSON.stringify(["free-order", column, value, revision, fingerprint]));
}

/** What the intent is for: the basket's lines, where they go and where the receipt goes. */
export function snapshot(
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
export function metadataFor(owner: BasketOwner, fingerprint: string, pricing: PriceBreakdown): Record<string, string> {
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

/** A payment row as recording reads it: what was paid for, by whom, and where it goes. */
export interface PaymentToRecord {
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
  /** The signed-in account's store credit open to this checkout ("Use store credit ($x)"); null for a guest. */
  storeCreditCents: number | null;
}

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
