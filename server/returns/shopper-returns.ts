// Returns on the shopper's side: what an order's page offers to return, and the request it sends, opened through
// openReturn.

import type { DB } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import { hasAvailableStock, type InventoryService } from "#server/inventory/inventory-service";
import { signedOrderPath } from "#server/orders/order-access";
import type { ReturnPolicy } from "#server/settings/shop-settings-service";
import { AppError } from "#shared/errors";
import { describeItemOptions, type FulfilmentStatus, type OrderDetail, type OrderItem } from "#shared/orders";
import {
  RETURN_STATUS_LABELS,
  returnReasonLabel,
  type ReturnKind,
  type ReturnReason,
  type ReturnResolution,
  type ReturnStatus,
} from "#shared/returns";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { openReturn } from "./open-return";
import { firstShippedAt, readOrderAfterSale, returnableAfterSale, type OrderAfterSale } from "./order-after-sale";
import { earlierRefunds, figureReturn, toReturnableOrder, type ReturnableOrder } from "./return-lines";

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
    /** The $0.00 order sent in its place: its number, and its page by the guest's signed link. */
    replacementOrder: { number: string; signedPath: string } | null;
    lines: { title: string; quantity: number; reason: string; resolution: ReturnResolution }[];
  }[];
}

/** An order as its returns section needs it: what returns figure from, its fulfilment, and when it first shipped. */
interface OrderForReturns {
  order: ReturnableOrder;
  fulfilmentStatus: FulfilmentStatus;
  shippedAt: Date | null;
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

  /** The order as the returns section reads it, by its id (the form's requests): its row and first "Shipped". */
  async function readOrderForReturns(orderId: string): Promise<OrderForReturns> {
    const [row, shipped] = await Promise.all([
      loadOrder(orderId),
      db
        .selectFrom("order_status_history")
        .select("created_at")
        .where("order_id", "=", orderId)
        .where("status", "=", "shipped")
        .orderBy("id")
        .executeTakeFirst(),
    ]);
    return {
      order: toReturnableOrder(row),
      fulfilmentStatus: row.fulfilment_status,
      shippedAt: shipped?.created_at ?? null,
    };
  }

  /** The variants of the order's products, each with its options' description, in one statement. */
  async function productVariants(items: readonly OrderItem[]) {
    const productIds = [...new Set(items.map((item) => item.productId))];
    if (productIds.length === 0) return [];
    const rows = await db
      .selectFrom("product_variants as v")
      .select(["v.id", "v.product_id", "v.price_cents", "v.option_values"])
      .select((eb) =>
        jsonArrayFrom(
          eb
            .selectFrom("product_options as o")
            .select("o.name")
            .whereRef("o.product_id", "=", "v.product_id")
            .orderBy("o.position"),
        ).as("option_names"),
      )
      .where("v.product_id", "in", productIds)
      .orderBy("v.position")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      productId: row.product_id,
      priceCents: row.price_cents,
      // "Size: M, Colour: Black", as variantDescriptions says it.
      description: row.option_values
        .map((value, position) => `${row.option_names[position]?.name ?? "Option"}: ${value}`)
        .join(", "),
    }));
  }

  /** Each line's replacement options: other variants of its product, in stock, priced at most what it was. */
  async function replacementOptions(
    items: readonly OrderItem[],
    variants: Awaited<ReturnType<typeof productVariants>>,
  ) {
    const levels = await inventory.getLevels(variants.map((variant) => variant.id));
    return items.map((item) =>
      variants
        .filter(
          (variant) =>
            variant.productId === item.productId &&
            variant.id !== (item.variantId ?? item.productId) &&
            variant.priceCents <= item.priceCents &&
            (levels.get(variant.id) ? hasAvailableStock(levels.get(variant.id)!) : true),
        )
        .map((variant) => ({
          variantId: variant.id,
          label: variant.description || item.title,
          priceCents: variant.priceCents,
        })),
    );
  }

  /**
   * The returns section of an order already read. Reads the order's returns (and withdrawals, for its offer) in one
   * statement; only an order whose window is open also reads its products' variants, in the same batch, and their
   * stock after. `everyReplacement` reads the replacement options whatever the window (the form's own requests).
   */
  async function view(
    read: OrderForReturns,
    { everyReplacement = false }: { everyReplacement?: boolean } = {},
  ): Promise<{ view: ShopperReturnsView; afterSale: OrderAfterSale }> {
    const { order, shippedAt } = read;
    // Kept per catalogue version: the page has read the settings already, so this sends nothing.
    const policy = await settings.returnPolicy();
    const windowEndsAt = shippedAt ? new Date(shippedAt.getTime() + policy.windowDays * DAY_MS) : null;
    const isShipped = read.fulfilmentStatus === "shipped" || read.fulfilmentStatus === "partially_returned";
    const windowOpen =
      isShipped && policy.windowDays > 0 && windowEndsAt !== null && windowEndsAt.getTime() >= Date.now();
    const withOptions = windowOpen || everyReplacement;
    const [afterSale, variants] = await Promise.all([
      readOrderAfterSale(db, order.id),
      withOptions ? productVariants(order.items) : Promise.resolve([]),
    ]);
    const returnable = returnableAfterSale(order.items, afterSale);
    const canRequest = windowOpen && returnable.some((left) => left > 0);
    const options = canRequest || everyReplacement ? await replacementOptions(order.items, variants) : [];
    return {
      afterSale,
      view: {
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
        returns: afterSale.returns.map((made) => ({
          number: made.number,
          kind: made.kind,
          status: made.status,
          statusLabel: RETURN_STATUS_LABELS[made.status],
          createdAt: made.createdAt.toISOString(),
          refundCents: made.refundCents,
          declineMessage: made.status === "declined" ? made.decisionMessage : null,
          replacementOrder: made.replacementOrder && {
            number: made.replacementOrder.number,
            signedPath: signedOrderPath(made.replacementOrder),
          },
          lines: made.lines.map((line) => ({
            title: order.items[line.lineIndex]?.title ?? "",
            quantity: line.quantity,
            reason: returnReasonLabel(line.reason),
            resolution: line.resolution,
          })),
        })),
      },
    };
  }

  /** The section as the form's requests check it: by the order's id, every replacement option read. */
  async function viewById(orderId: string) {
    return (await view(await readOrderForReturns(orderId), { everyReplacement: true })).view;
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
    /** The returns section of an order by its id. */
    shopperReturns: viewById,

    /**
     * The order page's returns section, of the order the page has read (its detail, with its history): and what was
     * read for it, which the withdrawal offer works from too.
     */
    async orderPageReturns(order: OrderDetail) {
      return view({
        order: {
          id: order.id,
          number: order.number,
          items: order.items,
          pricing: order.pricing,
          amountCents: order.amountCents,
          refundedCents: order.refundedCents,
        },
        fulfilmentStatus: order.fulfilmentStatus,
        shippedAt: firstShippedAt(order),
      });
    },

    /** "Refund: $x" for what the form asks: the refund function's figure with the shop's return fee. */
    async quoteReturnRequest(orderId: string, lines: ReturnFormLine[]): Promise<number> {
      const current = await viewById(orderId);
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
      const current = await viewById(orderId);
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
