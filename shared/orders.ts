// Orders as pages, e-mails and the console read them: items and their amounts, the payment and fulfilment statuses with
// their labels, and the rules of which change each allows.

import type { DeliveryAddress } from "./address";
import { lineAmountCents, type PriceBreakdown } from "./pricing";

/** A line as it was priced and paid for: a snapshot, so later catalogue changes never rewrite an order. */
export interface OrderItem {
  productId: string;
  /** The variant paid for; absent on lines from before variants (their product's default variant, whose id is the product's). */
  variantId?: string;
  /** The product's title when paid. */
  title: string;
  /** The variant's option values with their option's name when paid; absent or [] for a product without options. */
  options?: { name: string; value: string }[];
  sku?: string | null;
  /** The price of one. */
  priceCents: number;
  quantity: number;
  /** The product's stars when paid; null: it had none. */
  rating: number | null;
  image: { src: string; width: number; height: number };
  /** A gift card's recipient, sender, message and "Send on" day, as its page asked; absent on other lines. */
  giftCard?: { recipientEmail: string; senderName: string; message: string; sendOn: string | null };
}

/** "Size: M, Colour: Black": how order pages, e-mails and the console name a line's variant ("" without options). */
export function describeItemOptions(item: Pick<OrderItem, "options">): string {
  return (item.options ?? []).map((option) => `${option.name}: ${option.value}`).join(", ");
}

/** A line as orders and payments stored it: those written before quantities existed hold one item each. */
export type StoredOrderItem = Omit<OrderItem, "quantity"> & { quantity?: number };

/**
 * What each of an order's lines came to, as the order stored it: the amounts of its price breakdown (the pricing
 * function's, server/pricing/quote.ts), line by line. Orders kept from before the breakdown was stored were priced at
 * price x quantity. Pages, e-mails, the console and exports read line amounts here, never by multiplying.
 */
export function orderLineAmounts(
  items: readonly { priceCents: number; quantity?: number }[],
  pricing: Pick<PriceBreakdown, "lines"> | null | undefined,
): number[] {
  if (pricing && pricing.lines.length === items.length) return pricing.lines.map((line) => line.amountCents);
  return items.map((item) => lineAmountCents(item.priceCents, item.quantity ?? 1));
}

/** Reads a stored line: no quantity means one. */
export function readOrderItem(item: StoredOrderItem): OrderItem {
  return { ...item, quantity: item.quantity ?? 1 };
}

/**
 * A step of an order's history: what happened (paid, shipped, cancelled, refunded in part or in full, disputed). What
 * an order is now is its two statuses below; its `status` is the last step, kept for the history and the e-mails.
 */
export type OrderStatus = "paid" | "shipped" | "cancelled" | "refunded" | "partially_refunded" | "disputed";

/** Where the order's money is: taken, given back in part or whole, or disputed by the card's holder. */
export type PaymentStatus = "paid" | "partially_refunded" | "refunded" | "disputed";

/** Where the order's goods are: not yet sent, sent, sent and (some) back, or never to be sent. */
export type FulfilmentStatus = "unfulfilled" | "shipped" | "partially_returned" | "returned" | "cancelled";

export const PAYMENT_STATUSES = [
  "paid",
  "partially_refunded",
  "refunded",
  "disputed",
] as const satisfies readonly PaymentStatus[];
export const FULFILMENT_STATUSES = [
  "unfulfilled",
  "shipped",
  "partially_returned",
  "returned",
  "cancelled",
] as const satisfies readonly FulfilmentStatus[];

export const PAYMENT_STATUS_LABELS: Record<PaymentStatus, string> = {
  paid: "Paid",
  partially_refunded: "Partially refunded",
  refunded: "Refunded",
  disputed: "Disputed",
};

export const FULFILMENT_STATUS_LABELS: Record<FulfilmentStatus, string> = {
  unfulfilled: "Unfulfilled",
  shipped: "Shipped",
  partially_returned: "Partially returned",
  returned: "Returned",
  cancelled: "Cancelled",
};

/** An order's two statuses, apart: money and goods. */
export interface OrderState {
  paymentStatus: PaymentStatus;
  fulfilmentStatus: FulfilmentStatus;
}

/**
 * The payment status money given back leaves: refunded once all of what was paid is, partially before. A disputed
 * payment (given as `current`) stays disputed until all of it is given back.
 */
export function paymentStatusAfterRefund(
  amountCents: number,
  refundedCents: number,
  current?: PaymentStatus,
): PaymentStatus {
  if (refundedCents >= amountCents) return "refunded";
  return current === "disputed" ? "disputed" : "partially_refunded";
}

/** Whether the card's holder can dispute the payment: not once all of it is given back, nor twice. */
export function canBeDisputed(paymentStatus: PaymentStatus): boolean {
  return paymentStatus !== "refunded" && paymentStatus !== "disputed";
}

/** The goods have left the shop: sent, and perhaps (some) back since. */
export const SENT_FULFILMENT_STATUSES = [
  "shipped",
  "partially_returned",
  "returned",
] as const satisfies readonly FulfilmentStatus[];

/**
 * The fulfilment status units coming back leave: "Returned" once every unit sold is back, "Partially returned" while
 * some are. Only sent goods come back: an order not sent (or cancelled), or with nothing back yet, keeps its status.
 * Returns received are what count; a refund, with or without restocking, moves the payment status alone.
 */
export function fulfilmentStatusAfterReturn(
  current: FulfilmentStatus,
  soldUnits: number,
  returnedUnits: number,
): FulfilmentStatus {
  if (!(SENT_FULFILMENT_STATUSES as readonly FulfilmentStatus[]).includes(current) || returnedUnits <= 0)
    return current;
  return returnedUnits >= soldUnits ? "returned" : "partially_returned";
}

/**
 * What makes an account's order count for a review (its last step): paid and not taken back. A cancelled or wholly
 * refunded order, and one under dispute, does not (the shopper has not kept and paid for the product); a partly
 * refunded one does.
 */
export const REVIEWABLE_ORDER_STATUSES = [
  "paid",
  "shipped",
  "partially_refunded",
] as const satisfies readonly OrderStatus[];

/** Whether an order in this status lets its account review what it holds. */
export function isReviewableOrderStatus(status: string): boolean {
  return (REVIEWABLE_ORDER_STATUSES as readonly string[]).includes(status);
}

/**
 * What may be done to an order, by its two statuses: the one definition the order service enforces, the console's
 * service checks before calling the processor, and the console's order page reads to offer its buttons. An order is
 * to be shipped while unfulfilled, whatever its refunds, until all of its money went back; it can be cancelled until
 * it is sent; its money can be refunded until all of it is. Anything else is refused with a sentence saying why.
 */
export const ORDER_ACTIONS = {
  ship: (state) => state.fulfilmentStatus === "unfulfilled" && state.paymentStatus !== "refunded",
  cancel: (state) => state.fulfilmentStatus === "unfulfilled",
  refund: (state) => state.paymentStatus !== "refunded",
} as const satisfies Record<string, (state: OrderState) => boolean>;

export type OrderAction = keyof typeof ORDER_ACTIONS;

/** Whether an order may be shipped, cancelled or refunded. */
export function orderAllows(state: OrderState, action: OrderAction): boolean {
  return ORDER_ACTIONS[action](state);
}

/**
 * "To ship": every order not yet sent nor cancelled, whatever its refunds (the console's Paid filter and the
 * dashboard's count). The SQL condition the list, its export and the dashboard share.
 */
export const TO_SHIP: FulfilmentStatus = "unfulfilled";

/**
 * The console's status filters: "Paid" is every order to ship; the others are one payment or fulfilment status.
 * The keys are the list's `status` values.
 */
export const ORDER_LIST_FILTERS = {
  paid: { label: "Paid", fulfilment: TO_SHIP },
  shipped: { label: "Shipped", fulfilment: "shipped" },
  partially_returned: { label: "Partially returned", fulfilment: "partially_returned" },
  returned: { label: "Returned", fulfilment: "returned" },
  cancelled: { label: "Cancelled", fulfilment: "cancelled" },
  partially_refunded: { label: "Partially refunded", payment: "partially_refunded" },
  refunded: { label: "Refunded", payment: "refunded" },
  disputed: { label: "Disputed", payment: "disputed" },
} as const satisfies Record<string, { label: string; fulfilment?: FulfilmentStatus; payment?: PaymentStatus }>;

export type OrderListFilter = keyof typeof ORDER_LIST_FILTERS;

/** The console's status filters by their keys, as a list (the orders list's `status` values). */
export const ORDER_LIST_FILTER_KEYS = Object.keys(ORDER_LIST_FILTERS) as [OrderListFilter, ...OrderListFilter[]];

export const ORDER_STATUS_LABELS: Record<OrderStatus, string> = {
  paid: "Paid",
  shipped: "Shipped",
  cancelled: "Cancelled",
  refunded: "Refunded",
  partially_refunded: "Partially refunded",
  disputed: "Disputed",
};

/** An order as the orders page shows it. */
export interface OrderView {
  /** The payment intent's id: internal (the console shows it); shoppers read the number. */
  id: string;
  /** SF-YYMM-XXXX. */
  number: string;
  amountCents: number;
  /** ISO 8601: when it was paid (what orders are dated and listed by). */
  createdAt: string;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  fulfilmentStatus: FulfilmentStatus;
  refundedCents: number;
  items: OrderItem[];
  /** What each line came to, in `items`' order, as the order stored it (orderLineAmounts). */
  lineAmountsCents: number[];
}

/** One step of an order's history, oldest first. */
export interface OrderHistoryEntry {
  status: OrderStatus;
  /** ISO 8601. */
  at: string;
  carrier: string | null;
  trackingNumber: string | null;
  amountCents: number | null;
  note: string | null;
}

/** An order's own page: everything the shopper paid for and what happened since. */
export interface OrderDetail extends OrderView {
  currency: string;
  contactEmail: string | null;
  deliveryAddress: DeliveryAddress | null;
  card: { brand: string; last4: string } | null;
  /** A $0.00 order: a promotion code covered all of it, and no card was charged. */
  isPaidByPromotion: boolean;
  /** A replacement order (sent at $0.00): the number of the return it replaces; null for any other order. */
  replacesReturnNumber: string | null;
  history: OrderHistoryEntry[];
  /** What the total is made of, as charged; null for orders from before delivery options and tax. */
  pricing: PriceBreakdown | null;
}

/** How an order nobody paid by card for reads (a promotion code covered all of it). */
export const PAYMENT_BY_PROMOTION = "None (promotion)";

/** "Visa", "Mastercard", "American Express": the brand as a shopper reads it, from Stripe's card.brand. */
export function cardBrandName(brand: string): string {
  const names: Record<string, string> = {
    visa: "Visa",
    mastercard: "Mastercard",
    amex: "American Express",
    discover: "Discover",
    diners: "Diners Club",
    jcb: "JCB",
    unionpay: "UnionPay",
    cartes_bancaires: "Cartes Bancaires",
  };
  return names[brand] ?? "Card";
}

/** SF-YYMM-XXXX: the shape of an order number (the XXXX from an alphabet without 0, 1, I, L, O). */
export const ORDER_NUMBER_PATTERN = /^SF-\d{4}-[2-9A-HJKMNP-Z]{4}$/;

export const ORDERS_PAGE_SIZE = 20;
