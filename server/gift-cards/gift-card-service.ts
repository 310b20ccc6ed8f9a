// Gift cards: sold cards issued and e-mailed once (in the order's transaction or on their day), the number lookup with
// its limit, and the console's issue, disable and adjust.

import { sql, type Transaction } from "kysely";
import { AppError } from "#shared/errors";
import { GIFT_CARD_REFUSALS, type GiftCardRefusal } from "#shared/gift-cards";
import { formatOrderDate } from "#shared/dates";
import type { StoredOrderItem } from "#shared/orders";
import { tooManyRequests, type RateLimiter, type RateLimitRule } from "#server/rate-limits/rate-limiter";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { addDays, dateInZone, startOfDate } from "#server/calendar/shop-calendar";
import { accountRefusal, type BalanceAccount, type BalanceLedger } from "#server/balances/balance-ledger";
import type { DB, Writer } from "#server/db/client";
import type { Database } from "#server/db/schema";
import type { EmailOutbox } from "#server/email/email-outbox";
import {
  formatGiftCardCode,
  giftCardCodeHash,
  giftCardLastFour,
  newGiftCardCode,
  normaliseGiftCardCode,
} from "./gift-card-code";

const HOUR = 60 * 60 * 1000;

/** Wrong gift card numbers allowed per hour, per session and per client address: a shopper mistypes, a guesser can't. */
export interface GiftCardNumberLimits {
  perSession: number;
  perAddress: number;
}

export const DEFAULT_GIFT_CARD_NUMBER_LIMITS: GiftCardNumberLimits = { perSession: 10, perAddress: 10 };

/** Who typed a number: their session (when they have one) and their client address. */
export interface NumberTyper {
  sessionId: string | null;
  ip: string;
}

/** A card a typed number found, open to pay with. */
export interface UsableGiftCard {
  accountId: string;
  lastFour: string;
  /** What it can pay now (what payments in progress hold is not). */
  availableCents: number;
  /** Only cards issued by hand may expire. */
  expiresAt: Date | null;
}

export type GiftCardLookup =
  | { ok: true; card: UsableGiftCard }
  | { ok: false; refusal: GiftCardRefusal; message: string; lastFour: string | null };

export type GiftCardStatus = "active" | "used" | "expired" | "disabled";

export const GIFT_CARD_STATUS_LABELS: Record<GiftCardStatus, string> = {
  active: "Active",
  used: "Used up",
  expired: "Expired",
  disabled: "Disabled",
};

/** A card as the console lists it: never its number, which nobody but its e-mail ever had. */
export interface GiftCardRow {
  id: string;
  lastFour: string;
  initialCents: number;
  /** Owed on it: available plus what payments in progress hold. */
  balanceCents: number;
  issuedAt: Date;
  expiresAt: Date | null;
  status: GiftCardStatus;
  /** The order that bought it; null for a card issued by hand. */
  orderId: string | null;
  recipient: string | null;
  note: string | null;
}

export interface GiftCardDependencies {
  db: DB;
  ledger: BalanceLedger;
  rateLimiter: RateLimiter;
  email: Pick<EmailOutbox, "enqueueGiftCard">;
  /** The shop's time zone: "Send on" days and hand-issued expiry days are its days. */
  timeZone: (writer?: Writer) => Promise<string>;
  limits?: GiftCardNumberLimits;
  now?: () => Date;
}

type Trx = Transaction<Database>;

/**
 * Gift cards: looking one up by its number (with the wrong-number limit), issuing, disabling and adjusting them from
 * the console, and the cards orders buy, each issued and e-mailed once (gift_card_sales, this module's table). The
 * money on a card is the balance ledger's (server/balances/): a card is a balance account of kind gift_card.
 */
export function createGiftCardService({
  db,
  ledger,
  rateLimiter,
  email,
  timeZone,
  limits = DEFAULT_GIFT_CARD_NUMBER_LIMITS,
  now = () => new Date(),
}: GiftCardDependencies) {
  const rules = {
    session: { name: "gift-card-number:session", limit: limits.perSession, windowMs: HOUR },
    address: { name: "gift-card-number:ip", limit: limits.perAddress, windowMs: HOUR },
  } satisfies Record<string, RateLimitRule>;

  /**
   * Counts the attempt in advance (so ten typed at once are ten), refuses with 429 past the limit, and gives the count
   * back when the number is a real card's: only wrong numbers use up the allowance.
   */
  async function lookUp(typed: string, typer: NumberTyper): Promise<GiftCardLookup> {
    const hits = [
      ...(typer.sessionId ? [{ rule: rules.session, subject: typer.sessionId }] : []),
      { rule: rules.address, subject: typer.ip },
    ];
    const results = await rateLimiter.hitAll(hits);
    const refused = results.filter((result) => !result.allowed);
    if (refused.length > 0)
      throw tooManyRequests(
        "TOO_MANY_ATTEMPTS",
        "Too many gift card numbers tried.",
        Math.max(...refused.map((result) => result.retryAfterMs)),
      );
    const code = normaliseGiftCardCode(typed);
    const account = code ? await ledger.findGiftCard(giftCardCodeHash(code)) : null;
    if (!account) return { ok: false, refusal: "invalid", message: GIFT_CARD_REFUSALS.invalid, lastFour: null };
    for (const hit of hits) await rateLimiter.refund(hit.rule, hit.subject);
    return judge(account);
  }

  async function judge(account: BalanceAccount): Promise<GiftCardLookup> {
    const lastFour = account.lastFour ?? "";
    const refusal = accountRefusal(account, now());
    if (refusal) return { ok: false, refusal, message: GIFT_CARD_REFUSALS[refusal], lastFour };
    const { availableCents } = await ledger.figures(account.id);
    if (availableCents <= 0) return { ok: false, refusal: "empty", message: GIFT_CARD_REFUSALS.empty, lastFour };
    return { ok: true, card: { accountId: account.id, lastFour, availableCents, expiresAt: account.expiresAt } };
  }

  /** A new card: its account, its value, and the e-mail that carries its number, in the caller's transaction. */
  async function issueCard(
    trx: Trx,
    card: {
      dedupeKey: string;
      amountCents: number;
      recipient: string;
      senderName: string | null;
      message: string;
      expiresAt: Date | null;
      expiresOn: string | null;
      note: string | null;
      orderId: string | null;
      actor: string | null;
    },
  ): Promise<BalanceAccount> {
    const code = newGiftCardCode();
    const account = await ledger.openGiftCard(trx, {
      codeHash: giftCardCodeHash(code),
      lastFour: giftCardLastFour(code),
      expiresAt: card.expiresAt,
      note: card.note,
    });
    await ledger.issue(trx, account.id, card.amountCents, {
      actor: card.actor,
      note: card.note,
      orderId: card.orderId,
    });
    await email.enqueueGiftCard(trx, {
      dedupeKey: card.dedupeKey,
      recipient: card.recipient,
      groupedCode: formatGiftCardCode(code),
      amountCents: card.amountCents,
      senderName: card.senderName,
      message: card.message,
      expiresOn: card.expiresOn,
    });
    return account;
  }

  /** Issues and e-mails one sold card, unless it already was (or was refunded first): under the sale's row lock. */
  async function deliverSale(trx: Trx, saleId: string): Promise<boolean> {
    const sale = await trx
      .selectFrom("gift_card_sales")
      .selectAll()
      .where("id", "=", saleId)
      .where("delivered_at", "is", null)
      .where("cancelled_at", "is", null)
      .forUpdate()
      .executeTakeFirst();
    if (!sale) return false;
    const account = await issueCard(trx, {
      dedupeKey: sale.id,
      amountCents: sale.amount_cents,
      recipient: sale.recipient_email,
      senderName: sale.sender_name,
      message: sale.message,
      // Sold gift cards never expire.
      expiresAt: null,
      expiresOn: null,
      note: null,
      orderId: sale.order_id,
      actor: null,
    });
    await trx
      .updateTable("gift_card_sales")
      .set({ account_id: account.id, delivered_at: sql<Date>`now()` })
      .where("id", "=", sale.id)
      .execute();
    return true;
  }

  /** Today in the shop's calendar: "Send on" days are its days. */
  async function today(writer?: Writer): Promise<string> {
    return dateInZone(now(), await timeZone(writer));
  }

  function statusOf(row: {
    disabled_at: Date | null;
    expires_at: Date | null;
    balance_cents: number;
    held_cents: number;
  }): GiftCardStatus {
    if (row.disabled_at) return "disabled";
    if (row.expires_at && row.expires_at.getTime() <= now().getTime()) return "expired";
    return row.balance_cents + row.held_cents > 0 ? "active" : "used";
  }

  async function cardForConsole(accountId: string): Promise<BalanceAccount> {
    const account = await ledger.findAccount(accountId);
    if (!account || account.kind !== "gift_card") throw new AppError("NOT_FOUND", "There is no such gift card.");
    return account;
  }

  return {
    /** A typed number at /payment: the card to apply, or the sentence saying why not. Wrong numbers are limited. */
    lookUp,

    /**
     * /gift-cards/balance: what a number has left (and, for a card issued by hand, until when), under the same limit.
     * A card used up is not an error here: it has $0.00.
     */
    async balanceOf(
      typed: string,
      typer: NumberTyper,
    ): Promise<
      { ok: true; lastFour: string; availableCents: number; expiresAt: Date | null } | { ok: false; message: string }
    > {
      const found = await lookUp(typed, typer);
      if (found.ok) return { ok: true, ...found.card };
      if (found.refusal === "empty")
        return { ok: true, lastFour: found.lastFour ?? "", availableCents: 0, expiresAt: null };
      return { ok: false, message: found.message };
    },

    /** The console's list, newest first. */
    async list(limit = 200): Promise<GiftCardRow[]> {
      const rows = await db
        .selectFrom("balance_accounts as a")
        .leftJoin("gift_card_sales as s", "s.account_id", "a.id")
        .select([
          "a.id",
          "a.last_four",
          "a.balance_cents",
          "a.expires_at",
          "a.disabled_at",
          "a.created_at",
          "a.note",
          "s.order_id",
          "s.recipient_email",
          sql<number>`(select coalesce(sum(amount_cents), 0)::int from balance_entries e where e.account_id = a.id and e.kind = 'issue')`.as(
            "initial_cents",
          ),
          // Holds are negative rows not yet closed by a release (or a spend): owed, though not available.
          sql<number>`(select coalesce(-sum(h.amount_cents), 0)::int from balance_entries h where h.account_id = a.id and h.kind = 'hold' and not exists (select 1 from balance_entries r where r.hold_entry_id = h.id))`.as(
            "held_cents",
          ),
          sql<
            string | null
          >`(select e.note from balance_entries e where e.account_id = a.id and e.kind = 'issue' and e.actor is not null order by e.id limit 1)`.as(
            "issue_note",
          ),
        ])
        .where("a.kind", "=", "gift_card")
        .orderBy("a.created_at", "desc")
        .orderBy("a.id")
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        lastFour: row.last_four ?? "",
        initialCents: row.initial_cents,
        balanceCents: row.balance_cents + row.held_cents,
        issuedAt: row.created_at,
        expiresAt: row.expires_at,
        status: statusOf(row),
        orderId: row.order_id,
        recipient: row.recipient_email,
        note: row.note ?? row.issue_note,
      }));
    },

    /** "Issue gift card": a card by hand, e-mailed to `email`; it expires at the end of `expiresOn` when given. */
    async issueByHand(
      input: { email: string; amountCents: number; note: string; expiresOn: string | null },
      actor: Actor,
    ): Promise<{ id: string; lastFour: string }> {
      const zone = await timeZone();
      if (input.expiresOn && input.expiresOn <= dateInZone(now(), zone))
        throw new AppError("INVALID_INPUT", "Choose an expiry date after today.", { details: { field: "expiresOn" } });
      const expiresAt = input.expiresOn ? startOfDate(addDays(input.expiresOn, 1), zone) : null;
      return db.transaction().execute(async (trx) => {
        const account = await issueCard(trx, {
          dedupeKey: `issued:${crypto.randomUUID()}`,
          amountCents: input.amountCents,
          recipient: input.email,
          senderName: null,
          message: "",
          expiresAt,
          expiresOn: input.expiresOn ? formatOrderDate(startOfDate(input.expiresOn, "UTC"), "UTC") : null,
          note: input.note || null,
          orderId: null,
          actor: actor.id,
        });
        await recordAudit(trx, actor, {
          action: "gift-card.issue",
          subject: account.id,
          before: null,
          after: {
            lastFour: account.lastFour,
            amountCents: input.amountCents,
            email: input.email,
            note: input.note,
            expiresOn: input.expiresOn,
          },
        });
        return { id: account.id, lastFour: account.lastFour ?? "" };
      });
    },

    /** "Disable": no more payments with it; what is on it stays owed until adjusted. */
    async disable(accountId: string, actor: Actor): Promise<string> {
      const account = await cardForConsole(accountId);
      await db.transaction().execute(async (trx) => {
        await ledger.disable(trx, account.id);
        await recordAudit(trx, actor, {
          action: "gift-card.disable",
          subject: account.id,
          before: { status: "active" },
          after: { status: "disabled" },
        });
      });
      return account.lastFour ?? "";
    },

    /** "Adjust": adds (or, no more than is available, takes away) with the operator's reason. */
    async adjust(accountId: string, amountCents: number, note: string, actor: Actor): Promise<string> {
      const account = await cardForConsole(accountId);
      await db.transaction().execute(async (trx) => {
        await ledger.adjust(trx, { accountId: account.id, amountCents, actor: actor.id ?? actor.email, note });
        await recordAudit(trx, actor, {
          action: "gift-card.adjust",
          subject: account.id,
          before: null,
          after: { amountCents, note },
        });
      });
      return account.lastFour ?? "";
    },

    /**
     * In the paid order's own transaction: one sale per gift card it bought (once, whoever records the order), and
     * those without a later "Send on" day issued and e-mailed now.
     */
    async recordSales(writer: Writer, orderId: string, items?: readonly StoredOrderItem[]): Promise<number> {
      // Always called inside the order's transaction (the checkout's hook), which hands over the items it wrote.
      const trx = writer as Trx;
      const order = items
        ? { items }
        : await trx.selectFrom("orders").select(["items"]).where("id", "=", orderId).executeTakeFirst();
      if (!order) return 0;
      const sales = order.items.flatMap((item, lineIndex) =>
        item.giftCard
          ? Array.from({ length: item.quantity ?? 1 }, (_, unit) => ({
              order_id: orderId,
              line_index: lineIndex,
              sequence: unit + 1,
              amount_cents: item.priceCents,
              recipient_email: item.giftCard!.recipientEmail,
              sender_name: item.giftCard!.senderName,
              message: item.giftCard!.message,
              send_on: item.giftCard!.sendOn,
            }))
          : [],
      );
      if (sales.length === 0) return 0;
      await trx
        .insertInto("gift_card_sales")
        .values(sales)
        .onConflict((conflict) => conflict.columns(["order_id", "line_index", "sequence"]).doNothing())
        .execute();
      const day = await today(trx);
      const due = await trx
        .selectFrom("gift_card_sales")
        .select("id")
        .where("order_id", "=", orderId)
        .where("delivered_at", "is", null)
        .where("cancelled_at", "is", null)
        .where((where) => where.or([where("send_on", "is", null), where("send_on", "<=", day)]))
        .orderBy("line_index")
        .orderBy("sequence")
        .execute();
      let delivered = 0;
      for (const sale of due) if (await deliverSale(trx, sale.id)) delivered++;
      return delivered;
    },

    /** The sweep (server/background/every.ts): cards whose "Send on" day has come, each in its own transaction. */
    async deliverDue(): Promise<{ sent: number; skipped: number }> {
      const day = await today();
      const due = await db
        .selectFrom("gift_card_sales")
        .select("id")
        .where("delivered_at", "is", null)
        .where("cancelled_at", "is", null)
        .where("send_on", "<=", day)
        .orderBy("send_on")
        .limit(200)
        .execute();
      let sent = 0;
      for (const sale of due) if (await db.transaction().execute((trx) => deliverSale(trx, sale.id))) sent++;
      return { sent, skipped: due.length - sent };
    },

    /** What the buyer's order page says of each gift card line: "Sent to {e-mail}", or the day it will be. */
    async deliveriesOf(
      orderId: string,
      executor: Writer = db,
    ): Promise<
      { lineIndex: number; recipient: string; sendOn: string | null; deliveredAt: Date | null; cancelled: boolean }[]
    > {
      const rows = await executor
        .selectFrom("gift_card_sales")
        .select(["line_index", "recipient_email", "send_on", "delivered_at", "cancelled_at"])
        .where("order_id", "=", orderId)
        .orderBy("line_index")
        .orderBy("sequence")
        .execute();
      return rows.map((row) => ({
        lineIndex: row.line_index,
        recipient: row.recipient_email,
        sendOn: row.send_on,
        deliveredAt: row.delivered_at,
        cancelled: row.cancelled_at !== null,
      }));
    },

    /**
     * In a refund's transaction: `units` gift cards of the order's line `lineIndex` given back. Each one not yet sent is
     * cancelled (its whole price comes back); each one sent is disabled and what is left on it comes back, expired off
     * the card so it is not owed twice. Returns the cents the refund may give back for them.
     */
    async takeBack(trx: Trx, orderId: string, lineIndex: number, units: number): Promise<number> {
      const sales = await trx
        .selectFrom("gift_card_sales")
        .selectAll()
        .where("order_id", "=", orderId)
        .where("line_index", "=", lineIndex)
        .where("cancelled_at", "is", null)
        .orderBy("sequence", "desc")
        .forUpdate()
        .execute();
      let refundable = 0;
      let taken = 0;
      for (const sale of sales) {
        if (taken >= units) break;
        if (!sale.account_id) {
          await trx
            .updateTable("gift_card_sales")
            .set({ cancelled_at: sql<Date>`now()` })
            .where("id", "=", sale.id)
            .execute();
          refundable += sale.amount_cents;
          taken++;
          continue;
        }
        const account = await ledger.findAccount(sale.account_id, trx);
        if (!account || account.disabledAt) continue;
        await ledger.disable(trx, sale.account_id);
        refundable += await ledger.expire(trx, sale.account_id, "Refunded");
        taken++;
      }
      return refundable;
    },

    /**
     * An order's gift cards for a refund by amount alone: what its gift card lines cost, what refunds have given back of
     * them, and each card not yet taken back, in the order a refund takes them (takeBack's: by line, the last unit
     * first) with what taking it back would give back now (a card not yet sent: its price; else what is left on it).
     */
    async outstandingOf(
      orderId: string,
      executor: Writer = db,
    ): Promise<{
      chargedCents: number;
      refundedCents: number;
      cards: { lineIndex: number; refundableCents: number }[];
    }> {
      const [sales, refunded] = await Promise.all([
        executor
          .selectFrom("gift_card_sales as s")
          .leftJoin("balance_accounts as a", "a.id", "s.account_id")
          .select([
            "s.line_index",
            "s.amount_cents",
            "s.account_id",
            "s.cancelled_at",
            "a.balance_cents",
            "a.disabled_at",
          ])
          .where("s.order_id", "=", orderId)
          .orderBy("s.line_index")
          .orderBy("s.sequence", "desc")
          .execute(),
        executor
          .selectFrom("order_refund_lines")
          .select(["line_index", sql<number>`sum(amount_cents)::int`.as("cents")])
          .where("order_id", "=", orderId)
          .where("line_index", "in", (select) =>
            select.selectFrom("gift_card_sales").select("line_index").where("order_id", "=", orderId),
          )
          .groupBy("line_index")
          .execute(),
      ]);
      return {
        chargedCents: sales.reduce((sum, sale) => sum + sale.amount_cents, 0),
        refundedCents: refunded.reduce((sum, row) => sum + row.cents, 0),
        cards: sales
          .filter((sale) => sale.cancelled_at === null && (sale.account_id === null || sale.disabled_at === null))
          .map((sale) => ({
            lineIndex: sale.line_index,
            refundableCents: sale.account_id === null ? sale.amount_cents : Math.max(0, sale.balance_cents ?? 0),
          })),
      };
    },

    /** What refunding `units` of the line would give back now, without doing it (the console's form and its check). */
    async refundableOf(orderId: string, lineIndex: number, units: number, executor: Writer = db): Promise<number> {
      const sales = await executor
        .selectFrom("gift_card_sales as s")
        .leftJoin("balance_accounts as a", "a.id", "s.account_id")
        .select(["s.amount_cents", "s.account_id", "a.balance_cents", "a.disabled_at"])
        .where("s.order_id", "=", orderId)
        .where("s.line_index", "=", lineIndex)
        .where("s.cancelled_at", "is", null)
        .orderBy("s.sequence", "desc")
        .execute();
      let refundable = 0;
      let taken = 0;
      for (const sale of sales) {
        if (taken >= units) break;
        if (!sale.account_id) refundable += sale.amount_cents;
        else if (!sale.disabled_at) refundable += sale.balance_cents ?? 0;
        else continue;
        taken++;
      }
      return refundable;
    },
  };
}

export type GiftCardService = ReturnType<typeof createGiftCardService>;
