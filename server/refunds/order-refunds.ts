/**
 * An order's refunds, the console's and the processor's: each worked out by the refund function (server/pricing),
 * made by the processor, and recorded once by its processor id, by the call or the webhook, with its lines and the
 * units it puts back in stock (docs/refunds.md).
 */

import { sql } from "kysely";
import { z } from "zod";
import type { DB, Writer } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { Logger } from "#server/logger";
import type { InventoryService } from "#server/inventory/inventory-service";
import type { OrderService } from "#server/orders/order-service";
import type { PaymentProvider, ProviderRefund } from "#server/payments/payment-provider";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { balanceLabel } from "#shared/pricing";
import { chargedOrder, quoteRefund, splitRefund, type RefundQuote } from "#server/pricing/refund";
import type { BalanceLedger } from "#server/balances/balance-ledger";
import type { GiftCardService } from "#server/gift-cards/gift-card-service";
import { sha256Base64url } from "#server/tokens";
import { shareByLargestRemainder } from "#server/pricing/price-order";
import { ORDER_NUMBER_PATTERN, orderAllows, readOrderItem, type OrderItem } from "#shared/orders";
import { recordAudit, type Actor } from "#server/audit/audit-log";

/** Metadata on a refund the console asks for, so whichever path records it (call or webhook) knows who asked. */
const OPERATOR_ID_KEY = "shop_operator_id";
const OPERATOR_EMAIL_KEY = "shop_operator_email";
const CONSOLE_KEY_KEY = "shop_request_key";
/**
 * The refund's lines ([line index, quantity, amount, units to restock], JSON), its shipping and its reason, carried by
 * the refund so whichever path records it (call or webhook) records them and restocks. Stripe keeps values of up to
 * 500 characters, so the lines are cut into numbered keys.
 */
const LINES_KEY = "shop_lines";
const SHIPPING_KEY = "shop_shipping";
const REASON_KEY = "shop_reason";
/** What of the refund goes back to balances (store credit, gift cards) rather than the card: [[account id, cents]]. */
const BALANCES_KEY = "shop_balances";
const METADATA_VALUE_LIMIT = 500;
/** Metadata keys a refund's lines may take (Stripe allows 50 keys in all). */
const LINE_KEYS_LIMIT = 40;
export const ALREADY_REFUNDED = "This order has already been refunded.";
/** A refund by amount finds nothing left but what was spent from the gift cards the order bought. */
const SPENT_ON_CARDS = "What is left of this order was spent from the gift cards it bought.";

/** Who a refund made outside the console (the processor's dashboard) is recorded as. */
const PROCESSOR_ACTOR: Actor = { id: null, email: "processor" };

/** A line of a refund request: units of an order line (by its index), and whether they go back in stock. */
export interface RefundLineRequest {
  index: number;
  quantity: number;
  restock: boolean;
}

/**
 * The console's refund: lines (with shipping when included) worked out by the refund function, or, without lines, an
 * amount alone (goodwill, never restocked). `amountCents` null: all the lines come to (or all that is left); else
 * an amount up to that.
 */
export interface RefundRequest {
  idempotencyKey: string;
  amountCents: number | null;
  lines?: RefundLineRequest[];
  includeShipping?: boolean;
  reason?: string | null;
  /** "Refund to store credit": all of it to the shopper's store credit, nothing to the card. */
  destination?: "card" | "store_credit";
}

/** A refund's line as its metadata carries it to whichever path records it. */
interface CarriedLine {
  index: number;
  quantity: number;
  amountCents: number;
  /** Units to put back in stock (at most what was sold and not yet restocked when recorded). */
  restock: number;
}

/** The refund's lines, shipping and reason as processor metadata. */
function refundMetadata(
  lines: CarriedLine[],
  shippingCents: number,
  reason: string | null,
  balances: readonly { accountId: string; amountCents: number }[] = [],
): Record<string, string> {
  const metadata: Record<string, string> = {};
  if (balances.length > 0)
    metadata[BALANCES_KEY] = JSON.stringify(balances.map((balance) => [balance.accountId, balance.amountCents]));
  const json = JSON.stringify(lines.map((line) => [line.index, line.quantity, line.amountCents, line.restock]));
  if (lines.length > 0) {
    const chunks = Math.ceil(json.length / METADATA_VALUE_LIMIT);
    if (chunks > LINE_KEYS_LIMIT) throw new AppError("BAD_REQUEST", "Refund at most 100 lines at a time.");
    for (let chunk = 0; chunk < chunks; chunk++)
      metadata[`${LINES_KEY}_${chunk}`] = json.slice(chunk * METADATA_VALUE_LIMIT, (chunk + 1) * METADATA_VALUE_LIMIT);
  }
  if (shippingCents > 0) metadata[SHIPPING_KEY] = String(shippingCents);
  if (reason) metadata[REASON_KEY] = reason.slice(0, METADATA_VALUE_LIMIT);
  return metadata;
}

const carriedBalancesSchema = z.array(z.tuple([z.uuid(), z.number().int().min(1)])).max(20);

const carriedLinesSchema = z
  .array(z.tuple([z.number().int().min(0), z.number().int().min(0), z.number().int().min(0), z.number().int().min(0)]))
  .max(1000);

/**
 * A refund's lines, shipping and reason from its metadata; a refund made elsewhere (the processor's dashboard), or
 * metadata that does not read, is a refund by amount alone.
 */
function readRefundMetadata(metadata: Record<string, string>, amountCents: number) {
  let json = "";
  for (let chunk = 0; metadata[`${LINES_KEY}_${chunk}`] !== undefined; chunk++)
    json += metadata[`${LINES_KEY}_${chunk}`];
  let lines: CarriedLine[] = [];
  try {
    const parsed = carriedLinesSchema.safeParse(json ? JSON.parse(json) : []);
    if (parsed.success)
      lines = parsed.data.map(([index, quantity, lineCents, restock]) => ({
        index,
        quantity,
        amountCents: lineCents,
        restock,
      }));
  } catch (error) {
    // Metadata that is not JSON (written by hand at the processor): a refund by amount alone, as said above.
    if (!(error instanceof SyntaxError)) throw error;
    lines = [];
  }
  const shipping = Number(metadata[SHIPPING_KEY] ?? 0);
  const shippingCents = Number.isSafeInteger(shipping) && shipping > 0 ? Math.min(shipping, amountCents) : 0;
  const reason = metadata[REASON_KEY]?.trim() || null;
  let balances: { accountId: string; amountCents: number }[] = [];
  try {
    const parsed = carriedBalancesSchema.safeParse(JSON.parse(metadata[BALANCES_KEY] ?? "[]"));
    if (parsed.success) balances = parsed.data.map(([accountId, cents]) => ({ accountId, amountCents: cents }));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return { lines, shippingCents, reason, balances };
}

/**
 * An order's refunds: the console's refund (by lines, with shipping, or by amount), its quote, "Cancel and refund",
 * and each refund the processor made recorded once, by the call or the webhook, with its lines and restock.
 */
export function createOrderRefunds(
  db: DB,
  orders: OrderService,
  provider: PaymentProvider,
  email: EmailOutbox,
  logger: Logger,
  inventory?: InventoryService,
  ledger?: BalanceLedger,
  /** Gift cards an order sold: a refund of one gives back only what is left on it, and disables it. */
  giftCards?: Pick<GiftCardService, "refundableOf" | "takeBack" | "outstandingOf">,
) {
  async function orderByNumber(number: string) {
    const key = number.toUpperCase();
    if (!ORDER_NUMBER_PATTERN.test(key)) return undefined;
    return db.selectFrom("orders").selectAll().where("number", "=", key).executeTakeFirst();
  }

  /**
   * What earlier refunds and cancellations took from an order: units refunded and restocked per line, and whether its
   * shipping went back. Read under the order's row lock by the recording transaction, so two refunds never both count
   * the same units as still there.
   */
  async function refundHistory(executor: DB | Writer, orderId: string, lineCount: number) {
    const [refunded, restocked, shipping] = await Promise.all([
      executor
        .selectFrom("order_refund_lines")
        .select(["line_index", sql<number>`sum(quantity)::int`.as("quantity")])
        .where("order_id", "=", orderId)
        .groupBy("line_index")
        .execute(),
      executor
        .selectFrom("order_restocks")
        .select(["line_index", sql<number>`sum(quantity)::int`.as("quantity")])
        .where("order_id", "=", orderId)
        .groupBy("line_index")
        .execute(),
      executor
        .selectFrom("order_refunds")
        .select(sql<boolean>`coalesce(bool_or(shipping_cents > 0), false)`.as("refunded"))
        .where("order_id", "=", orderId)
        .executeTakeFirstOrThrow(),
    ]);
    const perLine = (rows: { line_index: number; quantity: number }[]) => {
      const counts = Array.from({ length: lineCount }, () => 0);
      for (const row of rows) if (row.line_index < lineCount) counts[row.line_index] = row.quantity;
      return counts;
    };
    return { refunded: perLine(refunded), restocked: perLine(restocked), shippingRefunded: shipping.refunded };
  }

  /**
   * Puts units of an order's lines back in stock, in the caller's transaction (which holds the order's row lock): each
   * line at most what was sold and not yet restocked, all rows together. Answers what went back, per line.
   */
  async function restockLines(
    trx: Writer,
    order: { id: string; items: OrderItem[] },
    wanted: { index: number; quantity: number }[],
    cause: { refundId: string | null; actor: string },
  ): Promise<{ index: number; quantity: number }[]> {
    if (wanted.every((line) => line.quantity <= 0)) return [];
    const { restocked } = await refundHistory(trx, order.id, order.items.length);
    const lines = wanted
      .map((line) => ({
        index: line.index,
        quantity: Math.min(line.quantity, (order.items[line.index]?.quantity ?? 0) - (restocked[line.index] ?? 0)),
      }))
      .filter((line) => line.quantity > 0);
    if (lines.length === 0) return [];
    await trx
      .insertInto("order_restocks")
      .values(
        lines.map((line) => ({
          order_id: order.id,
          line_index: line.index,
          quantity: line.quantity,
          refund_id: cause.refundId,
          cause: cause.refundId ? ("refund" as const) : ("cancel" as const),
          actor: cause.actor,
        })),
      )
      .execute();
    await inventory?.restock(
      trx,
      lines.map((line) => {
        const item = order.items[line.index]!;
        return { variantId: item.variantId ?? item.productId, quantity: line.quantity };
      }),
      order.id,
      cause.actor,
    );
    return lines;
  }

  /**
   * Records a refund the processor made, exactly once per refund id: the row keyed by that id is inserted first,
   * so a second caller (the webhook, the other instance, a repeated form) waits on it and then finds it. The order's
   * refunded amount, status, history, the refund's lines, the shopper's e-mail, the audit entry and the units it asked
   * to put back in stock (and any back-in-stock alerts that brings) are written in the same transaction.
   */
  async function recordProcessorRefund(
    refund: ProviderRefund,
    idempotencyKey: string | null = null,
  ): Promise<"recorded" | "already-recorded" | "not-ours"> {
    if (refund.status !== "succeeded" || !refund.paymentIntentId) return "not-ours";
    const orderId = refund.paymentIntentId;
    const operatorEmail = refund.metadata[OPERATOR_EMAIL_KEY];
    const actor: Actor = operatorEmail
      ? { id: refund.metadata[OPERATOR_ID_KEY] || null, email: operatorEmail }
      : PROCESSOR_ACTOR;
    const carried = readRefundMetadata(refund.metadata, refund.amountCents);
    // The card's part (the processor's refund) and the balances' part together are what the order gets back.
    const balancesCents = carried.balances.reduce((sum, balance) => sum + balance.amountCents, 0);
    const amountCents = refund.amountCents + balancesCents;
    return db.transaction().execute(async (trx) => {
      // The order's row lock first: the refund row's foreign key would otherwise share-lock it, and two refunds of one
      // order each waiting to upgrade that lock would deadlock. Locked, the audit entry's "before" is what this refund
      // changed, and the units restocked so far are what other refunds left.
      const order = await trx
        .selectFrom("orders")
        .select(["number", "status", "payment_status", "refunded_cents", "items"])
        .where("id", "=", orderId)
        .forUpdate()
        .executeTakeFirst();
      if (!order) return "not-ours";
      const items = order.items.map(readOrderItem);
      // Two different refunds of the same unit, made at once, each passed the check before the processor: under the
      // lock, a line's refunded units never exceed what was sold (the money is the processor's to cap).
      const { refunded } = await refundHistory(trx, orderId, items.length);
      const lines = carried.lines
        .filter((line) => line.index < items.length)
        .map((line) => ({
          ...line,
          quantity: Math.min(line.quantity, items[line.index]!.quantity - (refunded[line.index] ?? 0)),
        }));
      const inserted = await trx
        .insertInto("order_refunds")
        .values({
          id: refund.id,
          order_id: orderId,
          amount_cents: amountCents,
          idempotency_key: idempotencyKey ?? refund.metadata[CONSOLE_KEY_KEY] ?? null,
          actor: actor.email,
          shipping_cents: carried.shippingCents,
          reason: carried.reason,
          destination: refund.amountCents === 0 && balancesCents > 0 ? "store_credit" : "card",
        })
        .onConflict((conflict) => conflict.doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!inserted) return "already-recorded";
      // Given back to the balances in this transaction: once, with the refund's row.
      for (const balance of carried.balances) {
        if (!ledger) throw new Error("admin orders: a refund to a balance needs the balance ledger");
        await ledger.giveBack(trx, { ...balance, refundId: refund.id, orderId, actor: actor.email });
      }
      const refundedLines = lines.filter((line) => line.quantity > 0);
      // Gift cards sold by the order: each refunded one is disabled (or, not yet sent, never sent).
      for (const line of refundedLines)
        if (items[line.index]?.giftCard && giftCards) await giftCards.takeBack(trx, orderId, line.index, line.quantity);
      if (refundedLines.length > 0)
        await trx
          .insertInto("order_refund_lines")
          .values(
            refundedLines.map((line) => ({
              refund_id: refund.id,
              order_id: orderId,
              line_index: line.index,
              quantity: line.quantity,
              amount_cents: line.amountCents,
            })),
          )
          .execute();
      const status = await orders.recordRefund(orderId, amountCents, actor.email, undefined, trx);
      const restocked = await restockLines(
        trx,
        { id: orderId, items },
        lines.map((line) => ({ index: line.index, quantity: line.restock })),
        { refundId: refund.id, actor: actor.email },
      );
      await email.enqueueOrderRefunded(trx, {
        orderId,
        refundId: refund.id,
        amountCents,
        lines: refundedLines.map((line) => ({ title: items[line.index]!.title, quantity: line.quantity })),
        includesShipping: carried.shippingCents > 0,
      });
      await recordAudit(trx, actor, {
        action: "order.refund",
        subject: order.number,
        before: { status: order.payment_status, refunded: formatCents(order.refunded_cents) },
        after: {
          status: status === "refunded" ? "refunded" : order.payment_status === "disputed" ? "disputed" : status,
          refunded: formatCents(order.refunded_cents + amountCents),
          refund: refund.id,
          amount: formatCents(amountCents),
          ...(balancesCents > 0 ? { toBalances: formatCents(balancesCents) } : {}),
          lines: refundedLines.map((line) => ({
            item: items[line.index]!.title,
            quantity: line.quantity,
            amount: formatCents(line.amountCents),
          })),
          shipping: formatCents(carried.shippingCents),
          restocked: restocked.map((line) => ({ item: items[line.index]!.title, quantity: line.quantity })),
          ...(carried.reason ? { reason: carried.reason } : {}),
        },
      });
      return "recorded";
    });
  }

  /** What the processor has not yet given back of a payment: its amount less every refund not failed or cancelled. */
  async function leftToRefundAtProcessor(paymentIntentId: string, amountCents: number): Promise<number> {
    const refunds = await provider.listRefunds(paymentIntentId);
    return (
      amountCents -
      refunds
        .filter((made) => made.status !== "failed" && made.status !== "canceled")
        .reduce((sum, made) => sum + made.amountCents, 0)
    );
  }

  /**
   * What a refund of these lines (and shipping) comes to, by the refund function, with each line's units to restock
   * (at most what was sold and not yet restocked); without lines, a refund by amount alone of what is left.
   */
  async function planRefund(order: NonNullable<Awaited<ReturnType<typeof orderByNumber>>>, input: RefundRequest) {
    const items = order.items.map(readOrderItem);
    const history = await refundHistory(db, order.id, items.length);
    const asked = (input.lines ?? []).filter((line) => line.quantity > 0);
    for (const line of asked) {
      const item = items[line.index];
      const left = item ? item.quantity - (history.refunded[line.index] ?? 0) : 0;
      if (!item || line.quantity > left)
        throw new AppError(
          "BAD_REQUEST",
          left > 0
            ? `You can refund at most ${left} of ${item?.title ?? "this line"}.`
            : `${item?.title ?? "This line"} has been refunded already.`,
          { details: { field: `quantity-${line.index}` } },
        );
    }
    const quote: RefundQuote = quoteRefund(
      chargedOrder(items, order.pricing, order.amount_cents),
      {
        refundedCents: order.refunded_cents,
        quantities: history.refunded,
        shippingRefunded: history.shippingRefunded,
      },
      {
        quantities: items.map((_, index) => asked.find((line) => line.index === index)?.quantity ?? 0),
        includeShipping: input.includeShipping === true,
        returnFeeCents: 0,
      },
    );
    // A gift card the order sold gives back only what is left on it (nothing of what its holder has spent).
    let spentOnCardsCents = 0;
    if (giftCards)
      for (const line of quote.lines) {
        if (!items[line.index]?.giftCard) continue;
        const left = await giftCards.refundableOf(order.id, line.index, line.quantity);
        if (left >= line.amountCents) continue;
        spentOnCardsCents += line.amountCents - left;
        quote.totalCents = Math.max(0, quote.totalCents - (line.amountCents - left));
        line.amountCents = left;
      }
    const byLines = asked.length > 0 || quote.shippingCents > 0;
    const restock = asked
      .filter((line) => line.restock)
      .map((line) => ({
        index: line.index,
        quantity: Math.min(line.quantity, items[line.index]!.quantity - (history.restocked[line.index] ?? 0)),
      }));
    const soldCards =
      !byLines && giftCards && items.some((item) => item.giftCard) ? await giftCards.outstandingOf(order.id) : null;
    return {
      items,
      quote,
      byLines,
      restock,
      leftCents: quote.leftCents,
      spentOnCardsCents,
      soldCards: soldCards && {
        // What is left of the order besides its gift cards: a refund by amount gives that back first.
        otherLeftCents: Math.max(0, quote.leftCents - (soldCards.chargedCents - soldCards.refundedCents)),
        cards: soldCards.cards,
      },
    };
  }

  /**
   * The most a refund request may give back: what its lines come to, or without lines all that is left, less what the
   * holders of gift cards the order sold have spent of them (a refund by amount gives back the rest of the order
   * first, then takes back its gift cards for what is left on them).
   */
  function ceilingOf(plan: Awaited<ReturnType<typeof planRefund>>): number {
    if (plan.byLines) return plan.quote.totalCents;
    if (!plan.soldCards) return plan.leftCents;
    const onCards = plan.soldCards.cards.reduce((sum, card) => sum + card.refundableCents, 0);
    return Math.min(plan.leftCents, plan.soldCards.otherLeftCents + onCards);
  }

  /**
   * A refund by amount that is more than the rest of the order comes to: the gift cards it takes back (each disabled,
   * what is left on it refunded), as lines carried with the refund, one card after another until the amount is met.
   */
  function cardsTakenBack(plan: Awaited<ReturnType<typeof planRefund>>, amountCents: number): CarriedLine[] {
    if (!plan.soldCards) return [];
    let beyond = amountCents - plan.soldCards.otherLeftCents;
    const lines: CarriedLine[] = [];
    for (const card of plan.soldCards.cards) {
      if (beyond <= 0) break;
      const cents = Math.min(beyond, card.refundableCents);
      beyond -= cents;
      const line = lines.find((each) => each.index === card.lineIndex);
      if (line) {
        line.quantity++;
        line.amountCents += cents;
      } else lines.push({ index: card.lineIndex, quantity: 1, amountCents: cents, restock: 0 });
    }
    return lines;
  }

  /** The console's refund: worked out by the refund function, made by the processor, recorded from its answer. */
  async function refund(actor: Actor, number: string, input: RefundRequest, within?: { afterCancel: true }) {
    const order = await orderByNumber(number);
    if (!order) throw new AppError("NOT_FOUND", "There is no such order.");
    // The same form sent again (a double click, a reload): the refund it made, not another one.
    const earlier = await db
      .selectFrom("order_refunds")
      .select(["id", "amount_cents"])
      .where("idempotency_key", "=", input.idempotencyKey)
      .where("order_id", "=", order.id)
      .executeTakeFirst();
    if (earlier) return { refundId: earlier.id, amountCents: earlier.amount_cents };
    const left = order.amount_cents - order.refunded_cents;
    if (left <= 0) throw new AppError("BAD_REQUEST", ALREADY_REFUNDED, { details: { field: "amount" } });
    if (
      !within &&
      !orderAllows({ paymentStatus: order.payment_status, fulfilmentStatus: order.fulfilment_status }, "refund")
    ) {
      throw new AppError("ORDER_TRANSITION_REFUSED", `Order ${order.number} cannot be refunded.`);
    }
    const plan = await planRefund(order, input);
    // After a cancellation everything left goes back, whatever earlier refunds of fewer cents left on the lines.
    const ceiling = within ? Math.max(0, plan.leftCents - plan.spentOnCardsCents) : ceilingOf(plan);
    // Cancelled, with nothing left but what was spent from the gift cards it bought: nothing goes back.
    if (within && ceiling <= 0) return { refundId: null, amountCents: 0 };
    const amountCents = input.amountCents ?? ceiling;
    if (ceiling <= 0 && plan.soldCards)
      throw new AppError("BAD_REQUEST", SPENT_ON_CARDS, { details: { field: "amount" } });
    if (amountCents < 1)
      throw new AppError("BAD_REQUEST", "Enter an amount of at least $0.01.", { details: { field: "amount" } });
    if (amountCents > ceiling)
      throw new AppError("BAD_REQUEST", `You can refund at most ${formatCents(ceiling)}.`, {
        details: { field: "amount" },
      });
    // An amount edited down shares itself over the lines and shipping in proportion, so they add up to it exactly.
    const parts = shareByLargestRemainder(amountCents, [
      ...plan.quote.lines.map((line) => line.amountCents),
      plan.quote.shippingCents,
    ]);
    const lines: CarriedLine[] = plan.byLines
      ? plan.quote.lines.map((line, position) => ({
          index: line.index,
          quantity: line.quantity,
          amountCents: parts[position]!,
          restock: plan.restock.find((wanted) => wanted.index === line.index)?.quantity ?? 0,
        }))
      : cardsTakenBack(plan, amountCents);
    const split = await balanceSplit(order, amountCents, input.destination ?? "card");
    const metadata = {
      [OPERATOR_EMAIL_KEY]: actor.email,
      [OPERATOR_ID_KEY]: actor.id ?? "",
      [CONSOLE_KEY_KEY]: input.idempotencyKey,
      ...refundMetadata(lines, plan.byLines ? parts[parts.length - 1]! : 0, input.reason ?? null, split.balances),
    };
    if (split.cardCents === 0) {
      // All of it to balances: no processor is asked; the refund is recorded under an id of the shop's own.
      const id = `balance_${sha256Base64url(`${order.id}:${input.idempotencyKey}`).slice(0, 24)}`;
      await recordProcessorRefund(
        { id, status: "succeeded", paymentIntentId: order.id, amountCents: 0, metadata },
        input.idempotencyKey,
      );
      return { refundId: id, amountCents };
    }
    const made = await provider
      .createRefund({
        paymentIntentId: order.id,
        amountCents: split.cardCents,
        idempotencyKey: `console-refund-${input.idempotencyKey}`,
        metadata,
      })
      .catch(async (error: unknown) => {
        // The provider's sentences speak to a paying shopper; an operator refunding needs to know what to do.
        if (!(error instanceof AppError)) throw error;
        // Another refund made at the same moment may have taken what was left: the processor refused this one for
        // its amount. Its own list of refunds says so, and what is left now.
        const leftAtProcessor = await leftToRefundAtProcessor(
          order.id,
          order.amount_cents - paidByBalances(order),
        ).catch((listError: unknown) => {
          logger.warn(
            { err: listError, orderId: order.id },
            "console: the processor's refunds could not be listed after a refused refund; answering without them",
          );
          return null;
        });
        if (leftAtProcessor !== null && leftAtProcessor <= 0)
          throw new AppError("BAD_REQUEST", ALREADY_REFUNDED, { details: { field: "amount" }, cause: error });
        if (leftAtProcessor !== null && amountCents > leftAtProcessor) {
          throw new AppError("BAD_REQUEST", `You can refund at most ${formatCents(leftAtProcessor)}.`, {
            details: { field: "amount" },
            cause: error,
          });
        }
        throw new AppError(
          error.code,
          "The payment service did not confirm the refund. Send the form again: it refunds at most once.",
          { cause: error },
        );
      });
    if (made.status !== "succeeded") {
      // Pending refunds (some payment methods) are recorded when the processor's refund.updated says they succeeded.
      logger.info({ refundId: made.id, status: made.status }, "console: refund not yet succeeded");
      return { refundId: made.id, amountCents: 0 };
    }
    // The items go back in stock with the refund's record, once: by this call or by the webhook, whichever is first.
    await recordProcessorRefund(made, input.idempotencyKey);
    return { refundId: made.id, amountCents: made.amountCents + (amountCents - split.cardCents) };
  }

  /** What balances (store credit, gift cards) paid of an order: the card paid the rest. */
  function paidByBalances(order: { pricing: { balances?: { amountCents: number }[] } | null }): number {
    return (order.pricing?.balances ?? []).reduce((sum, balance) => sum + balance.amountCents, 0);
  }

  /**
   * Where a refund goes: "Refund to store credit", all of it to the account's store credit; otherwise back to the
   * balances that paid the order first (what each paid less what it had back), then the card (the refund function's split).
   */
  async function balanceSplit(
    order: {
      id: string;
      user_id: string | null;
      pricing: { balances?: { accountId: string; amountCents: number }[] } | null;
    },
    amountCents: number,
    destination: "card" | "store_credit",
  ) {
    if (destination === "store_credit") {
      if (!ledger || !order.user_id)
        throw new AppError("BAD_REQUEST", "Only an order placed with an account can be refunded to store credit.", {
          details: { field: "form" },
        });
      const account = await ledger.openStoreCredit(order.user_id);
      return { balances: [{ accountId: account.id, amountCents }], cardCents: 0 };
    }
    const paid = order.pricing?.balances ?? [];
    if (paid.length === 0 || !ledger) return { balances: [], cardCents: amountCents };
    const givenBack = await ledger.givenBackFor(order.id);
    return splitRefund(
      amountCents,
      paid.map((balance) => ({
        accountId: balance.accountId,
        leftCents: balance.amountCents - (givenBack.get(balance.accountId) ?? 0),
      })),
    );
  }

  /**
   * Puts a return's received, undamaged units back in stock, in the return's transaction: once per return and line
   * (a unique key on order_restocks), each line at most what was sold and not yet restocked. Answers what went back.
   */
  async function restockReturn(
    trx: Writer,
    input: { orderId: string; returnId: string; lines: { index: number; quantity: number }[]; actor: string },
  ): Promise<{ index: number; quantity: number }[]> {
    const order = await trx
      .selectFrom("orders")
      .select(["id", "items"])
      .where("id", "=", input.orderId)
      .forUpdate()
      .executeTakeFirst();
    if (!order) return [];
    const items = order.items.map(readOrderItem);
    const { restocked } = await refundHistory(trx, order.id, items.length);
    const done = [];
    for (const line of input.lines) {
      const quantity = Math.min(line.quantity, (items[line.index]?.quantity ?? 0) - (restocked[line.index] ?? 0));
      if (quantity <= 0) continue;
      const inserted = await trx
        .insertInto("order_restocks")
        .values({
          order_id: order.id,
          line_index: line.index,
          quantity,
          return_id: input.returnId,
          cause: "return",
          actor: input.actor,
        })
        .onConflict((conflict) =>
          conflict.columns(["return_id", "line_index"]).where("return_id", "is not", null).doNothing(),
        )
        .returning("id")
        .executeTakeFirst();
      if (inserted) done.push({ index: line.index, quantity });
    }
    if (done.length > 0)
      await inventory?.restock(
        trx,
        done.map((line) => {
          const item = items[line.index]!;
          return { variantId: item.variantId ?? item.productId, quantity: line.quantity };
        }),
        order.id,
        input.actor,
      );
    return done;
  }

  return {
    recordProcessorRefund,
    refundHistory,
    orderByNumber,
    restockReturn,

    /** What a charge.refunded event means: every succeeded refund of the intent, each recorded once. */
    async reconcileRefunds(paymentIntentId: string): Promise<number> {
      const known = await db.selectFrom("orders").select("id").where("id", "=", paymentIntentId).executeTakeFirst();
      if (!known) return 0;
      let recorded = 0;
      for (const made of await provider.listRefunds(paymentIntentId))
        if ((await recordProcessorRefund(made)) === "recorded") recorded++;
      return recorded;
    },

    refund: (actor: Actor, number: string, input: RefundRequest) => refund(actor, number, input),

    /**
     * What a refund request would give back, for the confirmation ("Refund $x to Visa ending in 4242?"): the refund
     * function's figure (the most the operator may send) and the amount asked, refused above it.
     */
    async quoteRefund(number: string, input: Omit<RefundRequest, "idempotencyKey">) {
      const order = await orderByNumber(number);
      if (!order) throw new AppError("NOT_FOUND", "There is no such order.");
      const plan = await planRefund(order, { ...input, idempotencyKey: "" });
      const ceiling = ceilingOf(plan);
      const amountCents = input.amountCents ?? ceiling;
      if (ceiling <= 0)
        throw new AppError(
          "BAD_REQUEST",
          plan.leftCents <= 0 ? ALREADY_REFUNDED : plan.soldCards ? SPENT_ON_CARDS : "Choose what to refund.",
          {
            details: { field: plan.leftCents <= 0 ? "amount" : "form" },
          },
        );
      if (amountCents > ceiling)
        throw new AppError("BAD_REQUEST", `You can refund at most ${formatCents(ceiling)}.`, {
          details: { field: "amount" },
        });
      // Where it goes, so the question names the gift card or store credit that paid before the card.
      const split = input.destination === "store_credit" ? null : await balanceSplit(order, amountCents, "card");
      const paid = order.pricing?.balances ?? [];
      return {
        amountCents,
        ceilingCents: ceiling,
        toBalances: (split?.balances ?? []).map((back) => {
          const balance = paid.find((each) => each.accountId === back.accountId);
          return { label: balance ? balanceLabel(balance) : "Store credit", amountCents: back.amountCents };
        }),
        toCardCents: split ? split.cardCents : 0,
        /** Gift cards the order sold that this refund disables (what is left on each is what comes back of it). */
        giftCardsDisabled: (plan.byLines
          ? plan.quote.lines.filter((line) => plan.items[line.index]?.giftCard)
          : cardsTakenBack(plan, amountCents)
        ).reduce((sum, line) => sum + line.quantity, 0),
        lines: plan.quote.lines.map((line) => ({
          title: plan.items[line.index]!.title,
          quantity: line.quantity,
          restock: plan.restock.find((wanted) => wanted.index === line.index)?.quantity ?? 0,
        })),
        shippingCents: plan.quote.shippingCents,
      };
    },

    /**
     * "Cancel and refund": cancelled (with its audit entry) and, when asked, every unit not yet back put back in stock,
     * once, in the cancellation's transaction; then everything left given back, line by line with the shipping.
     */
    async cancelAndRefund(actor: Actor, number: string, idempotencyKey: string, options: { restock?: boolean } = {}) {
      const order = await orderByNumber(number);
      if (!order) throw new AppError("NOT_FOUND", "There is no such order.");
      const items = order.items.map(readOrderItem);
      if (order.fulfilment_status !== "cancelled") {
        try {
          await db.transaction().execute(async (trx: Writer) => {
            await orders.cancel(order.id, actor.email, undefined, trx);
            const restocked = options.restock
              ? await restockLines(
                  trx,
                  { id: order.id, items },
                  items.map((item, index) => ({ index, quantity: item.quantity })),
                  { refundId: null, actor: actor.email },
                )
              : [];
            await recordAudit(trx, actor, {
              action: "order.cancel",
              subject: order.number,
              before: { status: order.fulfilment_status },
              after: {
                status: "cancelled",
                restocked: restocked.map((line) => ({ item: items[line.index]!.title, quantity: line.quantity })),
              },
            });
          });
        } catch (error) {
          // The same form sent twice at once: the other request cancelled it; go on to the (same) refund.
          if (!(error instanceof AppError && error.details?.status === "cancelled")) throw error;
        }
      }
      if (order.amount_cents - order.refunded_cents <= 0) return { refundId: null, amountCents: 0 };
      const { refunded } = await refundHistory(db, order.id, items.length);
      return refund(
        actor,
        number,
        {
          amountCents: null,
          idempotencyKey,
          lines: items.map((item, index) => ({
            index,
            quantity: item.quantity - (refunded[index] ?? 0),
            restock: false,
          })),
          includeShipping: true,
        },
        { afterCancel: true },
      );
    },
  };
}

export type OrderRefunds = ReturnType<typeof createOrderRefunds>;
