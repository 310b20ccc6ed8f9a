/** A line as it was priced and paid for: a snapshot, so later catalogue changes never rewrite an order. */
export interface OrderItem {
  productId: string;
  title: string;
  /** The price of one. */
  priceCents: number;
  quantity: number;
  rating: number;
  image: { src: string; width: number; height: number };
}

/** A line as orders and payments stored it: those written before quantities existed hold one item each. */
export type StoredOrderItem = Omit<OrderItem, "quantity"> & { quantity?: number };

/** Reads a stored line: no quantity means one. */
export function readOrderItem(item: StoredOrderItem): OrderItem {
  return { ...item, quantity: item.quantity ?? 1 };
}

/** An order as the orders page shows it. */
export interface OrderView {
  id: string;
  amountCents: number;
  /** ISO 8601, from the payment intent's creation time. */
  createdAt: string;
  items: OrderItem[];
}

export const ORDERS_PAGE_SIZE = 20;
