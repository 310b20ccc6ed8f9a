// Opening a return in the caller's transaction, for the shopper's request and the EU withdrawal alike: its lines
// checked against what the order can still return.

import type { Writer } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import { returnRequestedEmail } from "#server/email/templates/return-emails";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import type { ReturnKind, ReturnReason, ReturnResolution } from "#shared/returns";
import { describeReturnLines } from "./return-view";
import {
  earlierRefunds,
  figureReturn,
  returnableQuantities,
  toReturnableOrder,
  type ReturnableOrder,
} from "./return-lines";

/** A line of a return being opened: units of an order line (by its index in the order's items). */
export interface OpenReturnLine {
  index: number;
  quantity: number;
  /** Null for a withdrawal: no reason is asked. */
  reason: ReturnReason | null;
  /** Refund the units, or send another variant of the same product (`replacementVariantId`) instead. */
  resolution: ReturnResolution;
  replacementVariantId?: string | null;
}

export interface OpenReturnInput {
  /** The order's id (its payment intent id). */
  orderId: string;
  /** "return" (a shopper's request) or "withdrawal" (the EU withdrawal function's). */
  kind: ReturnKind;
  lines: OpenReturnLine[];
  /** Who asked: "shopper", or an operator's e-mail. */
  requestedBy: string;
  /** The same request sent again (a double submit, a retry) answers the return it opened: keyed by this. */
  requestKey?: string | null;
  /** Kept back from the refund: the shop's return fee when asked for; 0 for a withdrawal. */
  returnFeeCents: number;
  /** The refund includes the order's delivery charge (a withdrawal from every line). */
  includeShipping?: boolean;
}

export interface OpenedReturn {
  returnId: string;
  /** SF-YYMM-XXXX-R1. */
  number: string;
  /** What the refund function gives back for the lines resolved by a refund, the fee taken off. */
  refundCents: number;
  /** False when the request key had opened it already (nothing was written this time). */
  isNew: boolean;
}

/**
 * Opens a return, in the caller's transaction: the one way a return comes to exist, for the shopper's "Request return"
 * and for the EU withdrawal alike. It locks the order's row (so two requests at once never both take the same units),
 * refuses a line beyond what is left to return (sold, less other returns' and refunds' units), writes the return as
 * Requested with its lines, and, for a return (not a withdrawal, which sends its own acknowledgement), enqueues "We
 * received your return request" once. It creates nothing else: no refund, restock or replacement until an operator
 * says so. The window (how long after shipping) is the caller's to check: a return's and a withdrawal's differ.
 * Refused requests throw AppError BAD_REQUEST with a sentence for the shopper (details.field names the line).
 */
export async function openReturn(
  trx: Writer,
  email: Pick<EmailOutbox, "enqueueOrderEmail">,
  input: OpenReturnInput,
): Promise<OpenedReturn> {
  const row = await trx
    .selectFrom("orders")
    .select(["id", "number", "items", "pricing", "amount_cents", "refunded_cents", "fulfilment_status"])
    .where("id", "=", input.orderId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", "There is no such order.");
  if (input.requestKey) {
    const earlier = await trx
      .selectFrom("returns")
      .select(["id", "number", "refund_cents"])
      .where("request_key", "=", input.requestKey)
      .executeTakeFirst();
    if (earlier)
      return { returnId: earlier.id, number: earlier.number, refundCents: earlier.refund_cents ?? 0, isNew: false };
  }
  if (row.fulfilment_status === "cancelled")
    throw new AppError("BAD_REQUEST", `Order ${row.number} was cancelled, so there is nothing to return.`);
  const order = toReturnableOrder(row);
  const lines = input.lines.filter((line) => line.quantity > 0);
  if (lines.length === 0)
    throw new AppError("BAD_REQUEST", "Choose at least one item to return.", { details: { field: "form" } });
  const returnable = await returnableQuantities(trx, order);
  const seen = new Set<number>();
  for (const line of lines) {
    const item = order.items[line.index];
    const left = returnable[line.index] ?? 0;
    if (!item || seen.has(line.index) || !Number.isSafeInteger(line.quantity) || line.quantity > left)
      throw new AppError(
        "BAD_REQUEST",
        left > 0
          ? `You can return at most ${left} of ${item?.title ?? "this item"}.`
          : `${item?.title ?? "This item"} cannot be returned.`,
        { details: { field: `quantity-${line.index}` } },
      );
    seen.add(line.index);
    if (line.resolution === "replace" && !line.replacementVariantId)
      throw new AppError("BAD_REQUEST", `Choose the option to replace ${item.title} with.`, {
        details: { field: `replacement-${line.index}` },
      });
  }
  const replacementPrices = await replacementPricesFor(trx, order, lines);
  const includeShipping = input.includeShipping === true;
  const figure = figureReturn(order, await earlierRefunds(trx, order), {
    lines: lines.map((line) => ({ ...line, replacementPriceCents: replacementPrices.get(line.index) })),
    includeShipping,
    returnFeeCents: input.returnFeeCents,
  });
  const count = await trx
    .selectFrom("returns")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("order_id", "=", order.id)
    .executeTakeFirstOrThrow();
  const number = `${order.number}-R${Number(count.count) + 1}`;
  const inserted = await trx
    .insertInto("returns")
    .values({
      number,
      order_id: order.id,
      kind: input.kind,
      request_key: input.requestKey ?? null,
      requested_by: input.requestedBy.slice(0, 254),
      return_fee_cents: Math.max(0, input.returnFeeCents),
      include_shipping: includeShipping,
      refund_cents: figure.totalCents,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await trx
    .insertInto("return_lines")
    .values(
      lines.map((line) => ({
        return_id: inserted.id,
        line_index: line.index,
        quantity: line.quantity,
        reason: line.reason,
        resolution: line.resolution,
        replacement_variant_id: line.resolution === "replace" ? (line.replacementVariantId ?? null) : null,
      })),
    )
    .execute();
  if (input.kind === "return") {
    const described = await describeReturnLines(trx, order.items, lines);
    await email.enqueueOrderEmail(trx, {
      orderId: order.id,
      kind: "return-requested",
      dedupeKey: `return-requested:${inserted.id}`,
      render: (data) =>
        returnRequestedEmail({
          ...data,
          returnNumber: number,
          lines: described,
          refundCents: figure.totalCents,
          refundText:
            figure.totalCents > 0 || lines.some((line) => line.resolution === "refund")
              ? `Refund: ${formatCents(figure.totalCents)}`
              : "We send the replacement once the items arrive.",
        }),
    });
  }
  return { returnId: inserted.id, number, refundCents: figure.totalCents, isNew: true };
}

/**
 * The price of one unit of each replacement (by the line's index), refused unless it is another variant of the line's
 * own product at the same price or lower. Whether it is in stock is asked when the shopper chooses (the order page's
 * options) and again when the replacement order is made.
 */
async function replacementPricesFor(
  trx: Writer,
  order: ReturnableOrder,
  lines: OpenReturnLine[],
): Promise<Map<number, number>> {
  const wanted = lines.filter((line) => line.resolution === "replace");
  const prices = new Map<number, number>();
  if (wanted.length === 0) return prices;
  const variants = await trx
    .selectFrom("product_variants")
    .select(["id", "product_id", "price_cents"])
    .where(
      "id",
      "in",
      wanted.map((line) => line.replacementVariantId!),
    )
    .execute();
  for (const line of wanted) {
    const item = order.items[line.index]!;
    const variant = variants.find((candidate) => candidate.id === line.replacementVariantId);
    const sold = item.variantId ?? item.productId;
    if (
      !variant ||
      variant.product_id !== item.productId ||
      variant.id === sold ||
      variant.price_cents > item.priceCents
    )
      throw new AppError("BAD_REQUEST", `That option cannot replace ${item.title}: choose another.`, {
        details: { field: `replacement-${line.index}` },
      });
    prices.set(line.index, variant.price_cents);
  }
  return prices;
}
