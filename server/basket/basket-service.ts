// Baskets in the database: each change one statement guarded by the basket's revision (a lost race retried under its
// row lock), the lines read with their variants, and a paid order's items taken out.

import { sql, type Transaction as KyselyTransaction } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { EMPTY_BASKET, type BasketCount, type BasketView } from "#shared/basket";
import { BASKET_FULL_MESSAGE, BASKET_LINE_FULL_MESSAGE } from "#shared/basket-messages";
import { chooseOptionMessage, NO_SUCH_COMBINATION_MESSAGE, resolveChosenVariant } from "#shared/catalogue";
import { AppError } from "#shared/errors";
import { canBeSold, onlyLeftInStockMessage, OUT_OF_STOCK_MESSAGE, sellableQuantity } from "#shared/stock";
import type { CatalogueService, VariantForSale } from "#server/catalogue/catalogue-service";
import type { DB } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";
import type { Database } from "#server/db/schema";
import type { Logger } from "#server/logger";
import type { GiftCardLine } from "#shared/gift-cards";

/** A gift card already in the basket for someone else: one line is one recipient's. */
export const GIFT_CARD_LINE_TAKEN_MESSAGE =
  "This gift card is already in your basket for someone else. Pay for it first, or remove it to change who it is for.";
import { isStartedNow, ownerColumn, perOwnerColumn, type BasketOwner } from "./basket-owner";
import {
  findLine,
  mergeLines,
  priceLines,
  refuseQuantity,
  subtractPaid,
  type PaidQuantity,
  type StoredLine,
} from "./basket-rules";

type Transaction = KyselyTransaction<Database>;

const refusals = {
  BASKET_LINE_FULL: BASKET_LINE_FULL_MESSAGE,
  BASKET_FULL: BASKET_FULL_MESSAGE,
} as const;

/**
 * Whose basket a change goes into: the owner, or how to get one. A route hands the latter, so that a guest session
 * is started only once the product is known to be for sale (an unknown product starts none).
 */
export type OwnerOnDemand = BasketOwner | (() => Promise<BasketOwner>);

function resolveOwner(owner: OwnerOnDemand): Promise<BasketOwner> {
  return typeof owner === "function" ? owner() : Promise.resolve(owner);
}

/**
 * The number on the header's basket: the sum of its lines' quantities, 0 for none. One expression, so that the count
 * read with the session (server/sessions) is the one `countItems` reads.
 */
export const basketItemCount = sql<number>`coalesce(sum(basket_items.quantity), 0)::int`;

/** Refuses a quantity the rules do not allow, with the sentence the shopper sees. */
function assertQuantityAllowed(lines: readonly StoredLine[], variantId: string, quantity: number): void {
  const refusal = refuseQuantity(lines, variantId, quantity);
  if (refusal) throw new AppError(refusal, refusals[refusal]);
}

export function createBasketService(db: DB, catalogue: CatalogueService, logger: Logger) {
  /** A basket's lines as one JSON column, in line order, of a statement that reads the basket (`basketId`: its id). */
  function linesColumn(basketId: "baskets.id" | "counted.id") {
    return jsonArrayFrom(
      db
        .selectFrom("basket_items")
        .select([
          sql<string>`basket_items.id::text`.as("id"),
          "basket_items.product_id",
          "basket_items.variant_id",
          "basket_items.quantity",
          "basket_items.added_price_cents",
          "basket_items.gift_card",
        ])
        .where(sql<boolean>`basket_items.basket_id = ${sql.ref(basketId)}`)
        .orderBy("basket_items.id"),
    );
  }

  /** A basket as `getBasket` reads it, by either owner column: built and compiled once, every checkout reads one. */
  const readBasketBy = (column: "user_id" | "session_id") =>
    preparedStatement(db, ["owner"], (db, values: { owner: string }) =>
      db
        .selectFrom("baskets")
        .select([
          "baskets.revision",
          linesColumn("baskets.id").as("lines"),
          catalogue
            .variantsForSaleColumn(
              sql<string>`(select bi.variant_id from basket_items bi where bi.basket_id = baskets.id)`,
            )
            .as("variants"),
        ])
        .where(`baskets.${column}`, "=", values.owner),
    );
  const readBasketView = perOwnerColumn(readBasketBy);

  async function readLines(executor: DB | Transaction, basketId: string): Promise<StoredLine[]> {
    const rows = await executor
      .selectFrom("basket_items")
      .select(["id", "product_id", "variant_id", "quantity", "added_price_cents", "gift_card"])
      .where("basket_id", "=", basketId)
      .orderBy("id")
      .execute();
    return rows.map(toStoredLine);
  }

  /**
   * The lines priced with their variants now. A change passes the variant it has just read (`known`): a basket of
   * that variant alone needs no second read.
   */
  async function view(lines: StoredLine[], revision: number, known?: VariantForSale): Promise<BasketView> {
    if (lines.length === 0) return { ...EMPTY_BASKET, revision };
    const variants =
      known && lines.every((line) => line.variantId === known.variant.id)
        ? new Map([[known.variant.id, known]])
        : await catalogue.findVariants(lines.map((line) => line.variantId));
    return { ...priceLines(lines, variants), revision };
  }

  /** The variant a request names (or the product's first), with its price and stock now; a refusal for one not in the catalogue. */
  async function findVariant(productId: string, variantId?: string): Promise<VariantForSale> {
    const found = await catalogue.findVariantOfProduct(productId, variantId);
    if (!found) {
      throw new AppError(
        "UNKNOWN_PRODUCT",
        "That product is not in our catalogue, so it could not be added to your basket.",
      );
    }
    return found;
  }

  /**
   * The variant of an add: the one named, or, with none named, the product's only one. A product sold in options is
   * never added without a choice: a card, or a caller, that names none is asked for the first option ("Choose a
   * Size.") rather than given the first variant.
   */
  async function findVariantToAdd(productId: string, variantId: string | undefined): Promise<VariantForSale> {
    const found = await findVariant(productId, variantId);
    const [firstOption] = found.optionNames;
    if (variantId === undefined && firstOption !== undefined)
      throw new AppError("OPTION_REQUIRED", chooseOptionMessage(firstOption), { details: { optionPosition: 1 } });
    return found;
  }

  /** Refuses a variant that is out of stock (without back-orders): 409 "This item is out of stock.", nothing changed. */
  function assertInStock(found: VariantForSale): void {
    if (!canBeSold(found.variant.stock))
      throw new AppError("OUT_OF_STOCK", OUT_OF_STOCK_MESSAGE, { details: { variantId: found.variant.id } });
  }

  /** The view with "Only N left in stock" beside the line the shopper asked more of than there is. */
  function sayCapped(basket: BasketView, variantId: string, left: number): BasketView {
    return {
      ...basket,
      items: basket.items.map((line) =>
        line.variant.id === variantId ? { ...line, stockMessage: onlyLeftInStockMessage(left) } : line,
      ),
    };
  }

  /** Counts the owner's basket's revision up, which locks its row until the transaction ends; undefined without a basket. */
  async function countUp(
    trx: DB | Transaction,
    owner: BasketOwner,
  ): Promise<{ id: string; revision: number } | undefined> {
    return countUpStatement(trx, owner).returning(["id", "revision"]).executeTakeFirst();
  }

  /** The owner's basket moved on a revision: the statement, for countUp and for a statement that reads with it. */
  function countUpStatement(trx: DB | Transaction, owner: BasketOwner) {
    const { column, value } = ownerColumn(owner);
    return countUpBy(trx, column, value);
  }

  function countUpBy(trx: DB | Transaction, column: "user_id" | "session_id", value: string) {
    return trx
      .updateTable("baskets")
      .set({ revision: sql`revision + 1`, updated_at: sql`now()` })
      .where(column, "=", value);
  }

  /** The revision moved on and the lines read, by either owner column: every order does it, built and compiled once. */
  const countUpAndReadLinesBy = (column: "user_id" | "session_id") =>
    preparedStatement(db, ["owner"], (db, values: { owner: string }) =>
      db
        .with("counted", () => countUpBy(db, column, values.owner).returning("id"))
        .selectFrom("counted")
        .select(linesColumn("counted.id").as("lines")),
    );
  const countUpAndReadLines = perOwnerColumn(countUpAndReadLinesBy);

  /** The owner's basket as one snapshot: its id, revision and lines (one statement, no lock); undefined without one. */
  async function readBasket(
    owner: BasketOwner,
  ): Promise<{ id: string; revision: number; lines: StoredLine[] } | undefined> {
    const { column, value } = ownerColumn(owner);
    const rows = await db
      .selectFrom("baskets")
      .leftJoin("basket_items", "basket_items.basket_id", "baskets.id")
      .select([
        "baskets.id as basket_id",
        "baskets.revision",
        "basket_items.id",
        "basket_items.product_id",
        "basket_items.variant_id",
        "basket_items.quantity",
        "basket_items.added_price_cents",
        "basket_items.gift_card",
      ])
      .where(`baskets.${column}`, "=", value)
      .orderBy("basket_items.id")
      .execute();
    const first = rows[0];
    if (!first) return undefined;
    const lines = rows.flatMap((row) =>
      row.id === null ||
      row.product_id === null ||
      row.variant_id === null ||
      row.quantity === null ||
      row.added_price_cents === null
        ? []
        : [
            toStoredLine({
              id: row.id,
              product_id: row.product_id,
              variant_id: row.variant_id,
              quantity: row.quantity,
              added_price_cents: row.added_price_cents,
              gift_card: row.gift_card,
            }),
          ],
    );
    return { id: first.basket_id, revision: first.revision, lines };
  }

  /**
   * Applies a change to the owner's basket: `decide` looks at the lines and answers the one write to make (or null
   * for none; it throws a refusal). The line and basket limits hold under any interleaving of requests:
   *
   * - First without a lock: the basket is read in one statement, and the write is one statement that also counts the
   *   revision up, and is made only while the revision is still the one read. Two statements, no transaction.
   * - When there is no basket yet, or another change came first, the same decision is taken again under the basket's
   *   row lock, in a transaction: select ... for update takes the lock (and, after waiting for the other change, answers
   *   the row as it left it), then the lines are read in a statement of their own, which sees what it committed, and
   *   the same guarded write is made.
   *
   * A change that changes nothing writes no line and keeps the revision (a basket it had to create stays, empty).
   */
  async function changeBasket(
    owner: BasketOwner,
    decide: (lines: StoredLine[]) => LineWrite | null,
    known?: VariantForSale,
  ): Promise<BasketView> {
    // A session this request has just started has no basket: its first line comes with the basket, in one statement.
    if (isStartedNow(owner)) {
      const write = decide([]);
      const created = write?.kind === "insert" ? await createWithLine(owner, write) : undefined;
      if (write && created) return view(afterWrite([], write, created.lineId), created.revision, known);
    }
    const seen = isStartedNow(owner) ? undefined : await readBasket(owner);
    if (seen) {
      const write = decide(seen.lines);
      if (!write) return view(seen.lines, seen.revision, known);
      const written = await writeIfUnchanged(db, seen.id, seen.revision, write);
      if (written) return view(afterWrite(seen.lines, write, written.lineId), written.revision, known);
    }
    const outcome = await db.transaction().execute(async (trx) => {
      const basket = await lockBasket(trx, owner, { expectNew: !seen });
      const before = basket.isNew ? [] : await readLines(trx, basket.id);
      const write = decide(before);
      if (!write) return { lines: before, revision: basket.revision };
      // Under the lock the revision cannot have moved: the guarded write always goes through.
      const written = await writeIfUnchanged(trx, basket.id, basket.revision, write);
      if (!written) throw new Error("basket: the revision moved under the basket's row lock");
      return { lines: afterWrite(before, write, written.lineId), revision: written.revision };
    });
    return view(outcome.lines, outcome.revision, known);
  }

  /**
   * A new basket (at revision 1, as a first change leaves it) with its first line, in one statement, for an owner that
   * has none; undefined when it had one after all (nothing written: the caller takes the usual way).
   */
  async function createWithLine(
    owner: BasketOwner,
    write: Extract<LineWrite, { kind: "insert" }>,
  ): Promise<{ revision: number; lineId: string | null } | undefined> {
    const { column, value } = ownerColumn(owner);
    const row = await db
      .with("basket", (qb) =>
        qb
          .insertInto("baskets")
          .values({ [column]: value, revision: 1 })
          .onConflict((conflict) => conflict.column(column).doNothing())
          .returning(["id", "revision"]),
      )
      .with("written", (qb) =>
        qb
          .insertInto("basket_items")
          .columns(["basket_id", "product_id", "variant_id", "quantity", "added_price_cents", "gift_card"])
          .expression((eb) =>
            eb
              .selectFrom("basket")
              .select([
                "basket.id",
                sql<string>`${write.productId}::text`.as("product_id"),
                sql<string>`${write.variantId}::text`.as("variant_id"),
                sql<number>`${write.quantity}::int`.as("quantity"),
                sql<number>`${write.priceCents}::int`.as("added_price_cents"),
                sql<string | null>`${write.giftCard ? JSON.stringify(write.giftCard) : null}::jsonb`.as("gift_card"),
              ]),
          )
          .returning("id"),
      )
      .selectFrom("basket")
      .select((eb) => ["basket.revision", eb.selectFrom("written").select("id").limit(1).as("line_id")])
      .executeTakeFirst();
    return row && { revision: row.revision, lineId: row.line_id };
  }

  /**
   * The write and the revision's count-up in one statement, made only if the basket is still at `revision`: the
   * count-up is a compare-and-set on the basket row, and the line's write happens only when it went through. Answers
   * the new revision (and a new line's id), or undefined when another change came first and nothing was written.
   */
  async function writeIfUnchanged(
    executor: DB | Transaction,
    basketId: string,
    revision: number,
    write: LineWrite,
  ): Promise<{ revision: number; lineId: string | null } | undefined> {
    const counted = executor.with("counted", (qb) =>
      qb
        .updateTable("baskets")
        .set({ revision: sql`revision + 1`, updated_at: sql`now()` })
        .where("id", "=", basketId)
        .where("revision", "=", revision)
        .returning("revision"),
    );
    const wentThrough = sql<boolean>`exists (select 1 from counted)`;
    const withWrite =
      write.kind === "insert"
        ? counted.with("written", (qb) =>
            qb
              .insertInto("basket_items")
              .columns(["basket_id", "product_id", "variant_id", "quantity", "added_price_cents", "gift_card"])
              // Typed: parameters in a select list would otherwise be taken as text.
              .expression((eb) =>
                eb
                  .selectFrom("counted")
                  .select([
                    sql<string>`${basketId}::uuid`.as("basket_id"),
                    sql<string>`${write.productId}::text`.as("product_id"),
                    sql<string>`${write.variantId}::text`.as("variant_id"),
                    sql<number>`${write.quantity}::int`.as("quantity"),
                    sql<number>`${write.priceCents}::int`.as("added_price_cents"),
                    sql<string | null>`${write.giftCard ? JSON.stringify(write.giftCard) : null}::jsonb`.as(
                      "gift_card",
                    ),
                  ]),
              )
              .returning("id"),
          )
        : write.kind === "update"
          ? counted.with("written", (qb) =>
              qb
                .updateTable("basket_items")
                .set({
                  quantity: write.quantity,
                  added_price_cents: write.priceCents,
                  ...(write.giftCard === undefined ? {} : { gift_card: JSON.stringify(write.giftCard) }),
                })
                .where("id", "=", write.lineId)
                .where(wentThrough)
                .returning("id"),
            )
          : write.kind === "delete"
            ? counted.with("written", (qb) =>
                qb.deleteFrom("basket_items").where("id", "=", write.lineId).where(wentThrough).returning("id"),
              )
            : counted.with("written", (qb) =>
                qb.deleteFrom("basket_items").where("basket_id", "=", basketId).where(wentThrough).returning("id"),
              );
    const row = await withWrite
      .selectNoFrom((eb) => [
        eb.selectFrom("counted").select("revision").as("revision"),
        eb.selectFrom("written").select("id").limit(1).as("line_id"),
      ])
      .executeTakeFirstOrThrow();
    return row.revision === null ? undefined : { revision: row.revision, lineId: row.line_id };
  }

  /**
   * Locks the owner's basket row for the rest of the transaction, creating the basket if there is none (a new row is
   * this transaction's own until it commits). One statement for a basket that exists; with `expectNew` (none was there
   * a moment ago: a shopper's first add), the basket is created first instead.
   */
  async function lockBasket(
    trx: Transaction,
    owner: BasketOwner,
    { expectNew = false } = {},
  ): Promise<{ id: string; revision: number; isNew: boolean }> {
    const { column, value } = ownerColumn(owner);
    const existing = async () => {
      const row = await trx
        .selectFrom("baskets")
        .select(["id", "revision"])
        .where(column, "=", value)
        .forUpdate()
        .executeTakeFirst();
      return row && { ...row, isNew: false };
    };
    const created = async () => {
      const row = await trx
        .insertInto("baskets")
        .values({ [column]: value })
        .onConflict((conflict) => conflict.column(column).doNothing())
        .returning(["id", "revision"])
        .executeTakeFirst();
      return row && { ...row, isNew: true };
    };
    const locked = expectNew ? ((await created()) ?? (await existing())) : ((await existing()) ?? (await created()));
    // Created meanwhile by a racing request: wait for its lock like any other change.
    const raced = locked ?? (await existing());
    if (!raced) throw new Error("basket: the basket row vanished while it was being created");
    return raced;
  }

  /** Merges lines into the owner's basket (locked, created if need be) by the rule of sign-in; counts up once if it changed. */
  async function mergeInto(
    trx: Transaction,
    owner: BasketOwner,
    incoming: StoredLine[],
  ): Promise<{ moved: number; dropped: number }> {
    const { id: basketId } = await lockBasket(trx, owner);
    const { changes, moved, dropped } = mergeLines(await readLines(trx, basketId), incoming);
    for (const change of changes) {
      if (change.lineId)
        await trx
          .updateTable("basket_items")
          .set({ quantity: change.quantity })
          .where("id", "=", change.lineId)
          .execute();
      else {
        await trx
          .insertInto("basket_items")
          .values({
            basket_id: basketId,
            product_id: change.productId,
            variant_id: change.variantId,
            quantity: change.quantity,
            added_price_cents: change.addedPriceCents,
            gift_card: change.giftCard ? JSON.stringify(change.giftCard) : null,
          })
          .execute();
      }
    }
    if (changes.length > 0) await countUp(trx, owner);
    return { moved, dropped };
  }

  return {
    /** The owner's basket, priced. Items and revision come from one statement, so they are one snapshot. */
    async getBasket(owner: BasketOwner | null): Promise<BasketView> {
      if (!owner) return EMPTY_BASKET;
      // Lines, revision and the lines' variants (price and stock now) in one statement: one snapshot, one round trip.
      const { column, value } = ownerColumn(owner);
      const [row] = (await readBasketView[column]({ owner: value })).rows;
      if (!row) return EMPTY_BASKET;
      const lines = row.lines.map(toStoredLine);
      if (lines.length === 0) return { ...EMPTY_BASKET, revision: row.revision };
      return { ...priceLines(lines, catalogue.variantsForSaleFrom(row.variants)), revision: row.revision };
    },

    /** The number of items (not lines), for the header on every page: one cheap statement (count and revision agree). */
    async countItems(owner: BasketOwner | null): Promise<BasketCount> {
      if (!owner) return { count: 0, revision: 0 };
      const { column, value } = ownerColumn(owner);
      const row = await db
        .selectFrom("baskets")
        .leftJoin("basket_items", "basket_items.basket_id", "baskets.id")
        .select(["baskets.revision", basketItemCount.as("count")])
        .where(`baskets.${column}`, "=", value)
        .groupBy("baskets.id")
        .executeTakeFirst();
      return row ? { count: row.count, revision: row.revision } : { count: 0, revision: 0 };
    },

    /**
     * The variant that a product page's option values (one per option, in order; undefined: left unchosen) name: an
     * option left out is "Choose a {option}.", values no variant has "This combination is not available.".
     * Undefined for a product without options (its only variant), or one the catalogue does not hold (addItem says so).
     */
    async findVariantByOptions(
      productId: string,
      values: readonly (string | undefined)[],
    ): Promise<string | undefined> {
      const product = await catalogue.readOptionsAndVariants(productId);
      if (product.options.length === 0) return undefined;
      const chosen = resolveChosenVariant(product, values);
      if (chosen.kind === "missing")
        throw new AppError("OPTION_REQUIRED", chooseOptionMessage(chosen.option), {
          details: { optionPosition: chosen.position },
        });
      if (chosen.kind === "unavailable") throw new AppError("NO_SUCH_COMBINATION", NO_SUCH_COMBINATION_MESSAGE);
      return chosen.variant.id;
    },

    /**
     * Adds one of a variant (or of the only variant of a product without options): a new line, or one more on its
     * line. Unknown products, a product in options without a variant named, a variant that is out of stock (409 "This
     * item is out of stock.") and a full line or basket are refused and change nothing. A line already holding all
     * that is available stays as it is and says "Only N left in stock".
     */
    /**
     * One gift card for the recipient the page names: a new line, or one more on the line of the same card to the
     * same recipient with the same message and day. Another recipient for a card already in the basket is refused:
     * each line sends its cards to one person. "Any amount" prices the line at the amount chosen.
     */
    async addGiftCard(
      owner: OwnerOnDemand,
      productId: string,
      variantId: string | undefined,
      details: GiftCardLine,
    ): Promise<BasketView> {
      const found = await findVariantToAdd(productId, variantId);
      if (!found.giftCard) throw new AppError("BAD_REQUEST", "That product is not a gift card.");
      const giftCard = { ...details, amountCents: found.giftCard === "any_amount" ? details.amountCents : null };
      if (found.giftCard === "any_amount" && giftCard.amountCents === null)
        throw new AppError("INVALID_INPUT", "Enter an amount from $5 to $500.", { details: { field: "amount" } });
      const priceCents = giftCard.amountCents ?? found.variant.priceCents;
      const { id } = found.variant;
      return changeBasket(
        await resolveOwner(owner),
        (lines) => {
          const line = findLine(lines, id);
          if (line?.giftCard && JSON.stringify(line.giftCard) !== JSON.stringify(giftCard))
            throw new AppError("GIFT_CARD_LINE_TAKEN", GIFT_CARD_LINE_TAKEN_MESSAGE);
          const quantity = (line?.giftCard ? line.quantity : 0) + 1;
          assertQuantityAllowed(lines, id, quantity);
          return line
            ? { kind: "update", lineId: line.lineId, quantity, priceCents, giftCard }
            : { kind: "insert", productId, variantId: id, quantity, priceCents, giftCard };
        },
        found,
      );
    },

    async addItem(owner: OwnerOnDemand, productId: string, variantId?: string): Promise<BasketView> {
      const found = await findVariantToAdd(productId, variantId);
      // A gift card needs its recipient: only its page's form (addGiftCard) adds one.
      if (found.giftCard)
        throw new AppError("INVALID_INPUT", "Enter the recipient's e-mail address.", {
          details: { field: "recipientEmail" },
        });
      assertInStock(found);
      const sellable = sellableQuantity(found.variant.stock);
      const { id, priceCents } = found.variant;
      let capped = false;
      const basket = await changeBasket(
        await resolveOwner(owner),
        (lines) => {
          const held = findLine(lines, id)?.quantity ?? 0;
          const quantity = sellable === null ? held + 1 : Math.min(held + 1, Math.max(sellable, held));
          capped = sellable !== null && held + 1 > sellable;
          if (quantity === held) return null;
          assertQuantityAllowed(lines, id, quantity);
          return setLine(lines, productId, id, quantity, priceCents);
        },
        found,
      );
      return capped && sellable !== null ? sayCapped(basket, id, sellable) : basket;
    },

    /**
     * Sets the quantity of a variant's line (1 to the line limit, within the basket limit). A variant that is not in
     * the basket gets a line: the shopper asked for that many of it. The same quantity again changes nothing. More than
     * is available keeps the available number and says "Only N left in stock".
     */
    async setQuantity(owner: OwnerOnDemand, productId: string, asked: number, variantId?: string): Promise<BasketView> {
      const found = await findVariant(productId, variantId);
      const sellable = sellableQuantity(found.variant.stock);
      if (sellable === 0) assertInStock(found);
      const quantity = sellable === null ? asked : Math.min(asked, sellable);
      const { id, priceCents } = found.variant;
      const basket = await changeBasket(
        await resolveOwner(owner),
        (lines) => {
          const line = findLine(lines, id);
          if (line?.quantity === quantity && line.addedPriceCents === priceCents) return null;
          assertQuantityAllowed(lines, id, quantity);
          return setLine(lines, productId, id, quantity, priceCents);
        },
        found,
      );
      return quantity < asked ? sayCapped(basket, id, quantity) : basket;
    },

    /** Takes a variant's whole line out (without a variant: the product's first line). An id not in the basket changes nothing and is logged. */
    async removeItem(
      owner: BasketOwner,
      productId: string,
      variantId?: string,
    ): Promise<{ basket: BasketView; removed: boolean }> {
      let removed = false;
      const basket = await changeBasket(owner, (lines) => {
        const line = variantId
          ? findLine(lines, variantId)
          : (lines.find((candidate) => candidate.productId === productId) ?? null);
        removed = line !== null;
        return line ? { kind: "delete", lineId: line.lineId } : null;
      });
      if (!removed)
        logger.warn({ productId, variantId }, "basket: remove asked for a product that is not in the basket");
      return { basket, removed };
    },

    /**
     * At sign-in: the guest basket's lines are merged into the account's basket (quantities of one product add up,
     * within the line and basket limits; items beyond them are dropped and counted), and the guest basket is deleted.
     * One transaction, both baskets locked (an add to either at the same moment waits): nothing is lost or doubled.
     */
    async adoptGuestBasket(sessionId: string, userId: string): Promise<{ moved: number; dropped: number }> {
      return db.transaction().execute(async (trx) => {
        const guestBasket = await countUp(trx, { sessionId });
        if (!guestBasket) return { moved: 0, dropped: 0 };
        const merged = await mergeInto(trx, { userId }, await readLines(trx, guestBasket.id));
        await trx.deleteFrom("baskets").where("id", "=", guestBasket.id).execute();
        return merged;
      });
    },

    /**
     * A basket reminder's "Return to your basket": that basket's lines are merged into the owner's, by the rule of
     * sign-in, and the basket they came from stays as it was (it may be another browser's). False when that basket
     * is gone; nothing to do when it is the owner's own.
     */
    async restoreInto(sourceBasketId: string, owner: BasketOwner): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const source = await trx
          .selectFrom("baskets")
          .select("id")
          .where("id", "=", sourceBasketId)
          .forShare()
          .executeTakeFirst();
        if (!source) return false;
        const { column, value } = ownerColumn(owner);
        const own = await trx.selectFrom("baskets").select("id").where(column, "=", value).executeTakeFirst();
        if (own?.id === sourceBasketId) return true;
        const incoming = await readLines(trx, sourceBasketId);
        // The same link followed again holds nothing new: the lines are there already, and are not doubled.
        const present = own ? await readLines(trx, own.id) : [];
        const isThere = incoming.every((line) => (findLine(present, line.variantId)?.quantity ?? 0) >= line.quantity);
        if (!isThere) await mergeInto(trx, owner, incoming);
        return true;
      });
    },

    /**
     * After an order, inside its transaction: takes the paid quantities out of the owner's basket, under its lock (an
     * add at the same moment waits, and is kept). Anything added after the payment was priced stays, so paying never
     * loses an item the shopper did not pay for.
     */
    async removePaidItems(owner: BasketOwner, paid: readonly PaidQuantity[], executor: Transaction): Promise<void> {
      // The revision moved on and the lines read in one statement (the lines' rows are not what it changes).
      const { column, value } = ownerColumn(owner);
      const [basket] = (await countUpAndReadLines[column]({ owner: value }, executor)).rows;
      if (!basket) return;
      const changes = subtractPaid(basket.lines.map(toStoredLine), paid);
      if (changes.length === 0) return;
      const emptied = changes.filter((change) => change.quantity === 0).map((change) => change.line.lineId);
      if (emptied.length > 0) await executor.deleteFrom("basket_items").where("id", "in", emptied).execute();
      for (const { line, quantity } of changes) {
        if (quantity > 0)
          await executor.updateTable("basket_items").set({ quantity }).where("id", "=", line.lineId).execute();
      }
    },

    /** Clears the owner's basket. */
    async emptyBasket(owner: BasketOwner): Promise<BasketView> {
      return changeBasket(owner, (lines) => (lines.length > 0 ? { kind: "clear" } : null));
    },
  };
}

export type BasketService = ReturnType<typeof createBasketService>;

/** The one write a basket change makes to its lines. */
type LineWrite =
  | {
      kind: "insert";
      productId: string;
      variantId: string;
      quantity: number;
      priceCents: number;
      giftCard?: GiftCardLine | null;
    }
  /** `giftCard` undefined: the line's stays as it is. */
  | { kind: "update"; lineId: string; quantity: number; priceCents: number; giftCard?: GiftCardLine | null }
  | { kind: "delete"; lineId: string }
  | { kind: "clear" };

/**
 * Sets a variant's line to `quantity`: a new line (at the catalogue's price now), or the line re-priced, as the shopper
 * chose it at today's price.
 */
function setLine(
  lines: readonly StoredLine[],
  productId: string,
  variantId: string,
  quantity: number,
  priceCents: number,
): LineWrite {
  const line = findLine(lines, variantId);
  return line
    ? { kind: "update", lineId: line.lineId, quantity, priceCents }
    : { kind: "insert", productId, variantId, quantity, priceCents };
}

/** The lines after a write, without reading them again: a new line comes last, as its identity is the highest. */
function afterWrite(lines: readonly StoredLine[], write: LineWrite, newLineId: string | null): StoredLine[] {
  switch (write.kind) {
    case "insert":
      if (newLineId === null) throw new Error("basket: a new line was written without its id");
      return [
        ...lines,
        {
          lineId: newLineId,
          productId: write.productId,
          variantId: write.variantId,
          quantity: write.quantity,
          addedPriceCents: write.priceCents,
          giftCard: write.giftCard ?? null,
        },
      ];
    case "update":
      return lines.map((line) =>
        line.lineId === write.lineId
          ? {
              ...line,
              quantity: write.quantity,
              addedPriceCents: write.priceCents,
              ...(write.giftCard === undefined ? {} : { giftCard: write.giftCard }),
            }
          : line,
      );
    case "delete":
      return lines.filter((line) => line.lineId !== write.lineId);
    case "clear":
      return [];
  }
}

function toStoredLine(row: {
  id: string;
  product_id: string;
  variant_id: string;
  quantity: number;
  added_price_cents: number;
  gift_card?: GiftCardLine | null;
}): StoredLine {
  return {
    lineId: String(row.id),
    productId: row.product_id,
    variantId: row.variant_id,
    quantity: row.quantity,
    addedPriceCents: row.added_price_cents,
    ...(row.gift_card ? { giftCard: row.gift_card } : {}),
  };
}
