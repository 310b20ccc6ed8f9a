// Promotion codes: the console's list and form, the verdict on a code for a basket (each refusal's sentence), and a
// code's uses held per payment and redeemed with the order.

import { sql } from "kysely";
import { AppError } from "#shared/errors";
import { mailboxOf } from "#shared/mailbox";
import { CARD_MINIMUM_CENTS, PROMOTION_REFUSALS, spendMoreMessage, type PromotionView } from "#shared/promotions";
import type { PromotionForm } from "#shared/promotion-schemas";
import type { PriceBreakdown } from "#shared/pricing";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { ownerColumn, type BasketOwner } from "#server/basket/basket-owner";
import type { DB, Writer } from "#server/db/client";
import type { HoldClaims, Holder } from "#server/holds/hold-claims";
import type { PromotionKind } from "#server/db/schema";
import type { PromotionInput } from "#server/pricing/price-order";

/** Who is using a code: the basket's owner, and the receipt e-mail (an account's own, or a guest's). */
export interface PromotionCustomer {
  owner: BasketOwner;
  email: string | null;
}

/** A code judged for a basket: what the pricing function takes, or the sentence the shopper reads. */
export type PromotionVerdict = { ok: true; promotion: PromotionInput } | { ok: false; message: string };

interface PromotionRow {
  id: string;
  code: string;
  kind: PromotionKind;
  value: number;
  minimum_subtotal_cents: number;
  starts_at: Date | null;
  ends_at: Date | null;
  usage_limit: number | null;
  once_per_customer: boolean;
  status: "active" | "paused";
}

/** Refused with the sentence the shopper reads (409: the code, not the request, is what is wrong). */
export function promotionRefusal(message: string): AppError {
  return new AppError("PROMOTION_REFUSED", message);
}

/**
 * Promotion codes: the console's list and form, the judging of a code against a basket, and its uses.
 *
 * A use follows the same exactly-once rule as stock: POST /payments/create holds one for the payment (locking the
 * code's row, so two instances never both hand out the last use), a replaced or cancelled payment lets it go, an
 * expired hold stops counting, and the transaction that records the order turns it into a redemption, once. "Total
 * uses" counts redemptions and live holds. A payment that succeeds after its hold lapsed, when the last use went to
 * someone else meanwhile, is still recorded at the discount the shopper was shown, and marked over the limit.
 */
export function createPromotionService(
  db: DB,
  { reservationMinutes, claims }: { reservationMinutes: number; claims?: HoldClaims },
) {
  const findByCode = (executor: Writer, code: string, { lock = false } = {}) => {
    const query = executor.selectFrom("promotions").selectAll().where("code", "=", code.toUpperCase());
    return (lock ? query.forUpdate() : query).executeTakeFirst() as Promise<PromotionRow | undefined>;
  };

  /** Uses counted against Total uses: redemptions, and live holds other than `exceptOwner`'s own. */
  async function usesOf(
    executor: Writer,
    promotionId: string,
    except: { owner?: BasketOwner; hold?: string } = {},
  ): Promise<number> {
    let query = executor
      .selectFrom("promotion_uses")
      .select(sql<number>`count(*)::int`.as("uses"))
      .where("promotion_id", "=", promotionId)
      .where((where) => where.or([where("redeemed_at", "is not", null), where("expires_at", ">", sql<Date>`now()`)]));
    if (except.hold) query = query.where("hold", "<>", except.hold);
    if (except.owner) {
      const { column, value } = ownerColumn(except.owner);
      // The owner's own live hold is the one this payment would replace: not someone else's use.
      query = query.where((where) =>
        where.or([where("redeemed_at", "is not", null), where(column, "is", null), where(column, "<>", value)]),
      );
    }
    const row = await query.executeTakeFirstOrThrow();
    return row.uses;
  }

  /**
   * Whether this customer has used the code already (by account, or by receipt e-mail's mailbox: capitals and a +tag
   * are the same customer). With `liveHolds`, a payment of another basket holding the code right now counts too: four
   * sessions paying at once with one e-mail get one discount, not four. The customer's own basket's hold does not.
   */
  async function hasUsedBefore(
    executor: Writer,
    promotionId: string,
    customer: PromotionCustomer,
    { exceptHold, liveHolds = false }: { exceptHold?: string; liveHolds?: boolean } = {},
  ): Promise<boolean> {
    const userId = "userId" in customer.owner ? customer.owner.userId : null;
    const emails = customer.email ? [...new Set([customer.email.toLowerCase(), mailboxOf(customer.email)])] : [];
    if (!userId && emails.length === 0) return false;
    const { column, value } = ownerColumn(customer.owner);
    let query = executor
      .selectFrom("promotion_uses")
      .select("hold")
      .where("promotion_id", "=", promotionId)
      .where((where) =>
        liveHolds
          ? where.or([
              where("redeemed_at", "is not", null),
              where.and([
                where("expires_at", ">", sql<Date>`now()`),
                where.or([where(column, "is", null), where(column, "<>", value)]),
              ]),
            ])
          : where("redeemed_at", "is not", null),
      )
      .where((where) =>
        where.or([
          ...(userId ? [where("user_id", "=", userId)] : []),
          ...(emails.length > 0 ? [where("customer_email", "in", emails)] : []),
        ]),
      );
    if (exceptHold) query = query.where("hold", "<>", exceptHold);
    return (await query.limit(1).executeTakeFirst()) !== undefined;
  }

  /** The sentence for a code that cannot be used on this basket now, or null when it can. */
  async function refusalOf(
    executor: Writer,
    row: PromotionRow | undefined,
    itemsCents: number,
    customer: PromotionCustomer,
  ): Promise<string | null> {
    if (!row || row.status !== "active") return PROMOTION_REFUSALS.invalid;
    const now = Date.now();
    if ((row.starts_at && row.starts_at.getTime() > now) || (row.ends_at && row.ends_at.getTime() <= now))
      return PROMOTION_REFUSALS.expired;
    if (itemsCents < row.minimum_subtotal_cents) return spendMoreMessage(row.minimum_subtotal_cents - itemsCents);
    if (row.usage_limit !== null && (await usesOf(executor, row.id, { owner: customer.owner })) >= row.usage_limit)
      return PROMOTION_REFUSALS.used;
    if (row.once_per_customer && (await hasUsedBefore(executor, row.id, customer, { liveHolds: true })))
      return PROMOTION_REFUSALS.used;
    return null;
  }

  function toInput(row: PromotionRow): PromotionInput {
    if (row.kind === "percentage") return { kind: "percentage", code: row.code, percent: row.value };
    if (row.kind === "amount") return { kind: "amount", code: row.code, amountCents: row.value };
    return { kind: "free-delivery", code: row.code };
  }

  function toView(row: PromotionRow & { uses: number; redemptions: number }): PromotionView {
    return {
      id: row.id,
      code: row.code,
      kind: row.kind,
      value: row.value,
      minimumSubtotalCents: row.minimum_subtotal_cents,
      startsAt: row.starts_at?.toISOString() ?? null,
      endsAt: row.ends_at?.toISOString() ?? null,
      usageLimit: row.usage_limit,
      oncePerCustomer: row.once_per_customer,
      status: row.status,
      uses: row.uses,
      redemptions: row.redemptions,
    };
  }

  /** Promotions with their uses so far: redemptions and live holds ("Total uses"), and redemptions alone. */
  const withUses = () =>
    db
      .selectFrom("promotions as p")
      .selectAll("p")
      .select([
        sql<number>`(select count(*)::int from promotion_uses u where u.promotion_id = p.id and (u.redeemed_at is not null or u.expires_at > now()))`.as(
          "uses",
        ),
        sql<number>`(select count(*)::int from promotion_uses u where u.promotion_id = p.id and u.redeemed_at is not null)`.as(
          "redemptions",
        ),
      ]);

  const columnsOf = (form: PromotionForm) => ({
    code: form.code,
    kind: form.kind,
    value: form.value,
    minimum_subtotal_cents: form.minimumSubtotalCents,
    starts_at: form.startsAt,
    ends_at: form.endsAt,
    usage_limit: form.usageLimit,
    once_per_customer: form.oncePerCustomer,
    status: form.status,
  });

  const codeTaken = () =>
    new AppError("INVALID_INPUT", "A promotion with this code exists already.", { details: { field: "code" } });

  const service = {
    /** Every promotion, newest first, with its uses so far. */
    async list(): Promise<PromotionView[]> {
      const rows = await withUses().orderBy("p.created_at", "desc").limit(500).execute();
      return rows.map((row) => toView(row as PromotionRow & { uses: number; redemptions: number }));
    },

    async get(id: string): Promise<PromotionView | null> {
      const row = await withUses().where("p.id", "=", id).executeTakeFirst();
      return row ? toView(row as PromotionRow & { uses: number; redemptions: number }) : null;
    },

    async create(form: PromotionForm, actor: Actor): Promise<string> {
      try {
        return await db.transaction().execute(async (trx) => {
          const { id } = await trx
            .insertInto("promotions")
            .values(columnsOf(form))
            .returning("id")
            .executeTakeFirstOrThrow();
          await recordAudit(trx, actor, {
            action: "promotion.create",
            subject: form.code,
            before: null,
            after: auditValues(form),
          });
          return id;
        });
      } catch (error) {
        // 23505, unique_violation: another promotion has the code (its unique index); anything else is not ours to word.
        if ((error as { code?: string }).code === "23505") throw codeTaken();
        throw error;
      }
    },

    /** Changes a promotion; a code that has been used keeps its code (orders name it). */
    async update(id: string, form: PromotionForm, actor: Actor): Promise<void> {
      try {
        await db.transaction().execute(async (trx) => {
          const before = await trx
            .selectFrom("promotions")
            .selectAll()
            .where("id", "=", id)
            .forUpdate()
            .executeTakeFirst();
          if (!before) throw new AppError("NOT_FOUND", "That promotion no longer exists.");
          if (before.code !== form.code && (await usesOf(trx, id)) > 0) {
            throw new AppError("INVALID_INPUT", "A code that has been used keeps its code.", {
              details: { field: "code" },
            });
          }
          await trx
            .updateTable("promotions")
            .set({ ...columnsOf(form), updated_at: sql`now()` })
            .where("id", "=", id)
            .execute();
          await recordAudit(trx, actor, {
            action: "promotion.update",
            subject: form.code,
            before: auditValues(fromRow(before as PromotionRow)),
            after: auditValues(form),
          });
        });
      } catch (error) {
        // 23505, unique_violation: another promotion has the code (its unique index); anything else is not ours to word.
        if ((error as { code?: string }).code === "23505") throw codeTaken();
        throw error;
      }
    },

    /** Deletes a promotion nobody has used; a used one can be paused instead. */
    async remove(id: string, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom("promotions")
          .selectAll()
          .where("id", "=", id)
          .forUpdate()
          .executeTakeFirst();
        if (!before) throw new AppError("NOT_FOUND", "That promotion no longer exists.");
        const used = await trx
          .selectFrom("promotion_uses")
          .select("hold")
          .where("promotion_id", "=", id)
          .limit(1)
          .executeTakeFirst();
        if (used) throw new AppError("PROMOTION_IN_USE", "A code that has been used can be paused but not deleted.");
        await trx.deleteFrom("promotions").where("id", "=", id).execute();
        await recordAudit(trx, actor, {
          action: "promotion.delete",
          subject: before.code,
          before: auditValues(fromRow(before as PromotionRow)),
          after: null,
        });
      });
    },

    /** The code as the pricing function takes it for this basket, or the sentence saying why it cannot be used. */
    async judge(code: string, itemsCents: number, customer: PromotionCustomer): Promise<PromotionVerdict> {
      const row = await findByCode(db, code);
      const refusal = await refusalOf(db, row, itemsCents, customer);
      return refusal || !row
        ? { ok: false, message: refusal ?? PROMOTION_REFUSALS.invalid }
        : { ok: true, promotion: toInput(row) };
    },

    /**
     * A priced basket's last check: a code that leaves less than the card minimum to pay (but not nothing) is refused,
     * since no card can pay it.
     */
    refusalForTotal(pricing: PriceBreakdown): string | null {
      return pricing.promotion && pricing.totalCents > 0 && pricing.totalCents < CARD_MINIMUM_CENTS
        ? PROMOTION_REFUSALS.tooSmall
        : null;
    },

    /**
     * Holds one use of `code` for the payment `hold` (in place of what `replaces` held), judging the code again with
     * the code's row locked: of shoppers paying at once for the last use, one holds it and the others are refused
     * ("This code has already been used.") before any card is charged.
     */
    async reserve(
      hold: string,
      code: string,
      itemsCents: number,
      customer: PromotionCustomer,
      { replaces = [], holder }: { replaces?: readonly string[]; holder?: Holder } = {},
    ): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom("promotion_uses")
          .where("hold", "in", [hold, ...replaces])
          .where("redeemed_at", "is", null)
          .execute();
        const row = await findByCode(trx, code, { lock: true });
        const refusal = await refusalOf(trx, row, itemsCents, customer);
        if (refusal || !row) throw promotionRefusal(refusal ?? PROMOTION_REFUSALS.invalid);
        // A limited code is held as the stock is (server/holds/): at most RESERVATION_MINUTES from the first time.
        const endsAt =
          holder && claims
            ? await claims.claim(trx, "promotion", holder, hold, replaces, [
                { item: row.id, units: 0, name: `The code ${row.code}` },
              ])
            : null;
        const { column, value } = ownerColumn(customer.owner);
        await trx
          .insertInto("promotion_uses")
          .values({
            hold,
            promotion_id: row.id,
            [column]: value,
            customer_email: customer.email ? mailboxOf(customer.email) : null,
            expires_at: endsAt ?? sql<Date>`now() + make_interval(mins => ${reservationMinutes})`,
          })
          .execute();
      });
    },

    /** The hold's use becomes the intent's once its id is known. */
    async renameHold(hold: string, to: string): Promise<void> {
      await claims?.rename(db, "promotion", hold, to);
      await db
        .updateTable("promotion_uses")
        .set({ hold: to })
        .where("hold", "=", hold)
        .where("redeemed_at", "is", null)
        .execute();
    },

    /** A cancelled, replaced or refused payment lets its use go. */
    async release(hold: string, executor: Writer = db): Promise<void> {
      await claims?.finish(executor, "promotion", hold);
      await executor.deleteFrom("promotion_uses").where("hold", "=", hold).where("redeemed_at", "is", null).execute();
    },

    /**
     * In the transaction that records the order: the payment's use becomes a redemption, once. A hold that lapsed
     * while the last use went elsewhere still redeems (a paid order is never changed): `overLimit` says so. With
     * `strict` (an order nobody paid for, at $0.00), going over the limit refuses the order instead.
     */
    async redeem(
      trx: Writer,
      {
        hold,
        orderId,
        code,
        customer,
        strict = false,
      }: { hold: string; orderId: string; code: string; customer: PromotionCustomer; strict?: boolean },
    ): Promise<{ overLimit: boolean }> {
      const row = await findByCode(trx, code, { lock: true });
      if (!row) return { overLimit: true };
      const existing = await trx
        .selectFrom("promotion_uses")
        .select(["redeemed_at", sql<boolean>`expires_at > now()`.as("is_live")])
        .where("hold", "=", hold)
        .executeTakeFirst();
      if (existing?.redeemed_at) return { overLimit: false };
      await claims?.finish(trx, "promotion", hold);
      let overLimit = false;
      if (!existing?.is_live) {
        const others = await usesOf(trx, row.id, { hold });
        overLimit = row.usage_limit !== null && others >= row.usage_limit;
      }
      if (row.once_per_customer && (await hasUsedBefore(trx, row.id, customer, { exceptHold: hold }))) overLimit = true;
      if (overLimit && strict) throw promotionRefusal(PROMOTION_REFUSALS.used);
      const { column, value } = ownerColumn(customer.owner);
      await trx
        .insertInto("promotion_uses")
        .values({
          hold,
          promotion_id: row.id,
          [column]: value,
          customer_email: customer.email ? mailboxOf(customer.email) : null,
          expires_at: sql<Date>`now()`,
          order_id: orderId,
          redeemed_at: sql<Date>`now()`,
        })
        .onConflict((conflict) =>
          conflict.column("hold").doUpdateSet({ order_id: orderId, redeemed_at: sql<Date>`now()` }),
        )
        .execute();
      return { overLimit };
    },
  };
  return service;
}

export type PromotionService = ReturnType<typeof createPromotionService>;

function fromRow(row: PromotionRow): PromotionForm {
  return {
    code: row.code,
    kind: row.kind,
    value: row.value,
    minimumSubtotalCents: row.minimum_subtotal_cents,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    usageLimit: row.usage_limit,
    oncePerCustomer: row.once_per_customer,
    status: row.status,
  };
}

function auditValues(form: PromotionForm): Record<string, unknown> {
  return { ...form, startsAt: form.startsAt?.toISOString() ?? null, endsAt: form.endsAt?.toISOString() ?? null };
}
