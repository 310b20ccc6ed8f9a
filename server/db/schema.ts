import type { ColumnType, Generated, JSONColumnType } from "kysely";
import type { StoredOrderItem } from "../../shared/orders";

/**
 * The database as Kysely sees it. One interface per table; migrations in ./migrations create them. The built-in
 * test processor's `processor_*` tables may share the database; they are its own, and the shop never reads them.
 */
export interface Database {
  products: ProductTable;
  sessions: SessionTable;
  baskets: BasketTable;
  basket_items: BasketItemTable;
  users: UserTable;
  rate_limits: RateLimitTable;
  checkout_payments: CheckoutPaymentTable;
  orders: OrderTable;
  processed_webhook_events: ProcessedWebhookEventTable;
}

export interface ProductTable {
  /** Catalogue ids are opaque strings: some exceed a 32-bit integer. */
  id: string;
  title: string;
  /** Integer cents (USD). */
  price_cents: number;
  /** Whole stars, 1 to 5. */
  rating: number;
  /** Path of the product's picture under /images. */
  image: string;
  image_width: number;
  image_height: number;
  /** Order on the home page. */
  position: number;
  created_at: Generated<Date>;
}

export interface SessionTable {
  id: Generated<string>;
  /** SHA-256 of the cookie's token, base64url. The token itself is never stored. */
  token_hash: string;
  /** The signed-in account; null for a guest. */
  user_id: string | null;
  created_at: Generated<Date>;
  last_seen_at: Generated<Date>;
  expires_at: Date;
}

export interface BasketTable {
  id: Generated<string>;
  /** The owner: a guest session, or (exclusively) an account. */
  session_id: string | null;
  user_id: string | null;
  /** Counts up with every change, so a page can tell whether its data shows a given change. */
  revision: Generated<number>;
  /** Set while a re-pricing is on its way to the processor: the row does not yet say what the intent holds. */
  pending_fingerprint: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** One line of a basket: a product (at most one line each) and how many of it. */
export interface BasketItemTable {
  /** Identity column: the order lines were first added in. */
  id: Generated<string>;
  basket_id: string;
  product_id: string;
  /** 1 to BASKET_LINE_LIMIT (a check constraint holds it). */
  quantity: Generated<number>;
  /** The catalogue's price when the line was added (or last changed): a different price now is news to the shopper. */
  added_price_cents: number;
  added_at: Generated<Date>;
}

export interface UserTable {
  id: Generated<string>;
  /** Trimmed and lower-cased. */
  email: string;
  /** argon2id PHC string; the password itself is never stored or logged. */
  password_hash: string;
  created_at: Generated<Date>;
}

export interface RateLimitTable {
  key: string;
  window_started_at: Date;
  attempts: number;
}

/** jsonb written as a JSON string, read back parsed. Lines written before quantities existed have none: they mean 1. */
type ItemsColumn = JSONColumnType<StoredOrderItem[], string, string>;

export interface CheckoutPaymentTable {
  /** The processor's payment intent id ("pi_…"). */
  payment_intent_id: string;
  user_id: string | null;
  session_id: string | null;
  client_secret: string;
  amount_cents: number;
  currency: string;
  /** Identifies the basket the intent was priced for; a different basket needs a different amount. */
  basket_fingerprint: string;
  items: ItemsColumn;
  /** "needs_review": paid, but not for this snapshot (amount or fingerprint differ); never fulfilled, refunded by the operator. */
  status: "open" | "replaced" | "paid" | "needs_review";
  /** Counts re-pricings: a row write is a compare-and-set on the revision it read. */
  revision: Generated<number>;
  /** Set while a re-pricing is on its way to the processor: the row does not yet say what the intent holds. */
  pending_fingerprint: string | null;
  /** Set with needs_review: what the processor says was paid, and why it did not match. */
  paid_amount_cents: number | null;
  review_reason: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface OrderTable {
  /** The payment intent id: one order per intent, enforced by this key. */
  id: string;
  user_id: string | null;
  session_id: string | null;
  amount_cents: number;
  currency: string;
  items: ItemsColumn;
  /** Taken from the payment intent. */
  created_at: ColumnType<Date, Date, never>;
  recorded_at: Generated<Date>;
}

export interface ProcessedWebhookEventTable {
  id: string;
  type: string;
  processed_at: Generated<Date>;
}
