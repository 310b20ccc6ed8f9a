// Stock: reservations for payments, sales, releases and restocks, the operator's and an import's edits, each change a
// stock_ledger row; and the moment a variant comes back in stock.

import { sql } from "kysely";
import { AppError } from "#shared/errors";
import { availabilityWord, onlyLeftOfMessage, type VariantStock } from "#shared/stock";
import type { DB, Writer } from "#server/db/client";
import type { StockLedgerReason } from "#server/db/schema";
import type { Logger } from "#server/logger";
import { inBatches } from "#server/db/in-batches";
import type { HoldClaims, Holder } from "#server/holds/hold-claims";
import { availableOf, reservedOfVariant } from "./available-stock";

/** Default: how long a payment holds the basket's tracked stock (RESERVATION_MINUTES). */
export const DEFAULT_RESERVATION_MINUTES = 15;
/** How often expired reservations are released (and guest pages told, when that changes what they say). */
export const RESERVATION_SWEEP_MS = 5_000;
/** Hold claims end minutes after their cool-down: pruning them every sixth beat (30 s) keeps an idle shop quiet. */
const CLAIM_PRUNE_BEATS = 6;

/** A quantity of one variant, as a payment or an order lists it; title and values name it in a refusal. */
export interface StockLine {
  variantId: string;
  quantity: number;
  title?: string;
  optionValues?: readonly string[];
  /**
   * Whether the variant tracked stock when the caller read it (a basket's line). A new hold whose lines all say no
   * reads nothing and holds nothing: as if it had locked them a moment earlier and found nothing to count.
   */
  tracksStock?: boolean;
}

/** One variant's stock right now. */
export interface StockLevel extends VariantStock {
  variantId: string;
  productId: string;
  onHand: number;
  /** Live reservations (not expired) counted against it. */
  reserved: number;
}

/**
 * Whether a shopper can have the variant now: it does not track stock, or more than 0 is available. A variant going
 * from not having it to having it is "back in stock", whatever brought it back.
 */
export function hasAvailableStock(stock: VariantStock): boolean {
  return !stock.tracksStock || stock.available === null || stock.available > 0;
}

/** Told, inside the transaction of the stock change, which variants it brought back in stock. */
export type BackInStockListener = (trx: Writer, variantIds: string[]) => Promise<unknown>;

/** A row of the stock ledger as the console shows it. */
export interface LedgerEntry {
  id: string;
  variantId: string;
  reason: StockLedgerReason;
  counts: "on_hand" | "available";
  quantityBefore: number;
  quantityAfter: number;
  actor: string;
  reference: string | null;
  /** ISO 8601. */
  at: string;
}

/**
 * Stock: the one module that writes a variant's on-hand quantity, the reservations held against it and the ledger.
 * Every write locks the variants it touches (in id order, so two writers never wait on each other in a circle) before
 * it reads what is available, so two instances on one PostgreSQL never both sell the last unit.
 *
 * - reserve: POST /payments/create holds the basket's tracked quantities for the payment (hold = its intent id, or a
 *   key of its own while the intent is being created), replacing what the hold (or the holds it replaces) held. Short
 *   stock is refused with "Only N left of {title} ({values})" and nothing changes.
 * - sell: in the transaction that records the order, the hold's reservations become a sale (on hand goes down). A
 *   payment that succeeded after its reservation lapsed is sold all the same: on hand may go below zero, and the order
 *   is marked oversold.
 * - release: a cancelled or replaced intent's hold goes; expired reservations go by the sweep.
 *
 * Whenever what a guest page would say of a variant changes ("In stock", "Only N left…", "Out of stock"), the catalogue's
 * version moves in the same transaction, so kept guest pages are rendered again (docs/decisions/017). And whenever a
 * variant's available quantity goes from 0 or below to above 0 (or it stops tracking stock), `onBackInStock` is told
 * in that transaction: this module is the one place that sees every change (an operator's edit, an import through
 * setStock, a restock on refund, a released or expired reservation), so back-in-stock alerts need no other hook.
 */
export function createInventoryService(
  db: DB,
  logger: Logger,
  {
    reservationMinutes = DEFAULT_RESERVATION_MINUTES,
    onBackInStock,
    claims,
    onCatalogueChanged = () => {},
  }: {
    reservationMinutes?: number;
    onBackInStock?: BackInStockListener;
    claims?: HoldClaims;
    /** This instance moved the catalogue's version: its kept pages are asked about at their next read. */
    onCatalogueChanged?: () => void;
  } = {},
) {
  /**
   * Locks the variants' rows until the transaction ends, in id order (two writers never wait on each other in a
   * circle). Answers how many of them track stock, as the locked rows say: when none does, there is no stock to count.
   */
  async function lockVariants(executor: Writer, variantIds: readonly string[]): Promise<number> {
    const ids = [...new Set(variantIds)].sort();
    if (ids.length === 0) return 0;
    const rows = await executor
      .selectFrom("product_variants")
      .select(["id", "tracks_stock"])
      .where("id", "in", ids)
      .orderBy("id")
      .forUpdate()
      .execute();
    return rows.filter((row) => row.tracks_stock).length;
  }

  /** The levels with each variant's reserved quantity moved by `quantities` (sign 1: more reserved, -1: fewer). */
  function shiftAvailable(
    levels: ReadonlyMap<string, StockLevel>,
    quantities: ReadonlyMap<string, number>,
    sign: 1 | -1,
  ): Map<string, StockLevel> {
    return new Map(
      [...levels].map(([id, level]) => {
        if (!level.tracksStock || level.available === null) return [id, level];
        const moved = sign * (quantities.get(id) ?? 0);
        return [id, { ...level, reserved: level.reserved + moved, available: level.available - moved }];
      }),
    );
  }

  async function readLevels(
    executor: Writer,
    variantIds: readonly string[],
    { lock = false } = {},
  ): Promise<Map<string, StockLevel>> {
    const ids = [...new Set(variantIds)].sort();
    if (ids.length === 0) return new Map();
    if (lock) await lockVariants(executor, ids);
    const rows = await executor
      .selectFrom("product_variants as v")
      .select(["v.id", "v.product_id", "v.tracks_stock", "v.continue_selling", "v.on_hand"])
      .select(reservedOfVariant.as("reserved"))
      .where("v.id", "in", ids)
      .execute();
    return new Map(
      rows.map((row) => [
        row.id,
        {
          variantId: row.id,
          productId: row.product_id,
          tracksStock: row.tracks_stock,
          continueSelling: row.continue_selling,
          onHand: row.on_hand,
          reserved: row.reserved,
          available: availableOf(row),
        },
      ]),
    );
  }

  /**
   * Moves the catalogue's version when what a guest would read of any of these variants changed. A change to how a
   * variant is counted (tracked, back-orders) may have moved it already: the product's limited-stock flag, which
   * listings filter by, is kept by a trigger (migration 0043). Either way this instance asks for the version at its
   * next read, rather than within the next check's second.
   */
  async function moveVersionIfSeen(
    executor: Writer,
    before: ReadonlyMap<string, VariantStock>,
    after: ReadonlyMap<string, VariantStock>,
  ): Promise<void> {
    let isCountedDifferently = false;
    for (const [id, level] of after) {
      const earlier = before.get(id);
      if (!earlier || availabilityWord(earlier) !== availabilityWord(level)) {
        await sql`update catalogue_version set version = version + 1`.execute(executor);
        onCatalogueChanged();
        return;
      }
      isCountedDifferently ||=
        earlier.tracksStock !== level.tracksStock || earlier.continueSelling !== level.continueSelling;
    }
    if (isCountedDifferently) onCatalogueChanged();
  }

  /**
   * The end of every stock change, in its transaction (the variants locked): guest pages rendered again when what
   * they say changed, and the variants brought back in stock told to `onBackInStock`. `before` must hold every
   * variant in `after`: one missing from it is taken as unchanged.
   */
  async function settleChange(
    executor: Writer,
    before: ReadonlyMap<string, StockLevel>,
    after: ReadonlyMap<string, StockLevel>,
  ): Promise<void> {
    await moveVersionIfSeen(executor, before, after);
    const back = [...after.values()].filter((level) => {
      const earlier = before.get(level.variantId);
      return earlier !== undefined && !hasAvailableStock(earlier) && hasAvailableStock(level);
    });
    if (back.length > 0 && onBackInStock)
      await onBackInStock(
        executor,
        back.map((level) => level.variantId),
      );
  }

  async function writeLedger(
    executor: Writer,
    rows: {
      level: StockLevel;
      reason: StockLedgerReason;
      counts: "on_hand" | "available";
      before: number;
      after: number;
      actor: string;
      reference: string | null;
    }[],
  ): Promise<void> {
    const changed = rows.filter((row) => row.before !== row.after);
    if (changed.length === 0) return;
    await executor
      .insertInto("stock_ledger")
      .values(
        changed.map((row) => ({
          variant_id: row.level.variantId,
          product_id: row.level.productId,
          reason: row.reason,
          counts: row.counts,
          quantity_before: row.before,
          quantity_after: row.after,
          actor: row.actor,
          reference: row.reference,
        })),
      )
      .execute();
  }

  /** Ledger rows for the change of available quantity between two reads (reservations taken or released). */
  function availableChanges(
    before: ReadonlyMap<string, StockLevel>,
    after: ReadonlyMap<string, StockLevel>,
    actor: string,
    reference: string | null,
  ) {
    return [...after.values()].flatMap((level) => {
      const earlier = before.get(level.variantId);
      if (!level.tracksStock || !earlier || earlier.available === null || level.available === null) return [];
      const reason: StockLedgerReason = level.available < earlier.available ? "reserve" : "release";
      return [
        {
          level,
          reason,
          counts: "available" as const,
          before: earlier.available,
          after: level.available,
          actor,
          reference,
        },
      ];
    });
  }

  function sumByVariant(
    lines: readonly { variantId?: string; variant_id?: string; quantity: number }[],
  ): Map<string, number> {
    const sums = new Map<string, number>();
    for (const line of lines) {
      const id = line.variantId ?? line.variant_id ?? "";
      sums.set(id, (sums.get(id) ?? 0) + line.quantity);
    }
    return sums;
  }

  const service = {
    reservationMinutes,

    /** Each variant's stock now (on hand, reserved, available); unknown ids are absent. */
    async getLevels(variantIds: readonly string[], executor: Writer = db): Promise<Map<string, StockLevel>> {
      return readLevels(executor, variantIds);
    },

    /**
     * Holds `lines` for `hold` until RESERVATION_MINUTES from now, in place of whatever `hold` and `replaces` held.
     * Refuses (STOCK_SHORT, 409) when a tracked variant without back-orders has fewer available than asked, counting
     * everyone else's live reservations; then nothing changes. A shopper's hold (`holder`) ends RESERVATION_MINUTES
     * after its first reservation, however often it is taken again, within the caps of server/holds/.
     */
    async reserve(
      hold: string,
      lines: readonly StockLine[],
      {
        replaces = [],
        holder,
        isNew = false,
      }: {
        replaces?: readonly string[];
        holder?: Holder;
        /** `hold` was made for this call: nothing was ever held under it (only `replaces` may hold). */
        isNew?: boolean;
      } = {},
    ): Promise<boolean> {
      const wanted = sumByVariant(lines);
      const earlier = isNew ? replaces : [hold, ...replaces];
      if (earlier.length === 0 && lines.every((line) => line.tracksStock === false)) return false;
      return db.transaction().execute(async (trx) => {
        // Few statements while the variants are locked: every other payment for them waits on these rows.
        const dropped =
          earlier.length === 0
            ? []
            : await trx
                .deleteFrom("stock_reservations")
                .where("hold", "in", earlier)
                .returning(["variant_id", "quantity", sql<boolean>`expires_at > now()`.as("is_live")])
                .execute();
        const touched = [...new Set([...wanted.keys(), ...dropped.map((row) => row.variant_id)])];
        const tracking = await lockVariants(trx, touched);
        // Read after the lock, in a statement of its own: it sees every reservation committed before the lock was given.
        // Nothing tracks stock and nothing was let go: there is nothing to count, hold or tell anyone.
        const free =
          tracking > 0 || dropped.length > 0 ? await readLevels(trx, touched) : new Map<string, StockLevel>();
        for (const line of lines) {
          const level = free.get(line.variantId);
          if (!level?.tracksStock || level.continueSelling) continue;
          const asked = wanted.get(line.variantId) ?? 0;
          if ((level.available ?? 0) < asked) {
            throw new AppError(
              "STOCK_SHORT",
              onlyLeftOfMessage(level.available ?? 0, line.title ?? "this item", line.optionValues ?? []),
              {
                details: { variantId: line.variantId, left: Math.max(0, level.available ?? 0) },
              },
            );
          }
        }
        const rows = [...wanted]
          .filter(([id]) => free.get(id)?.tracksStock)
          .map(([id, quantity]) => ({ hold, variant_id: id, quantity }));
        const names = new Map(lines.map((line) => [line.variantId, nameOf(line)]));
        const endsAt =
          holder && claims
            ? await claims.claim(
                trx,
                "variant",
                holder,
                hold,
                replaces,
                rows.map((row) => ({ item: row.variant_id, units: row.quantity, name: names.get(row.variant_id)! })),
                { isNew },
              )
            : null;
        if (rows.length > 0) {
          await trx
            .insertInto("stock_reservations")
            .values(
              rows.map((row) => ({
                ...row,
                expires_at: endsAt ?? sql<Date>`now() + make_interval(mins => ${reservationMinutes})`,
              })),
            )
            .execute();
        }
        const released = sumByVariant(dropped.filter((row) => row.is_live));
        const before = shiftAvailable(free, released, -1);
        const after = shiftAvailable(free, wanted, 1);
        await writeLedger(trx, availableChanges(before, after, "shopper", hold));
        await settleChange(trx, before, after);
        return rows.length > 0;
      });
    },

    /** A hold taken under its own key becomes its intent's, once the intent exists (two tabs given one intent: the later one's). */
    async renameHold(from: string, to: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .selectFrom("checkout_payments")
          .select("payment_intent_id")
          .where("payment_intent_id", "=", to)
          .forUpdate()
          .execute();
        await claims?.rename(trx, "variant", from, to);
        const moving = await trx.selectFrom("stock_reservations").select("id").where("hold", "=", from).execute();
        if (moving.length === 0) return;
        await trx.deleteFrom("stock_reservations").where("hold", "=", to).execute();
        await trx.updateTable("stock_reservations").set({ hold: to }).where("hold", "=", from).execute();
      });
    },

    /** Gives back what `hold` held (a cancelled or replaced intent, an intent never made). */
    async release(hold: string, actor = "shop"): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await claims?.finish(trx, "variant", hold);
        const held = await trx.selectFrom("stock_reservations").select("variant_id").where("hold", "=", hold).execute();
        if (held.length === 0) return;
        const before = await readLevels(
          trx,
          held.map((row) => row.variant_id),
          { lock: true },
        );
        await trx.deleteFrom("stock_reservations").where("hold", "=", hold).execute();
        const after = await readLevels(trx, [...before.keys()]);
        await writeLedger(trx, availableChanges(before, after, actor, hold));
        await settleChange(trx, before, after);
      });
    },

    /**
     * In the order's own transaction: `hold`'s reservations become a sale of `lines` (on hand goes down by each tracked
     * line's quantity). Answers whether any line was sold beyond what was there for it (its reservation had lapsed and
     * others took the stock): the order is then oversold, and on hand may be below zero.
     */
    async sell(
      trx: Writer,
      hold: string,
      lines: readonly StockLine[],
      reference: string,
    ): Promise<{ oversold: boolean }> {
      const sold = sumByVariant(lines);
      await claims?.finish(trx, "variant", hold);
      // The variants sold and those the hold reserved, locked in one statement, in id order as lockVariants locks
      // them: the hold may name variants no longer in the order (the basket changed after paying began), released here.
      const reservedByHold = trx.selectFrom("stock_reservations").select("variant_id").where("hold", "=", hold);
      const locked = await trx
        .selectFrom("product_variants")
        .select(["id", "tracks_stock"])
        .select((eb) => eb("id", "in", reservedByHold).as("is_held"))
        .where((eb) =>
          eb.or([...(sold.size > 0 ? [eb("id", "in", [...sold.keys()])] : []), eb("id", "in", reservedByHold)]),
        )
        .orderBy("id")
        .forUpdate()
        .execute();
      const touched = locked.map((row) => row.id);
      // Nothing sold tracks stock and the hold held none: nothing to count, sell or tell anyone.
      if (!locked.some((row) => row.tracks_stock || row.is_held)) return { oversold: false };
      const before = await readLevels(trx, touched);
      const ownLive = await trx
        .deleteFrom("stock_reservations")
        .where("hold", "=", hold)
        .returning(["variant_id", "quantity", sql<boolean>`expires_at > now()`.as("is_live")])
        .execute();
      const liveByVariant = sumByVariant(ownLive.filter((row) => row.is_live));
      let oversold = false;
      const ledger = [];
      for (const [variantId, quantity] of sold) {
        const level = before.get(variantId);
        if (!level?.tracksStock) continue;
        const availableToThisOrder = (level.available ?? 0) + (liveByVariant.get(variantId) ?? 0);
        if (!level.continueSelling && availableToThisOrder < quantity) oversold = true;
        await trx
          .updateTable("product_variants")
          .set({ on_hand: sql`on_hand - ${quantity}` })
          .where("id", "=", variantId)
          .execute();
        ledger.push({
          level,
          reason: "sale" as const,
          counts: "on_hand" as const,
          before: level.onHand,
          after: level.onHand - quantity,
          actor: "shop",
          reference,
        });
      }
      await writeLedger(trx, ledger);
      const after = await readLevels(trx, [...new Set([...touched, ...ownLive.map((row) => row.variant_id)])]);
      await settleChange(trx, before, after);
      if (oversold)
        logger.error(
          { reference },
          "inventory: an order was paid after its reservation lapsed and the stock had gone: oversold",
        );
      return { oversold };
    },

    /** Puts refunded items back on hand (the console's refund with "Put the items back in stock"). */
    async restock(trx: Writer, lines: readonly StockLine[], reference: string, actor: string): Promise<void> {
      const returned = sumByVariant(lines);
      const before = await readLevels(trx, [...returned.keys()], { lock: true });
      const ledger = [];
      for (const [variantId, quantity] of returned) {
        const level = before.get(variantId);
        if (!level?.tracksStock) continue;
        await trx
          .updateTable("product_variants")
          .set({ on_hand: sql`on_hand + ${quantity}` })
          .where("id", "=", variantId)
          .execute();
        ledger.push({
          level,
          reason: "restock" as const,
          counts: "on_hand" as const,
          before: level.onHand,
          after: level.onHand + quantity,
          actor,
          reference,
        });
      }
      await writeLedger(trx, ledger);
      await settleChange(trx, before, await readLevels(trx, [...returned.keys()]));
    },

    /**
     * The operator's edit of a variant's stock settings, in the console's transaction. `onHand` undefined keeps the
     * quantity as it is (an oversold variant's stays below zero).
     */
    async setStock(
      trx: Writer,
      variantId: string,
      settings: { tracksStock: boolean; continueSelling: boolean; onHand?: number; lowStockAt?: number },
      actor: string,
    ): Promise<void> {
      const before = await readLevels(trx, [variantId], { lock: true });
      const level = before.get(variantId);
      if (!level) return;
      await trx
        .updateTable("product_variants")
        .set({
          tracks_stock: settings.tracksStock,
          continue_selling: settings.continueSelling,
          ...(settings.lowStockAt !== undefined ? { low_stock_at: settings.lowStockAt } : {}),
          ...(settings.onHand !== undefined ? { on_hand: settings.onHand } : {}),
          updated_at: sql`now()`,
        })
        .where("id", "=", variantId)
        .execute();
      if (settings.onHand !== undefined) {
        await writeLedger(trx, [
          {
            level,
            reason: "edit",
            counts: "on_hand",
            before: level.onHand,
            after: settings.onHand,
            actor,
            reference: null,
          },
        ]);
      }
      await settleChange(trx, before, await readLevels(trx, [variantId]));
    },

    /**
     * A CSV import's stock, in the import's transaction: each variant's tracking and back-orders, and its on-hand
     * quantity where the file gives one (Shopify's "Inventory quantity" sets on hand, as its own import does), each
     * change of on hand a ledger row "import" naming the import. Written in batches: an import may set 100,000.
     */
    async setImportedStock(
      trx: Writer,
      changes: readonly { variantId: string; tracksStock: boolean; continueSelling: boolean; onHand?: number }[],
      actor: string,
      reference: string,
    ): Promise<void> {
      const before = new Map<string, StockLevel>();
      for (const batch of inBatches(changes, 1000)) {
        for (const [id, level] of await readLevels(
          trx,
          batch.map((change) => change.variantId),
          { lock: true },
        ))
          before.set(id, level);
      }
      const after = new Map<string, StockLevel>();
      const ledger = [];
      const updates = [];
      for (const change of changes) {
        const level = before.get(change.variantId);
        if (!level) continue;
        const onHand = change.onHand ?? level.onHand;
        if (
          change.tracksStock === level.tracksStock &&
          change.continueSelling === level.continueSelling &&
          onHand === level.onHand
        )
          continue;
        updates.push({ ...change, onHand });
        after.set(level.variantId, {
          ...level,
          tracksStock: change.tracksStock,
          continueSelling: change.continueSelling,
          onHand,
          available: change.tracksStock ? onHand - level.reserved : null,
        });
        if (onHand !== level.onHand)
          ledger.push({
            level,
            reason: "import" as const,
            counts: "on_hand" as const,
            before: level.onHand,
            after: onHand,
            actor,
            reference,
          });
      }
      for (const batch of inBatches(updates, 500)) {
        const rows = sql.join(
          batch.map(
            (change) =>
              sql`(${change.variantId}::text, ${change.tracksStock}::boolean, ${change.continueSelling}::boolean, ${change.onHand}::int)`,
          ),
        );
        await sql`
          update product_variants as v
             set tracks_stock = n.tracks_stock, continue_selling = n.continue_selling, on_hand = n.on_hand, updated_at = now()
            from (values ${rows}) as n (id, tracks_stock, continue_selling, on_hand)
           where v.id = n.id`.execute(trx);
      }
      for (const batch of inBatches(ledger, 500)) await writeLedger(trx, batch);
      await moveVersionIfSeen(trx, before, after);
    },

    /** Releases reservations whose time is up; returns how many. Several instances may run it: each row goes once. */
    async releaseExpired(): Promise<number> {
      // Most sweeps find nothing: one statement says so, with no transaction around it.
      const anyDue = await db
        .selectFrom("stock_reservations")
        .select("id")
        .where("expires_at", "<=", sql<Date>`now()`)
        .limit(1)
        .executeTakeFirst();
      if (!anyDue) return 0;
      return db.transaction().execute(async (trx) => {
        const due = await trx
          .selectFrom("stock_reservations")
          .select("variant_id")
          .distinct()
          .where("expires_at", "<=", sql<Date>`now()`)
          .execute();
        if (due.length === 0) return 0;
        // The variants first, as every other change takes them, so nothing changes them between the reads below; then
        // the rows, skipping any a payment holds right now (it takes its variants after its rows: waiting on it could
        // deadlock): that payment replaces or sells them itself, or the next sweep takes them.
        await lockVariants(
          trx,
          due.map((row) => row.variant_id),
        );
        const expired = await trx
          .deleteFrom("stock_reservations")
          .where("id", "in", (query) =>
            query
              .selectFrom("stock_reservations")
              .select("id")
              .where("expires_at", "<=", sql<Date>`now()`)
              .where(
                "variant_id",
                "in",
                due.map((row) => row.variant_id),
              )
              .forUpdate()
              .skipLocked(),
          )
          .returning(["variant_id", "quantity", "hold"])
          .execute();
        if (expired.length === 0) return 0;
        const after = await readLevels(
          trx,
          expired.map((row) => row.variant_id),
        );
        const released = sumByVariant(expired);
        // An expired reservation stopped counting when its time was up; the shop takes it as released now.
        const before = new Map(
          [...after].map(([id, level]) => [
            id,
            { ...level, available: level.available === null ? null : level.available - (released.get(id) ?? 0) },
          ]),
        );
        await writeLedger(trx, availableChanges(before, after, "shop", "expired"));
        await settleChange(trx, before, after);
        return expired.length;
      });
    },

    /** A product's latest stock movements, newest first. */
    async listLedger(productId: string, limit = 50): Promise<LedgerEntry[]> {
      const rows = await db
        .selectFrom("stock_ledger")
        .selectAll()
        .where("product_id", "=", productId)
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        variantId: row.variant_id,
        reason: row.reason,
        counts: row.counts,
        quantityBefore: row.quantity_before,
        quantityAfter: row.quantity_after,
        actor: row.actor,
        reference: row.reference,
        at: row.created_at.toISOString(),
      }));
    },

    /** Runs releaseExpired every RESERVATION_SWEEP_MS until stopped. */
    startSweep(intervalMs = RESERVATION_SWEEP_MS): { stop: () => Promise<void> } {
      let running: Promise<unknown> = Promise.resolve();
      let beat = 0;
      const timer = setInterval(() => {
        const isPruneBeat = beat++ % CLAIM_PRUNE_BEATS === 0;
        running = service
          .releaseExpired()
          // Claims whose cool-down is over go with every sixth beat (server/holds/).
          .then(() => (isPruneBeat ? claims?.prune() : undefined))
          .catch((error: unknown) => logger.warn({ err: error }, "inventory: releasing expired reservations failed"));
      }, intervalMs);
      timer.unref();
      return {
        async stop() {
          clearInterval(timer);
          await running;
        },
      };
    },
  };
  return service;
}

export type InventoryService = ReturnType<typeof createInventoryService>;

/** A line's variant as a sentence names it: "Classic Tee (M, Black)". */
function nameOf(line: StockLine): string {
  const values = line.optionValues ?? [];
  return `${line.title ?? "This item"}${values.length > 0 ? ` (${values.join(", ")})` : ""}`;
}
