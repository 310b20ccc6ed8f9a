// Returns on the operator's side: approve or decline, cancel, "Mark received" line by line with its restock, then the
// refund or the replacement order; the one writer of returns besides openReturn.

import type { DB, Writer } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import { replacementOrderEmail } from "#server/email/templates/order-emails";
import { returnApprovedEmail, returnCancelledEmail, returnDeclinedEmail } from "#server/email/templates/return-emails";
import type { InventoryService } from "#server/inventory/inventory-service";
import type { OrderService } from "#server/orders/order-service";
import type { OrderRefunds } from "#server/refunds/order-refunds";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import type { ReturnPolicy } from "#server/settings/shop-settings-service";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { RETURN_STATUS_LABELS, returnAllows, type ReturnAction, type ReturnStatus } from "#shared/returns";
import { openReturn, type OpenReturnLine } from "./open-return";
import { earlierRefunds, figureReturn, toReturnableOrder } from "./return-lines";
import { describeReturnLines, variantDescriptions } from "./return-view";
import { createShopperReturns } from "./shopper-returns";
import { createReturnQueries } from "./return-queries";

export interface ReturnsDependencies {
  db: DB;
  email: EmailOutbox;
  orders: OrderService;
  refunds: Pick<OrderRefunds, "refund" | "restockReturn">;
  inventory: InventoryService;
  settings: { returnPolicy(): Promise<ReturnPolicy> };
}

/**
 * Returns: the shopper's request (shopper-returns.ts), and the operator's side: approve or decline, cancel before
 * Received, "Mark received" line by line (the undamaged units back in stock, once), then the refund by the refund
 * function and the replacement order. Each step locks the return's row first, so two operators (or two instances)
 * doing the same step at once do it once; its e-mail and audit entry are written in the step's transaction.
 */
export function createReturnsService(deps: ReturnsDependencies) {
  const { db, email, orders, refunds, inventory, settings } = deps;
  const queries = createReturnQueries(db);

  /** The return's row, locked, refused with a sentence unless its status allows the action. */
  async function lockReturn(trx: Writer, number: string, action: ReturnAction) {
    const row = await trx
      .selectFrom("returns")
      .selectAll()
      .where("number", "=", number.toUpperCase())
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new AppError("NOT_FOUND", "There is no such return.");
    if (!returnAllows(row.status, action))
      throw new AppError(
        "ORDER_TRANSITION_REFUSED",
        `Return ${row.number} is ${RETURN_STATUS_LABELS[row.status].toLowerCase()}, so it cannot be ${PAST[action]}.`,
        { details: { status: row.status } },
      );
    return row;
  }

  async function orderOf(executor: Writer, orderId: string) {
    return executor
      .selectFrom("orders")
      .select([
        "id",
        "number",
        "items",
        "pricing",
        "amount_cents",
        "refunded_cents",
        "user_id",
        "session_id",
        "currency",
        "livemode",
        "delivery_address",
        "contact_email",
      ])
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
  }

  async function linesOf(executor: Writer, returnId: string) {
    return executor
      .selectFrom("return_lines")
      .selectAll()
      .where("return_id", "=", returnId)
      .orderBy("line_index")
      .execute();
  }

  /** A decision (approve, decline, cancel): the status, who and when, the e-mail and the audit entry, at once. */
  async function decide(
    actor: Actor,
    number: string,
    action: "approve" | "decline" | "cancel",
    message: string | null,
  ): Promise<void> {
    // Read before the transaction: on PGlite's one connection, a read beside an open transaction waits for it.
    const policy = await settings.returnPolicy();
    await db.transaction().execute(async (trx) => {
      const row = await lockReturn(trx, number, action);
      const status: ReturnStatus = action === "approve" ? "approved" : action === "decline" ? "declined" : "cancelled";
      await trx
        .updateTable("returns")
        .set({
          status,
          updated_at: new Date(),
          ...(action === "cancel"
            ? { cancelled_at: new Date() }
            : { decided_at: new Date(), decided_by: actor.email, decision_message: message }),
        })
        .where("id", "=", row.id)
        .execute();
      // A cancelled return is told to the shopper whoever opened it (only the console cancels); a withdrawal's
      // approval or decline is not, as its acknowledgement said all there is.
      if (action === "cancel" || row.kind === "return") {
        const order = toReturnableOrder(await orderOf(trx, row.order_id));
        const lines = (await linesOf(trx, row.id)).map((line) => ({
          index: line.line_index,
          quantity: line.quantity,
          resolution: line.resolution,
          replacementVariantId: line.replacement_variant_id,
        }));
        const described = await describeReturnLines(trx, order.items, lines);
        await email.enqueueOrderEmail(trx, {
          orderId: order.id,
          kind: `return-${PAST[action]}`,
          dedupeKey: `return-${PAST[action]}:${row.id}`,
          render: (data) =>
            action === "approve"
              ? returnApprovedEmail({
                  ...data,
                  returnNumber: row.number,
                  lines: described,
                  returnAddress: policy.address,
                })
              : action === "decline"
                ? returnDeclinedEmail({ ...data, returnNumber: row.number, lines: described, message: message ?? "" })
                : returnCancelledEmail({ ...data, returnNumber: row.number, lines: described }),
        });
      }
      await recordAudit(trx, actor, {
        action: `return.${action}`,
        subject: row.number,
        before: { status: row.status },
        after: { status, ...(message ? { message } : {}) },
      });
    });
  }

  /**
   * "Mark received" for one line: the units that arrived and how many of them are damaged. The undamaged ones go back
   * in stock in the same transaction, once: the return's row is locked first, and a line already marked is refused
   * (a second operator, or the other instance, at the same moment finds it marked). Once every line is marked the
   * return is Received.
   */
  async function markReceived(
    actor: Actor,
    number: string,
    lineIndex: number,
    counts: { received: number; damaged: number },
  ): Promise<{ restocked: number; isReceived: boolean }> {
    return db.transaction().execute(async (trx) => {
      const row = await lockReturn(trx, number, "receive");
      const lines = await linesOf(trx, row.id);
      const line = lines.find((candidate) => candidate.line_index === lineIndex);
      if (!line) throw new AppError("NOT_FOUND", "That item is not in this return.");
      // Someone was first (another operator, or the other instance): a conflict, said above the return as it now is.
      if (line.received_quantity !== null)
        throw new AppError("ORDER_TRANSITION_REFUSED", "This item is marked received already.");
      const { received, damaged } = counts;
      if (!Number.isSafeInteger(received) || received < 0 || received > line.quantity)
        throw new AppError("BAD_REQUEST", `Enter between 0 and ${line.quantity} received.`, {
          details: { field: `received-${lineIndex}` },
        });
      if (!Number.isSafeInteger(damaged) || damaged < 0 || damaged > received)
        throw new AppError("BAD_REQUEST", `Enter between 0 and ${received} damaged.`, {
          details: { field: `damaged-${lineIndex}` },
        });
      await trx
        .updateTable("return_lines")
        .set({
          received_quantity: received,
          damaged_quantity: damaged,
          received_at: new Date(),
          received_by: actor.email,
        })
        .where("return_id", "=", row.id)
        .where("line_index", "=", lineIndex)
        .execute();
      const restocked = await refunds.restockReturn(trx, {
        orderId: row.order_id,
        returnId: row.id,
        lines: [{ index: lineIndex, quantity: received - damaged }],
        actor: actor.email,
      });
      // Every unit back from this order's returns so far (damaged ones too): its fulfilment status, by the one rule.
      await orders.recordReturnedUnits(trx, row.order_id, async (locked) => {
        const back = await locked
          .selectFrom("return_lines")
          .innerJoin("returns", "returns.id", "return_lines.return_id")
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("return_lines.received_quantity"), eb.lit(0)).as("units"))
          .where("returns.order_id", "=", row.order_id)
          .executeTakeFirstOrThrow();
        return Number(back.units);
      });
      const isReceived = lines.every(
        (candidate) => candidate.line_index === lineIndex || candidate.received_quantity !== null,
      );
      if (isReceived)
        await trx
          .updateTable("returns")
          .set({ status: "received", received_at: new Date(), updated_at: new Date() })
          .where("id", "=", row.id)
          .execute();
      await recordAudit(trx, actor, {
        action: "return.receive",
        subject: row.number,
        before: { status: row.status },
        after: {
          status: isReceived ? "received" : row.status,
          line: lineIndex + 1,
          received,
          damaged,
          restocked: restocked.reduce((sum, done) => sum + done.quantity, 0),
        },
      });
      return { restocked: restocked.reduce((sum, done) => sum + done.quantity, 0), isReceived };
    });
  }

  /** The figure of a received return: its received units, by the refund function, less the fee it was asked with. */
  async function receivedFigure(
    executor: Writer,
    row: { id: string; order_id: string; return_fee_cents: number; include_shipping: boolean },
  ) {
    const order = toReturnableOrder(await orderOf(executor, row.order_id));
    const lines = await linesOf(executor, row.id);
    const prices = await replacementPrices(executor, lines);
    const figured = lines
      .map((line) => ({
        index: line.line_index,
        quantity: line.received_quantity ?? 0,
        resolution: line.resolution,
        replacementPriceCents: line.replacement_variant_id ? prices.get(line.replacement_variant_id) : undefined,
      }))
      .filter((line) => line.quantity > 0);
    const refundsBefore = await earlierRefunds(executor, order);
    const figure = figureReturn(order, refundsBefore, {
      lines: figured,
      includeShipping: row.include_shipping,
      returnFeeCents: row.return_fee_cents,
    });
    return { order, lines, figured, figure };
  }

  async function replacementPrices(executor: Writer, lines: { replacement_variant_id: string | null }[]) {
    const ids = lines.flatMap((line) => (line.replacement_variant_id ? [line.replacement_variant_id] : []));
    if (ids.length === 0) return new Map<string, number>();
    const rows = await executor
      .selectFrom("product_variants")
      .select(["id", "price_cents"])
      .where("id", "in", ids)
      .execute();
    return new Map(rows.map((variant) => [variant.id, variant.price_cents]));
  }

  /** Refunded once both its refund (when it has refunded lines) and its replacement (when it has any) are made. */
  async function settleIfDone(trx: Writer, returnId: string): Promise<void> {
    const row = await trx
      .selectFrom("returns")
      .select(["refund_id", "replacement_order_id", "refunded_at", "status"])
      .where("id", "=", returnId)
      .executeTakeFirstOrThrow();
    const lines = await linesOf(trx, returnId);
    const refunds = lines.some((line) => line.resolution === "refund" && (line.received_quantity ?? 0) > 0);
    const replaces = lines.some((line) => line.resolution === "replace" && (line.received_quantity ?? 0) > 0);
    const done = (!refunds || row.refunded_at !== null) && (!replaces || row.replacement_order_id !== null);
    if (done && row.status === "received")
      await trx
        .updateTable("returns")
        .set({ status: "refunded", updated_at: new Date() })
        .where("id", "=", returnId)
        .execute();
  }

  /**
   * "Refund": the received units resolved by a refund (with shipping when the return includes it), by the refund
   * function less the return fee, made by the processor and recorded once (its e-mail is the refund e-mail) with the
   * console's own refund, keyed by the return so a second click or instance refunds nothing more.
   */
  async function refund(actor: Actor, number: string): Promise<{ amountCents: number }> {
    const planned = await db.transaction().execute(async (trx) => {
      const row = await lockReturn(trx, number, "refund");
      if (row.refunded_at) return null;
      const { order, figured, figure } = await receivedFigure(trx, row);
      return { row, order, figured, figure };
    });
    if (!planned) return { amountCents: 0 };
    const { row, order, figured, figure } = planned;
    const refunded = figured.filter((line) => line.resolution === "refund");
    let refundId: string | null = null;
    if (figure.refundCents > 0) {
      const made = await refunds.refund(actor, order.number, {
        idempotencyKey: `return-${row.id}`,
        amountCents: figure.refundCents,
        lines: refunded.map((line) => ({ index: line.index, quantity: line.quantity, restock: false })),
        includeShipping: row.include_shipping,
        reason: `Return ${row.number}`,
      });
      refundId = made.refundId;
    }
    await db.transaction().execute(async (trx) => {
      const locked = await lockReturn(trx, number, "refund");
      if (locked.refunded_at) return;
      await trx
        .updateTable("returns")
        .set({
          refund_id: locked.refund_id ?? refundId,
          refund_cents: figure.refundCents + (locked.replacement_order_id ? figure.differenceCents : 0),
          refunded_at: new Date(),
          updated_at: new Date(),
        })
        .where("id", "=", locked.id)
        .execute();
      await settleIfDone(trx, locked.id);
      await recordAudit(trx, actor, {
        action: "return.refund",
        subject: locked.number,
        before: { status: locked.status },
        after: { refund: formatCents(figure.refundCents), fee: formatCents(figure.feeCents) },
      });
    });
    return { amountCents: figure.refundCents };
  }

  /**
   * "Replace": a new order at $0.00 of the replacement variants for the received units, to the same shopper and
   * address, linked to the return, its stock sold like any order's; then the difference (each replaced unit's worth
   * above its replacement's price, after the fee) refunded. Once per return, whoever asks twice.
   */
  async function replace(actor: Actor, number: string): Promise<{ orderNumber: string; differenceCents: number }> {
    const made = await db.transaction().execute(async (trx) => {
      const row = await lockReturn(trx, number, "replace");
      const { order, lines, figure } = await receivedFigure(trx, row);
      const replaced = lines.filter((line) => line.resolution === "replace" && (line.received_quantity ?? 0) > 0);
      if (replaced.length === 0) throw new AppError("BAD_REQUEST", "Nothing in this return is to be replaced.");
      if (row.replacement_order_id) {
        const existing = await trx
          .selectFrom("orders")
          .select("number")
          .where("id", "=", row.replacement_order_id)
          .executeTakeFirstOrThrow();
        return { row, order, figure, orderNumber: existing.number, isNew: false };
      }
      const full = await orderOf(trx, row.order_id);
      const variantIds = replaced.map((line) => line.replacement_variant_id!);
      const [variants, described] = await Promise.all([
        trx
          .selectFrom("product_variants")
          .select(["id", "sku", "image", "image_width", "image_height"])
          .where("id", "in", variantIds)
          .execute(),
        variantDescriptions(trx, variantIds),
      ]);
      const items = replaced.map((line) => {
        const item = order.items[line.line_index]!;
        const variant = variants.find((candidate) => candidate.id === line.replacement_variant_id)!;
        const options = (described.get(variant.id) ?? "")
          .split(", ")
          .filter(Boolean)
          .map((pair) => {
            const [name, ...value] = pair.split(": ");
            return { name: name!, value: value.join(": ") };
          });
        return {
          ...item,
          variantId: variant.id,
          sku: variant.sku,
          options,
          priceCents: 0,
          quantity: line.received_quantity!,
          image:
            variant.image && variant.image_width && variant.image_height
              ? { src: variant.image, width: variant.image_width, height: variant.image_height }
              : item.image,
        };
      });
      const written = await orders.recordReplacementOrder(trx, {
        returnId: row.id,
        original: {
          userId: full.user_id,
          sessionId: full.session_id,
          currency: full.currency,
          livemode: full.livemode,
          deliveryAddress: full.delivery_address,
          contactEmail: full.contact_email,
        },
        items,
      });
      if (written.isNew) {
        await inventory.sell(
          trx,
          written.orderId,
          items.map((item) => ({ variantId: item.variantId, quantity: item.quantity })),
          written.orderId,
        );
        // Its confirmation, said as a replacement: nothing was paid for it.
        await email.enqueueOrderEmail(trx, {
          orderId: written.orderId,
          kind: "order-confirmation",
          dedupeKey: `order-confirmation:${written.orderId}`,
          render: (data) => replacementOrderEmail({ ...data, returnNumber: row.number }),
        });
      }
      await trx
        .updateTable("returns")
        .set({ replacement_order_id: written.orderId, updated_at: new Date() })
        .where("id", "=", row.id)
        .execute();
      await recordAudit(trx, actor, {
        action: "return.replace",
        subject: row.number,
        before: { status: row.status },
        after: { replacementOrder: written.orderNumber, difference: formatCents(figure.differenceCents) },
      });
      return { row, order, figure, orderNumber: written.orderNumber, isNew: written.isNew };
    });
    const { row, order, figure } = made;
    if (figure.differenceCents > 0)
      await refunds.refund(actor, order.number, {
        idempotencyKey: `return-difference-${row.id}`,
        amountCents: figure.differenceCents,
        reason: `Return ${row.number}: price difference`,
      });
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom("returns").select("id").where("id", "=", row.id).forUpdate().execute();
      await settleIfDone(trx, row.id);
    });
    return { orderNumber: made.orderNumber, differenceCents: figure.differenceCents };
  }

  return {
    /** Opens a return in the caller's transaction (the EU withdrawal's and the shopper's request): open-return.ts. */
    openReturn: (trx: Writer, input: Parameters<typeof openReturn>[2]) => openReturn(trx, email, input),
    ...createShopperReturns({ db, email, inventory, settings }),
    ...queries,
    approve: (actor: Actor, number: string) => decide(actor, number, "approve", null),
    decline: async (actor: Actor, number: string, message: string) => {
      const text = message.trim();
      if (!text)
        throw new AppError("BAD_REQUEST", "Write a message to the shopper saying why.", {
          details: { field: "message" },
        });
      return decide(actor, number, "decline", text.slice(0, 2000));
    },
    cancel: (actor: Actor, number: string) => decide(actor, number, "cancel", null),
    markReceived,
    refund,
    replace,
  };
}

const PAST: Record<ReturnAction, string> = {
  approve: "approved",
  decline: "declined",
  cancel: "cancelled",
  receive: "marked received",
  refund: "refunded",
  replace: "replaced",
};

export type ReturnsService = ReturnType<typeof createReturnsService>;
export type { OpenReturnLine };
