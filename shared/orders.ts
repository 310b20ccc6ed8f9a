/** An item as it was priced and paid for: a snapshot, so later catalogue changes never rewrite an order. */
export interface OrderItem {
  productId: string;
  title: string;
  priceCents: number;
  rating: number;
  image: { src: string; width: number; height: number };
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
