import { sql, type Transaction as KyselyTransaction } from "kysely";
import { BASKET_ITEM_LIMIT, EMPTY_BASKET, type BasketCount, type BasketView } from "../../shared/basket";
import { AppError } from "../../shared/errors";
import type { CatalogueService } from "../catalogue/catalogue-service";
import type { DB } from "../db/client";
import type { Database } from "../db/schema";
import type { Logger } from "../logger";
import { canAddItem, findItemToRemove, findPaidItems, priceItems, type StoredItem } from "./basket-rules";

/** Who a basket belongs to: a guest through their browser session, or an account (whatever browser it is in). */
export type BasketOwner = { sessionId: string } | { userId: string };

/** The column that names the owner, and its value. */
function ownerKey(owner: BasketOwner) {
  return "userId" in owner ? ({ column: "user_id", value: owner.userId } as const) : ({ column: "session_id", value: owner.sessionId } as const);
}

type Transaction = KyselyTransaction<Database>;

export function createBasketService(db: DB, catalogue: CatalogueService, logger: Logger) {
  async function readItems(executor: DB | Transaction, basketId: string): Promise<StoredItem[]> {
    const rows = await executor
      .selectFrom("basket_items")
      .select(["id", "product_id"])
      .where("basket_id", "=", basketId)
      .orderBy("id")
      .execute();
    return rows.map((row) => ({ itemId: String(row.id), productId: row.product_id }));
  }

  async function view(items: StoredItem[], revision: number): Promise<BasketView> {
    if (items.length === 0) return { ...EMPTY_BASKET, revision };
    const products = await catalogue.findProducts(items.map((item) => item.productId));
    return { ...priceItems(items, products), revision };
  }

  async function findBasketId(executor: DB | Transaction, owner: BasketOwner): Promise<string | undefined> {
    const { column, value } = ownerKey(owner);
    const row = await executor.selectFrom("baskets").select("id").where(column, "=", value).executeTakeFirst();
    return row?.id;
  }

  /** Counts the basket's revision up: every change does, inside its transaction. */
  async function bumpRevision(trx: DB | Transaction, basketId: string): Promise<number> {
    const row = await trx
      .updateTable("baskets")
      .set({ revision: sql`revision + 1`, updated_at: sql`now()` })
      .where("id", "=", basketId)
      .returning("revision")
      .executeTakeFirstOrThrow();
    return row.revision;
  }

  /**
   * Runs a change to one basket under its row lock (select ... for update), so concurrent requests for the same
   * basket take turns: the item limit and "remove the first match" hold under any interleaving. The revision counts
   * up only when the change says it changed something.
   */
  async function changeBasket<T>(
    owner: BasketOwner,
    change: (trx: Transaction, basketId: string, items: StoredItem[]) => Promise<{ result: T; changed: boolean }>,
  ): Promise<{ result: T; revision: number }> {
    return db.transaction().execute(async (trx) => {
      const { id: basketId, revision } = await lockBasket(trx, owner);
      const items = await readItems(trx, basketId);
      const { result, changed } = await change(trx, basketId, items);
      return { result, revision: changed ? await bumpRevision(trx, basketId) : revision };
    });
  }

  /**
   * Locks the owner's basket row for the rest of the transaction, creating the basket first if there is none. The
   * usual case, a basket that exists, is one statement; and a change that changes nothing writes nothing.
   */
  async function lockBasket(trx: Transaction, owner: BasketOwner): Promise<{ id: string; revision: number }> {
    const { column, value } = ownerKey(owner);
    const lock = () => trx.selectFrom("baskets").select(["id", "revision"]).where(column, "=", value).forUpdate().executeTakeFirst();
    const existing = await lock();
    if (existing) return existing;
    await trx
      .insertInto("baskets")
      .values({ [column]: value })
      .onConflict((conflict) => conflict.column(column).doNothing())
      .execute();
    return (await lock()) ?? Promise.reject(new Error("basket: the basket row vanished while it was being created"));
  }

  /** Only catalogue products go in a basket. */
  async function assertInCatalogue(productId: string): Promise<void> {
    const products = await catalogue.findProducts([productId]);
    if (!products.has(productId)) {
      throw new AppError("UNKNOWN_PRODUCT", "That product is not in our catalogue, so it could not be added to your basket.");
    }
  }

  return {
    /** The owner's basket, priced. Items and revision come from one statement, so they are one snapshot. */
    async getBasket(owner: BasketOwner | null): Promise<BasketView> {
      if (!owner) return EMPTY_BASKET;
      const { column, value } = ownerKey(owner);
      const rows = await db
        .selectFrom("baskets")
        .leftJoin("basket_items", "basket_items.basket_id", "baskets.id")
        .select(["baskets.revision", "basket_items.id", "basket_items.product_id"])
        .where(`baskets.${column}`, "=", value)
        .orderBy("basket_items.id")
        .execute();
      if (rows.length === 0) return EMPTY_BASKET;
      const items = rows.flatMap((row) => (row.id === null || row.product_id === null ? [] : [{ itemId: String(row.id), productId: row.product_id }]));
      return view(items, rows[0]!.revision);
    },

    /** The number of items, for the header on every page: one cheap statement (count and revision agree). */
    async countItems(owner: BasketOwner | null): Promise<BasketCount> {
      if (!owner) return { count: 0, revision: 0 };
      const { column, value } = ownerKey(owner);
      const row = await db
        .selectFrom("baskets")
        .leftJoin("basket_items", "basket_items.basket_id", "baskets.id")
        .select(["baskets.revision", sql<number>`count(basket_items.id)::int`.as("count")])
        .where(`baskets.${column}`, "=", value)
        .groupBy("baskets.id")
        .executeTakeFirst();
      return row ? { count: row.count, revision: row.revision } : { count: 0, revision: 0 };
    },

    assertInCatalogue,

    /** Appends a catalogue product. Unknown products and a full basket are refused and change nothing. */
    async addItem(owner: BasketOwner, productId: string): Promise<BasketView> {
      await assertInCatalogue(productId);
      const { result: items, revision } = await changeBasket(owner, async (trx, basketId, items) => {
        if (!canAddItem(items)) {
          throw new AppError("BASKET_FULL", `Your basket is full: it holds at most ${BASKET_ITEM_LIMIT} items.`);
        }
        const row = await trx.insertInto("basket_items").values({ basket_id: basketId, product_id: productId }).returning("id").executeTakeFirstOrThrow();
        return { result: [...items, { itemId: String(row.id), productId }], changed: true };
      });
      return view(items, revision);
    },

    /** Takes out the first item with this product id. An id that is not in the basket changes nothing and is logged. */
    async removeItem(owner: BasketOwner, productId: string): Promise<{ basket: BasketView; removed: boolean }> {
      const {
        result: { items, removed },
        revision,
      } = await changeBasket(owner, async (trx, _basketId, items) => {
        const item = findItemToRemove(items, productId);
        if (!item) return { result: { items, removed: false }, changed: false };
        await trx.deleteFrom("basket_items").where("id", "=", item.itemId).execute();
        return { result: { items: items.filter((candidate) => candidate !== item), removed: true }, changed: true };
      });
      if (!removed) logger.warn({ productId }, "basket: remove asked for a product that is not in the basket");
      return { basket: await view(items, revision), removed };
    },

    /**
     * At sign-in: the guest basket's items are appended to the account's basket (up to the item limit; any beyond
     * it are dropped and counted), and the guest basket is deleted. One transaction: nothing is lost or doubled.
     */
    async adoptGuestBasket(sessionId: string, userId: string): Promise<{ moved: number; dropped: number }> {
      return db.transaction().execute(async (trx) => {
        const guestBasketId = await findBasketId(trx, { sessionId });
        if (!guestBasketId) return { moved: 0, dropped: 0 };
        const { id: accountBasketId } = await lockBasket(trx, { userId });
        const guestItems = await readItems(trx, guestBasketId);
        const room = Math.max(0, BASKET_ITEM_LIMIT - (await readItems(trx, accountBasketId)).length);
        const moving = guestItems.slice(0, room);
        if (moving.length > 0) {
          await trx
            .insertInto("basket_items")
            .values(moving.map((item) => ({ basket_id: accountBasketId, product_id: item.productId })))
            .execute();
          await bumpRevision(trx, accountBasketId);
        }
        await trx.deleteFrom("baskets").where("id", "=", guestBasketId).execute();
        return { moved: moving.length, dropped: guestItems.length - moving.length };
      });
    },

    /**
     * After an order, inside its transaction: takes the paid items out of the owner's basket. Anything added after
     * the payment was priced stays, so paying never loses an item the shopper did not pay for.
     */
    async removePaidItems(owner: BasketOwner, paidProductIds: readonly string[], executor: DB | Transaction): Promise<void> {
      const basketId = await findBasketId(executor, owner);
      if (!basketId) return;
      const paid = findPaidItems(await readItems(executor, basketId), paidProductIds);
      if (paid.length === 0) return;
      await executor.deleteFrom("basket_items").where("id", "in", paid.map((item) => item.itemId)).execute();
      await bumpRevision(executor, basketId);
    },

    /** Clears the owner's basket. */
    async emptyBasket(owner: BasketOwner): Promise<BasketView> {
      const { revision } = await changeBasket(owner, async (trx, basketId, items) => {
        if (items.length > 0) await trx.deleteFrom("basket_items").where("basket_id", "=", basketId).execute();
        return { result: undefined, changed: items.length > 0 };
      });
      return { ...EMPTY_BASKET, revision };
    },
  };
}

export type BasketService = ReturnType<typeof createBasketService>;
