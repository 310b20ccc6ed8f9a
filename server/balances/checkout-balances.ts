// The balances a checkout pays with ("Use store credit", a gift card applied on /payment): chosen per basket owner,
// checked against what is on them, taken off in the order's transaction.

import { sql } from "kysely";
import { AppError } from "#shared/errors";
import { amountDue, type PriceBreakdown } from "#shared/pricing";
import type { DB, Writer } from "#server/db/client";
import { ownerColumn, ownerColumns, type BasketOwner } from "#server/basket/basket-owner";
import type { Logger } from "#server/logger";
import { applyBalances, type AvailableBalance } from "#server/pricing/apply-balances";
import { accountRefusal, type BalanceLedger } from "./balance-ledger";

/** Said when a balance applied on /payment has less on it than the page was priced with (spent in another tab). */
export const BALANCE_CHANGED =
  "The balance you applied has changed since this page was shown. Please check your order total and pay again.";

/**
 * The balances a checkout pays with: applied on /payment (the account's own store credit with "Use store credit",
 * a gift card's account by its number), priced with the basket (server/pricing/apply-balances.ts), held with the
 * payment under its key, spent in the order's transaction. The checkout_balances table is this module's.
 *
 * A gift card is applied by `apply(owner, accountId)` once its number is found; the rest is the same for every kind.
 */
export function createCheckoutBalances(
  db: DB,
  ledger: BalanceLedger,
  { reservationMinutes, logger }: { reservationMinutes: number; logger?: Logger },
) {
  const service = {
    /** Applies a balance to the owner's checkout (again: nothing changes). */
    async apply(owner: BasketOwner, accountId: string): Promise<void> {
      const { column, value } = ownerColumn(owner);
      const already = await db
        .selectFrom("checkout_balances")
        .select("id")
        .where(column, "=", value)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (already) return;
      await sql`insert into checkout_balances (user_id, session_id, account_id)
        values (${ownerColumns(owner).user_id}, ${ownerColumns(owner).session_id}, ${accountId})
        on conflict do nothing`.execute(db);
    },

    /** Takes a balance off the owner's checkout. */
    async remove(owner: BasketOwner, accountId: string): Promise<void> {
      const { column, value } = ownerColumn(owner);
      await db.deleteFrom("checkout_balances").where(column, "=", value).where("account_id", "=", accountId).execute();
    },

    /** "Use store credit": the account's store credit pays what it can of this checkout. */
    async useStoreCredit(userId: string): Promise<void> {
      const account = await ledger.openStoreCredit(userId);
      await service.apply({ userId }, account.id);
    },

    async stopUsingStoreCredit(userId: string): Promise<void> {
      const account = await ledger.findStoreCredit(userId);
      if (account) await service.remove({ userId }, account.id);
    },

    /**
     * In one statement: the balances applied to the owner's checkout, gift cards first (they pay for nothing else),
     * then store credit, each with what it has for this checkout (what is available plus what the owner's open
     * payment holds of it already; nothing when disabled or expired), and the signed-in account's store credit for
     * "Use store credit ($x)" (null without an account).
     */
    async forCheckout(
      owner: BasketOwner | null,
    ): Promise<{ applied: AvailableBalance[]; storeCreditCents: number | null }> {
      if (!owner) return { applied: [], storeCreditCents: null };
      const { column, value } = ownerColumn(owner);
      const userId = "userId" in owner ? owner.userId : null;
      const ownPayments = sql`(select payment_intent_id from checkout_payments
        where ${sql.ref(column)} = ${value} and status = 'open')`;
      // A guest has no store credit: without the "or", PostgreSQL plans a guest's statement once and keeps the plan.
      // With it and a null user, each run got a plan of its own (a constant-false branch makes a custom plan look
      // cheaper than the kept one), and planning was most of the statement's cost: 1.0 ms of PGlite's CPU a checkout.
      const ownStoreCredit =
        userId === null ? sql`` : sql`or (account.kind = 'store_credit' and account.user_id = ${userId})`;
      const { rows } = await sql<{
        id: string;
        kind: "store_credit" | "gift_card";
        last_four: string | null;
        balance_cents: number;
        expires_at: Date | null;
        disabled_at: Date | null;
        held_by_us: number;
        is_applied: boolean;
      }>`
        select account.id, account.kind, account.last_four, account.balance_cents, account.expires_at,
          account.disabled_at, applied.account_id is not null as is_applied,
          coalesce((select -sum(hold.amount_cents) from balance_entries hold
            where hold.account_id = account.id and hold.kind = 'hold' and hold.hold_key in ${ownPayments}
              and not exists (select 1 from balance_entries closed
                where closed.kind = 'release' and closed.hold_entry_id = hold.id)), 0)::int as held_by_us
        from balance_accounts account
        left join checkout_balances applied
          on applied.account_id = account.id and applied.${sql.ref(column)} = ${value}
        where applied.account_id is not null ${ownStoreCredit}
        order by account.kind = 'store_credit', applied.applied_at`.execute(db);
      const usable = (row: (typeof rows)[number]) =>
        accountRefusal({ disabledAt: row.disabled_at, expiresAt: row.expires_at })
          ? 0
          : row.balance_cents + row.held_by_us;
      const credit = rows.find((row) => row.kind === "store_credit" && userId !== null);
      return {
        applied: rows
          .filter((row) => row.is_applied)
          .map((row) => ({ accountId: row.id, kind: row.kind, lastFour: row.last_four, availableCents: usable(row) })),
        storeCreditCents: userId === null ? null : credit ? usable(credit) : 0,
      };
    },

    /** The basket's breakdown with the owner's applied balances paying what they can (dueCents: the card's part). */
    async priceWithBalances(owner: BasketOwner | null, pricing: PriceBreakdown): Promise<PriceBreakdown> {
      const { applied } = await service.forCheckout(owner);
      return applied.length === 0 ? pricing : applyBalances(pricing, applied);
    },

    /**
     * Holds, for the payment `hold` (in place of what it and `replaces` held), what the pricing says each balance pays.
     * A balance that has less now (spent elsewhere meanwhile) refuses the payment with BALANCE_CHANGED and holds
     * nothing; balances the pricing no longer names are let go (`isNew`: `hold` was made for this call and held
     * nothing). Resolves whether it holds any balance under `hold`.
     */
    async reserve(
      hold: string,
      pricing: PriceBreakdown,
      replaces: readonly string[] = [],
      { isNew = false }: { isNew?: boolean } = {},
    ): Promise<boolean> {
      const keys = [hold, ...replaces];
      const wanted = pricing.balances ?? [];
      const earlier = isNew ? replaces : keys;
      const held = (await Promise.all(earlier.map((key) => ledger.holdsOf(key)))).flat();
      const dropped = held.filter((entry) => !wanted.some((balance) => balance.accountId === entry.accountId));
      if (dropped.length > 0) await ledger.releaseHolds(db, dropped);
      const expiresAt = new Date(Date.now() + reservationMinutes * 60_000);
      for (const balance of wanted) {
        const got = await ledger.hold(db, balance.accountId, hold, balance.amountCents, { expiresAt, replaces });
        if (got < balance.amountCents) {
          for (const key of keys) await ledger.release(db, key);
          throw new AppError("TOTAL_MISMATCH", BALANCE_CHANGED, { details: { totalCents: pricing.totalCents } });
        }
      }
      return wanted.length > 0;
    },

    rename: (from: string, to: string) => ledger.renameHold(db, from, to),

    release: (hold: string) => ledger.release(db, hold).then(() => undefined),

    /**
     * In the order's transaction: each balance the pricing names spends its part, once. A paid order whose hold
     * lapsed and whose balance went elsewhere meanwhile keeps what it could spend and is logged; a `strict` order
     * (nobody paid by card) is refused instead. The balances the order used are taken off the owner's checkout.
     */
    async settle(
      trx: Writer,
      {
        hold,
        orderId,
        pricing,
        owner,
        strict,
      }: { hold: string; orderId: string; pricing: PriceBreakdown | null; owner: BasketOwner | null; strict: boolean },
    ): Promise<{ shortCents: number }> {
      let shortCents = 0;
      for (const balance of pricing?.balances ?? []) {
        const spent = await ledger.spend(trx, {
          accountId: balance.accountId,
          holdKey: hold,
          orderId,
          amountCents: balance.amountCents,
        });
        shortCents += spent.shortCents;
      }
      if (shortCents > 0 && strict) throw new AppError("TOTAL_MISMATCH", BALANCE_CHANGED);
      if (shortCents > 0)
        logger?.error(
          { orderId, shortCents },
          "checkout: an order was paid after its balance hold lapsed and the balance had gone: it is short",
        );
      if (owner && (pricing?.balances ?? []).length > 0) {
        const { column, value } = ownerColumn(owner);
        await trx
          .deleteFrom("checkout_balances")
          .where(column, "=", value)
          .where(
            "account_id",
            "in",
            (pricing?.balances ?? []).map((balance) => balance.accountId),
          )
          .execute();
      }
      return { shortCents };
    },

    /** What the card pays for a pricing: its total less the balances. */
    amountDue,
  };
  return service;
}

export type CheckoutBalances = ReturnType<typeof createCheckoutBalances>;
