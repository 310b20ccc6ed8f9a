import type { DB } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import { hasAvailableStock, type InventoryService } from "#server/inventory/inventory-service";
import type { ReturnPolicy } from "#server/settings/shop-settings-service";
import { AppError } from "#shared/errors";
import { describeItemOptions, readOrderItem } from "#shared/orders";
import {
  RETURN_STATUS_LABELS,
  returnReasonLabel,
  type ReturnKind,
  type ReturnReason,
  type ReturnResolution,
  type ReturnStatus,
} from "#shared/returns";
import { openReturn } from "./open-return";
import { earlierRefunds, figureReturn, returnableQuantities, toReturnableOrder } from "./return-lines";
import { variantDescriptions } from "./return-view";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A line of the shopper's form as a route read it. */
export interface ReturnFormLine {
  index: number;
  quantity: number;
  reason: ReturnReason;
  resolution: ReturnResolution;
  replacementVariantId: string | null;
}

/** The order page's "Return or replace items": what may be returned, and the order's returns so far. */
export interface ShopperReturnsView {
  /** Shipped, within the window, with something left to return. */
  canRequest: boolean;
  /** ISO 8601: the last moment a return may be asked for; null before shipping. */
  windowEndsAt: string | null;
  feeCents: number;
  lines: {
    index: number;
    title: string;
    options: string;
    returnable: number;
    /** Other variants of the same product, in stock, at the same price or lower. */
    replacements: { variantId: string; label: string; priceCents: number }[];
  }[];
  returns: {
    number: string;
    kind: ReturnKind;
    status: ReturnStatus;
    statusLabel: string;
    createdAt: string;
    refundCents: number | null;
    declineMessage: string | null;
    lines: { title: string; quantity: number; reason: string; resolution: ReturnResolution }[];
  }[];
}

/** The shopper's side of returns: the order page's form, its figure, and the request. */
export function createShopperReturns({
  db,
  email,
  inventory,
  settings,
}: {
  db: DB;
  email: Pick<EmailOutbox, "enqueueOrderEmail">;
  inventory: Pick<InventoryService, "getLevels">;
  settings: { returnPolicy(): Promise<ReturnPolicy> };
}) {
  async function loadOrder(orderId: string) {
    const row = await db
      .selectFrom("orders")
      .select([
        "id",
        "number",
        "items",
        "pricing",
        "amount_cents",
        "refunded_cents",
        "fulfilment_status",
        "replaces_return_id",
      ])
      .where("id", "=", orderId)
      .executeTakeFirst();
    if (!row) throw new AppError("NOT_FOUND", "There is no such order.");
    return row;
  }

  /** When the order was first marked shipped: the return window runs from it. */
  async function shippedAt(orderId: string): Promise<Date | null> {
    const row = await db
      .selectFrom("order_status_history")
      .select("created_at")
      .where("order_id", "=", orderId)
      .where("status", "=", "shipped")
      .orderBy("id")
      .executeTakeFirst();
    return row?.created_at ?? null;
  }

  /** Each line's replacement options: other variants of its product, in stock, priced at most what it was. */
  async function replacementOptions(items: ReturnType<typeof readOrderItem>[]) {
    const variants = await db
      .selectFrom("product_variants")
      .select(["id", "product_id", "price_cents", "position"])
      .where("product_id", "in", [...new Set(items.map((item) => item.productId))])
      .orderBy("position")
      .execute();
    const levels = await inventory.getLevels(variants.map((variant) => variant.id));
    const described = await variantDescriptions(
      db,
      variants.map((variant) => variant.id),
    );
    return items.map((item) =>
      variants
        .filter(
          (variant) =>
            variant.product_id === item.productId &&
            variant.id !== (item.variantId ?? item.productId) &&
            variant.price_cents <= item.priceCents &&
            (levels.get(variant.id) ? hasAvailableStock(levels.get(variant.id)!) : true),
        )
        .map((variant) => ({
          variantId: variant.id,
          label: described.get(variant.id) || item.title,
          priceCents: variant.price_cents,
        })),
    );
  }

  async function view(orderId: string): Promise<ShopperReturnsView> {
    const row = await loadOrder(orderId);
    const order = toReturnableOrder(row);
    const [policy, shipped, returnable, options, returns] = await Promise.all([
      settings.returnPolicy(),
      shippedAt(orderId),
      returnableQuantities(db, order),
      replacementOptions(order.items),
      db
        .selectFrom("returns")
        .select(["id", "number", "kind", "status", "created_at", "refund_cents", "decision_message"])
        .where("order_id", "=", orderId)
        .orderBy("created_at", "desc")
        .execute(),
    ]);
    const returnLines = returns.length
      ? await db
          .selectFrom("return_lines")
          .selectAll()
          .where(
            "return_id",
            "in",
            returns.map((made) => made.id),
          )
          .orderBy("line_index")
          .execute()
      : [];
    const windowEndsAt = shipped ? new Date(shipped.getTime() + policy.windowDays * DAY_MS) : null;
    const isShipped = row.fulfilment_status === "shipped" || row.fulfilment_status === "partially_returned";
    const canRequest =
      isShipped &&
      policy.windowDays > 0 &&
      windowEndsAt !== null &&
      windowEndsAt.getTime() >= Date.now() &&
      returnable.some((left) => left > 0);
    return {
      canRequest,
      windowEndsAt: windowEndsAt?.toISOString() ?? null,
      feeCents: policy.feeCents,
      lines: order.items.map((item, index) => ({
        index,
        title: item.title,
        options: describeItemOptions(item),
        returnable: returnable[index] ?? 0,
        replacements: options[index] ?? [],
      })),
      returns: returns.map((made) => ({
        number: made.number,
        kind: made.kind,
        status: made.status,
        statusLabel: RETURN_STATUS_LABELS[made.status],
        createdAt: made.created_at.toISOString(),
        refundCents: made.refund_cents,
        declineMessage: made.status === "declined" ? made.decision_message : null,
        lines: returnLines
          .filter((line) => line.return_id === made.id)
          .map((line) => ({
            title: order.items[line.line_index]?.title ?? "",
            quantity: line.quantity,
            reason: returnReasonLabel(line.reason),
            resolution: line.resolution,
          })),
      })),
    };
  }

  /** Lines the form asks for, checked against what the order page offers (units left, replacement options). */
  function checkAgainstView(current: ShopperReturnsView, lines: ReturnFormLine[]) {
    const asked = lines.filter((line) => line.quantity > 0);
    for (const line of asked) {
      const offered = current.lines[line.index];
      if (!offered) throw new AppError("BAD_REQUEST", "That item is not in this order.");
      if (line.quantity > offered.returnable)
        throw new AppError(
          "BAD_REQUEST",
          offered.returnable > 0
            ? `You can return at most ${offered.returnable} of ${offered.title}.`
            : `${offered.title} cannot be returned.`,
          { details: { field: `quantity-${line.index}` } },
        );
      if (line.resolution === "replace") {
        if (offered.replacements.length === 0)
          throw new AppError("BAD_REQUEST", `${offered.title} has no other option in stock: choose Refund.`, {
            details: { field: `resolution-${line.index}` },
          });
        if (!offered.replacements.some((option) => option.variantId === line.replacementVariantId))
          throw new AppError("BAD_REQUEST", `Choose the option to replace ${offered.title} with.`, {
            details: { field: `replacement-${line.index}` },
          });
      }
    }
    if (asked.length === 0)
      throw new AppError("BAD_REQUEST", "Choose how many of an item to return.", { details: { field: "form" } });
    return asked;
  }

  return {
    /** The order page's returns section. */
    shopperReturns: view,

    /** "Refund: $x" for what the form asks: the refund function's figure with the shop's return fee. */
    async quoteReturnRequest(orderId: string, lines: ReturnFormLine[]): Promise<number> {
      const current = await view(orderId);
      const asked = checkAgainstView(current, lines);
      const order = toReturnableOrder(await loadOrder(orderId));
      const figure = figureReturn(order, await earlierRefunds(db, order), {
        lines: asked.map((line) => ({
          ...line,
          replacementPriceCents: current.lines[line.index]!.replacements.find(
            (option) => option.variantId === line.replacementVariantId,
          )?.priceCents,
        })),
        includeShipping: false,
        returnFeeCents: current.feeCents,
      });
      return figure.totalCents;
    },

    /** "Request return": within the window, lines as offered; opened once per request key. */
    async requestReturn(orderId: string, lines: ReturnFormLine[], requestKey: string) {
      const current = await view(orderId);
      if (!current.canRequest)
        throw new AppError("BAD_REQUEST", "This order can no longer be returned.", { details: { field: "form" } });
      const asked = checkAgainstView(current, lines);
      return db.transaction().execute((trx) =>
        openReturn(trx, email, {
          orderId,
          kind: "return",
          lines: asked.map((line) => ({
            index: line.index,
            quantity: line.quantity,
            reason: line.reason,
            resolution: line.resolution,
            replacementVariantId: line.resolution === "replace" ? line.replacementVariantId : null,
          })),
          requestedBy: "shopper",
          requestKey: `shopper:${orderId}:${requestKey}`,
          returnFeeCents: current.feeCents,
        }),
      );
    },
  };
}
