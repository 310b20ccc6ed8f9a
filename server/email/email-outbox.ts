// The e-mail outbox: every e-mail enqueued in the transaction of the fact it tells, rendered once, and listed for the
// console (a password link's token never shown).

import { sql, type Selectable } from "kysely";
import type { BasketView } from "#shared/basket";
import { readOrderItem } from "#shared/orders";
import type { DB, Writer } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";
import type { EmailOutboxTable, EmailStatus } from "#server/db/schema";
import { keysetCursor } from "#server/db/keyset-cursor";
import type { ShopSettings, ShopSettingsService } from "#server/settings/shop-settings-service";
import { signedOrderPath } from "#server/orders/order-access";
import type { RenderedEmail } from "./render";
import type { EmailShop } from "./templates/email-layout";
import {
  accountDeletedEmail,
  newConsoleSignInEmail,
  passwordChangedEmail,
  passwordResetEmail,
  staffInvitationEmail,
  verificationEmail,
  welcomeEmail,
} from "./templates/account-emails";
import { basketReminderEmail } from "./templates/basket-emails";
import {
  heldPaymentRefundedEmail,
  orderConfirmationEmail,
  orderRefundedEmail,
  orderShippedEmail,
  type OrderEmailData,
} from "./templates/order-emails";
import { reviewRequestEmail } from "./templates/review-emails";
import { backInStockEmail, stockAlertConfirmationEmail } from "./templates/stock-alert-emails";
import { giftCardEmail } from "./templates/gift-card-emails";

export type { Writer };

export type EmailKind =
  | "basket-reminder"
  | "review-request"
  | "stock-alert-confirmation"
  | "back-in-stock"
  | "order-confirmation"
  | "order-shipped"
  | "order-refunded"
  | "payment-refunded"
  | "welcome"
  | "email-verification"
  | "password-reset"
  | "password-changed"
  | "account-deleted"
  | "new-console-sign-in"
  | "staff-invitation"
  | "return-requested"
  | "return-approved"
  | "return-declined"
  | "return-cancelled"
  | "gift-card";

/** The e-mails whose link sets a password: the console shows them without the link's token. */
const KINDS_WITH_PASSWORD_LINKS: ReadonlySet<string> = new Set<EmailKind>(["password-reset", "staff-invitation"]);
/** A gift card's number is the card: the console shows its e-mail with the number hidden, as it hides those links. */
const GIFT_CARD_NUMBER = /\b[2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} ([2-9A-HJ-NP-Z]{4})\b/g;

export interface OutboxEntry {
  id: string;
  messageId: string;
  kind: string;
  recipient: string;
  subject: string;
  status: EmailStatus;
  attempts: number;
  lastError: string | null;
  /** ISO 8601. */
  createdAt: string;
  nextAttemptAt: string;
  sentAt: string | null;
}

/** One e-mail as it was written (and sent): its bodies with its state. */
export interface OutboxEmail extends OutboxEntry {
  textBody: string;
  htmlBody: string;
}

export interface OutboxPage {
  entries: OutboxEntry[];
  /** Pass as `before` for the next (older) page; null on the last. */
  next: string | null;
}

export interface OutboxBacklog {
  /** E-mails waiting to be sent (including those being sent right now). */
  pending: number;
  /** Seconds since the oldest of them was written; 0 when none wait. */
  oldestPendingAgeSeconds: number;
}

export interface EmailOutboxOptions {
  /** The shop's public origin for links in e-mails: PUBLIC_URL, else http://localhost:PORT. */
  publicOrigin: () => URL;
  /** The shop's settings: its name, logo and postal address head and close every e-mail. */
  settings: Pick<ShopSettingsService, "readWith" | "column" | "fromColumn">;
}

/** The columns of an outbox row the console lists (its bodies are read one e-mail at a time). */
const ENTRY_COLUMNS = [
  "id",
  "message_id",
  "kind",
  "recipient",
  "subject",
  "status",
  "attempts",
  "last_error",
  "created_at",
  "next_attempt_at",
  "sent_at",
] as const;

/** An outbox row as the console lists it (without its bodies). */
function toOutboxEntry(row: Pick<Selectable<EmailOutboxTable>, (typeof ENTRY_COLUMNS)[number]>): OutboxEntry {
  return {
    id: row.id,
    messageId: row.message_id,
    kind: row.kind,
    recipient: row.recipient,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    nextAttemptAt: row.next_attempt_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
  };
}

/** Pages of the outbox: (created_at, uuid) of the previous page's last e-mail. */
const outboxCursor = keysetCursor(/^[0-9a-f-]{36}$/);

/** An outbox row as `enqueue` writes it. */
type OutboxRow = {
  id: string;
  messageId: string;
  dedupeKey: string | null;
  kind: EmailKind;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  headers: string | null;
};

/**
 * The transactional outbox's writing side: every enqueue takes the transaction that writes the fact (the order,
 * the reset token), renders the e-mail there and then and inserts its row, so the e-mail exists exactly when the fact
 * does. Delivery is email-sender.ts's. The read side (list, backlog) is for the operator console and metrics.
 */
export function createEmailOutbox(db: DB, { publicOrigin, settings }: EmailOutboxOptions) {
  const link = (path: string) => new URL(path, publicOrigin()).toString();
  const enqueued = new Set<() => void>();
  /** An order as its e-mails show it, with the shop as the e-mail heads it, in one statement built once. */
  const readOrder = preparedStatement(db, ["orderId"], (db, values: { orderId: string }) =>
    db
      .selectFrom("orders")
      .leftJoin("users", "users.id", "orders.user_id")
      .select([
        "orders.id",
        "orders.number",
        "orders.amount_cents",
        "orders.items",
        "orders.pricing",
        "orders.delivery_address",
        "orders.contact_email",
        "orders.user_id",
        "orders.access_key",
        "users.email",
        settings.column().as("shop_settings"),
      ])
      .where("orders.id", "=", values.orderId),
  );
  /** An e-mail's row, built and compiled once: every order writes one. Once per dedupe key. */
  const insertEmail = preparedStatement(
    db,
    ["id", "messageId", "dedupeKey", "kind", "recipient", "subject", "text", "html", "headers"],
    (db, email: OutboxRow) =>
      db
        .insertInto("email_outbox")
        .values({
          id: email.id,
          message_id: email.messageId,
          dedupe_key: email.dedupeKey,
          kind: email.kind,
          recipient: email.recipient,
          subject: email.subject,
          text_body: email.text,
          html_body: email.html,
          headers: email.headers,
        })
        .onConflict((conflict) => conflict.column("dedupe_key").doNothing())
        .returning("id"),
  );
  /**
   * The shop as the e-mail names it, read in the e-mail's own transaction (on PGlite's one connection a read beside
   * it would wait for it); the logo by its absolute address on the shop.
   */
  async function shop(writer: Writer): Promise<EmailShop> {
    return shopOf(await settings.readWith(writer));
  }

  function shopOf({ name, logo, postalAddress }: Pick<ShopSettings, "name" | "logo" | "postalAddress">): EmailShop {
    return {
      url: link("/"),
      name,
      logo: logo ? { url: link(logo.src), width: logo.width, height: logo.height } : null,
      postalAddress,
    };
  }

  async function enqueue(
    writer: Writer,
    kind: EmailKind,
    recipient: string,
    rendered: RenderedEmail,
    dedupeKey: string | null = null,
    headers: Record<string, string> | null = null,
  ): Promise<boolean> {
    const id = crypto.randomUUID();
    const [inserted] = (
      await insertEmail(
        {
          id,
          // Fixed now, so every attempt (and a repeat after a crash mid-send) carries the same Message-ID.
          messageId: `<${id}@${publicOrigin().hostname}>`,
          dedupeKey,
          kind,
          recipient,
          subject: rendered.subject,
          text: rendered.text,
          html: rendered.html,
          headers: headers ? JSON.stringify(headers) : null,
        },
        writer,
      )
    ).rows;
    if (inserted) for (const listener of enqueued) listener();
    return inserted !== undefined;
  }

  /** An order as its e-mails show it, and where they go: the receipt e-mail it was paid with, else its account's. */
  async function orderFor(writer: Writer, orderId: string) {
    const [order] = (await readOrder({ orderId }, writer)).rows;
    const email = order?.contact_email ?? order?.email;
    if (!order || !email) return null;
    return {
      email,
      data: {
        shop: shopOf(settings.fromColumn(order.shop_settings)),
        // A guest's order opens from the e-mail on any device: its signed link (an account's asks to sign in).
        orderUrl: link(
          order.user_id
            ? `/orders/${encodeURIComponent(order.number)}`
            : signedOrderPath({ number: order.number, accessKey: order.access_key }),
        ),
        orderNumber: order.number,
        items: order.items.map(readOrderItem),
        totalCents: order.amount_cents,
        pricing: order.pricing,
        deliveryAddress: order.delivery_address,
      },
    };
  }

  return {
    /** Calls `listener` after each e-mail this instance writes (the sender's wake); returns how to stop. */
    onEnqueued(listener: () => void): () => void {
      enqueued.add(listener);
      return () => void enqueued.delete(listener);
    },

    /**
     * The confirmation of a recorded order, written in the transaction that recorded it; at most once per order
     * whoever calls (the page, the webhook, the start-up sweep). False when the order has no account to write to.
     */
    async enqueueOrderConfirmation(writer: Writer, orderId: string): Promise<boolean> {
      const order = await orderFor(writer, orderId);
      if (!order) return false;
      return enqueue(
        writer,
        "order-confirmation",
        order.email,
        orderConfirmationEmail(order.data),
        `order-confirmation:${orderId}`,
      );
    },

    /** "Your order has shipped", with the carrier and tracking number; once per order and tracking number. */
    async enqueueOrderShipped(
      writer: Writer,
      { orderId, carrier, trackingNumber }: { orderId: string; carrier: string; trackingNumber: string },
    ): Promise<boolean> {
      const order = await orderFor(writer, orderId);
      if (!order) return false;
      return enqueue(
        writer,
        "order-shipped",
        order.email,
        orderShippedEmail({ ...order.data, carrier, trackingNumber }),
        `order-shipped:${orderId}:${trackingNumber}`,
      );
    },

    /**
     * An e-mail about an order (a return's: requested, approved, declined; a withdrawal's acknowledgement), rendered
     * from the order as its e-mails show it, to its receipt address; once per `dedupeKey`. False when it names nobody.
     */
    async enqueueOrderEmail(
      writer: Writer,
      {
        orderId,
        kind,
        dedupeKey,
        render,
      }: {
        orderId: string;
        kind:
          | Extract<EmailKind, "return-requested" | "return-approved" | "return-declined" | "return-cancelled">
          | (string & {});
        dedupeKey: string;
        render: (order: OrderEmailData) => RenderedEmail;
      },
    ): Promise<boolean> {
      const order = await orderFor(writer, orderId);
      if (!order) return false;
      return enqueue(writer, kind as EmailKind, order.email, render(order.data), dedupeKey);
    },

    /** A refund notice for an amount; `refundId` (the processor's) makes it once per refund. */
    async enqueueOrderRefunded(
      writer: Writer,
      {
        orderId,
        refundId,
        amountCents,
        lines,
        includesShipping,
      }: {
        orderId: string;
        refundId: string;
        amountCents: number;
        /** The units given back, by the items' titles; none for a refund by amount alone. */
        lines?: { title: string; quantity: number }[];
        includesShipping?: boolean;
      },
    ): Promise<boolean> {
      const order = await orderFor(writer, orderId);
      if (!order) return false;
      return enqueue(
        writer,
        "order-refunded",
        order.email,
        orderRefundedEmail({
          shop: order.data.shop,
          orderUrl: order.data.orderUrl,
          orderNumber: order.data.orderNumber,
          refundCents: amountCents,
          lines,
          includesShipping,
        }),
        `order-refunded:${refundId}`,
      );
    },

    /**
     * A payment held for review, refunded in full from the console: to its receipt address, or its account's. Once
     * per payment. False when it names nobody to write to (an account deleted since).
     */
    async enqueueHeldPaymentRefunded(
      writer: Writer,
      { paymentIntentId, amountCents }: { paymentIntentId: string; amountCents: number },
    ): Promise<boolean> {
      const payment = await writer
        .selectFrom("checkout_payments")
        .leftJoin("users", "users.id", "checkout_payments.user_id")
        .select(["checkout_payments.contact_email", "users.email"])
        .where("checkout_payments.payment_intent_id", "=", paymentIntentId)
        .executeTakeFirst();
      const email = payment?.contact_email ?? payment?.email;
      if (!email) return false;
      return enqueue(
        writer,
        "payment-refunded",
        email,
        heldPaymentRefundedEmail({ shop: await shop(writer), ordersUrl: link("/orders"), refundCents: amountCents }),
        `payment-refunded:${paymentIntentId}`,
      );
    },

    /**
     * "How was your {product}?", once per order, with a link to each product's review form and a one-click
     * unsubscribe (RFC 8058: List-Unsubscribe with an https link, List-Unsubscribe-Post) that stops review requests.
     */
    async enqueueReviewRequest(
      writer: Writer,
      {
        orderId,
        recipient,
        products,
        unsubscribeToken,
      }: { orderId: string; recipient: string; products: { id: string; title: string }[]; unsubscribeToken: string },
    ): Promise<boolean> {
      const unsubscribeUrl = link(`/unsubscribe?token=${unsubscribeToken}`);
      const rendered = reviewRequestEmail({
        shop: await shop(writer),
        unsubscribeUrl,
        products: products.map((product) => ({
          title: product.title,
          reviewUrl: link(`/write-a-review/${encodeURIComponent(product.id)}`),
        })),
      });
      return enqueue(writer, "review-request", recipient, rendered, `review-request:${orderId}`, {
        "List-Unsubscribe": `<${unsubscribeUrl}>`,
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      });
    },

    /**
     * "You left something in your basket" (or, a day later, "Your basket is still waiting"), once per reminder, with
     * the link back to the basket and a one-click unsubscribe from basket reminders.
     */
    async enqueueBasketReminder(
      writer: Writer,
      {
        reminderId,
        recipient,
        step,
        basket,
        restoreToken,
        unsubscribeToken,
        promotionCode,
      }: {
        reminderId: string;
        recipient: string;
        step: 1 | 2;
        basket: BasketView;
        restoreToken: string;
        unsubscribeToken: string;
        promotionCode: string | null;
      },
    ): Promise<boolean> {
      const unsubscribeUrl = link(`/unsubscribe?token=${unsubscribeToken}`);
      const rendered = basketReminderEmail({
        shop: await shop(writer),
        restoreUrl: link(`/basket/restore?token=${restoreToken}`),
        unsubscribeUrl,
        basket,
        step,
        promotionCode,
      });
      return enqueue(writer, "basket-reminder", recipient, rendered, `basket-reminder:${reminderId}`, {
        "List-Unsubscribe": `<${unsubscribeUrl}>`,
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      });
    },

    /** "Confirm your alert", with the single-use link that confirms a stock alert. */
    enqueueStockAlertConfirmation: async (
      writer: Writer,
      {
        recipient,
        productTitle,
        token,
        unsubscribeToken,
      }: { recipient: string; productTitle: string; token: string; unsubscribeToken: string },
    ) => {
      const unsubscribeUrl = link(`/unsubscribe?token=${unsubscribeToken}`);
      return enqueue(
        writer,
        "stock-alert-confirmation",
        recipient,
        stockAlertConfirmationEmail({
          shop: await shop(writer),
          confirmUrl: link(`/stock-alerts/confirm?token=${token}`),
          productTitle,
          unsubscribeUrl,
        }),
        null,
        { "List-Unsubscribe": `<${unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
      );
    },

    /**
     * The back-in-stock e-mail of one alert (once per alert, by its id), with a link to the variant (`product.path`,
     * the product page with that choice) and a one-click unsubscribe from stock alerts.
     */
    async enqueueBackInStock(
      writer: Writer,
      {
        alertId,
        recipient,
        product,
        unsubscribeToken,
      }: { alertId: string; recipient: string; product: { title: string; path: string }; unsubscribeToken: string },
    ): Promise<boolean> {
      const unsubscribeUrl = link(`/unsubscribe?token=${unsubscribeToken}`);
      const rendered = backInStockEmail({
        shop: await shop(writer),
        productUrl: link(product.path),
        productTitle: product.title,
        unsubscribeUrl,
      });
      return enqueue(writer, "back-in-stock", recipient, rendered, `back-in-stock:${alertId}`, {
        "List-Unsubscribe": `<${unsubscribeUrl}>`,
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      });
    },

    /** A gift card's e-mail to its recipient, once per card (`dedupeKey`: the sale or the card), with its number. */
    async enqueueGiftCard(
      writer: Writer,
      card: {
        dedupeKey: string;
        recipient: string;
        groupedCode: string;
        amountCents: number;
        senderName: string | null;
        message: string;
        expiresOn: string | null;
      },
    ): Promise<boolean> {
      const rendered = giftCardEmail({
        shop: await shop(writer),
        groupedCode: card.groupedCode,
        amountCents: card.amountCents,
        senderName: card.senderName,
        message: card.message,
        expiresOn: card.expiresOn,
        shopUrl: link("/"),
        balanceUrl: link("/gift-cards/balance"),
      });
      return enqueue(writer, "gift-card", card.recipient, rendered, `gift-card:${card.dedupeKey}`);
    },

    enqueueWelcome: async (writer: Writer, email: string, token: string) =>
      enqueue(
        writer,
        "welcome",
        email,
        welcomeEmail({ shop: await shop(writer), verifyUrl: link(`/verify-email?token=${token}`) }),
      ),

    enqueueVerification: async (writer: Writer, email: string, token: string) =>
      enqueue(
        writer,
        "email-verification",
        email,
        verificationEmail({ shop: await shop(writer), verifyUrl: link(`/verify-email?token=${token}`) }),
      ),

    enqueuePasswordReset: async (writer: Writer, email: string, token: string) =>
      enqueue(
        writer,
        "password-reset",
        email,
        passwordResetEmail({ shop: await shop(writer), resetUrl: link(`/reset-password?token=${token}`) }),
      ),

    enqueueStaffInvitation: async (
      writer: Writer,
      email: string,
      token: string,
      invite: { role: string; invitedBy: string },
    ) =>
      enqueue(
        writer,
        "staff-invitation",
        email,
        staffInvitationEmail({
          shop: await shop(writer),
          invitationUrl: link(`/staff-invitation?token=${token}`),
          ...invite,
        }),
      ),

    enqueuePasswordChanged: async (writer: Writer, email: string) =>
      enqueue(
        writer,
        "password-changed",
        email,
        passwordChangedEmail({ shop: await shop(writer), forgotUrl: link("/forgot-password") }),
      ),

    enqueueAccountDeleted: async (writer: Writer, email: string) =>
      enqueue(writer, "account-deleted", email, accountDeletedEmail({ shop: await shop(writer) })),

    enqueueNewConsoleSignIn: async (writer: Writer, email: string, facts: { at: Date; ip: string; browser: string }) =>
      enqueue(
        writer,
        "new-console-sign-in",
        email,
        newConsoleSignInEmail({ shop: await shop(writer), accountUrl: link("/account"), ...facts }),
      ),

    /**
     * On account deletion: what the outbox holds for that address loses it. Unsent e-mails are cancelled; every row
     * keeps its kind and dates (the shop's record that it wrote) with recipient and content replaced.
     */
    async forgetRecipient(writer: Writer, email: string): Promise<void> {
      await writer
        .updateTable("email_outbox")
        .set({
          recipient: "deleted account",
          subject: "deleted account",
          text_body: "",
          html_body: "",
          status: sql`case when status = 'pending' then 'cancelled' else status end`,
        })
        .where("recipient", "=", email)
        .execute();
    },

    /** One e-mail of the outbox, bodies included, for the console; null when there is none with that id. */
    async getOutboxEmail(id: string): Promise<OutboxEmail | null> {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
      const row = await db.selectFrom("email_outbox").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) return null;
      // A link that sets an account's password is the account: nobody reading the outbox may follow it (Staff with
      // Reports and exports read it, and an invitation may be an Owner's).
      const hide = (body: string) =>
        KINDS_WITH_PASSWORD_LINKS.has(row.kind)
          ? body.replace(/token=[A-Za-z0-9_-]{43}/g, "token=(hidden)")
          : row.kind === "gift-card"
            ? body.replace(GIFT_CARD_NUMBER, "•••• •••• •••• $1")
            : body;
      return { ...toOutboxEntry(row), textBody: hide(row.text_body), htmlBody: hide(row.html_body) };
    },

    /** The operator console's list: newest first, optionally one state, a page at a time (keyset on created_at, id). */
    async listOutbox({
      status,
      before,
      limit = 50,
    }: { status?: EmailStatus; before?: string | null; limit?: number } = {}): Promise<OutboxPage> {
      const pageSize = Math.min(Math.max(1, Math.trunc(limit)), 200);
      let query = db.selectFrom("email_outbox").select(ENTRY_COLUMNS);
      if (status) query = query.where("status", "=", status);
      const page = await outboxCursor.readPage(query, {
        after: before,
        pageSize,
        order: { at: "created_at", id: "id", idType: "uuid" },
        keyOf: (row) => ({ at: row.created_at, id: row.id }),
      });
      return {
        entries: page.rows.map(toOutboxEntry),
        next: page.next,
      };
    },

    /** For metrics: how many e-mails wait, and how long the oldest has waited. */
    async backlog(): Promise<OutboxBacklog> {
      const row = await db
        .selectFrom("email_outbox")
        .select([
          sql<number>`count(*)::int`.as("pending"),
          sql<number | null>`extract(epoch from now() - min(created_at))`.as("age"),
        ])
        .where("status", "=", "pending")
        .executeTakeFirstOrThrow();
      return { pending: row.pending, oldestPendingAgeSeconds: Math.max(0, Math.floor(Number(row.age ?? 0))) };
    },
  };
}

export type EmailOutbox = ReturnType<typeof createEmailOutbox>;
