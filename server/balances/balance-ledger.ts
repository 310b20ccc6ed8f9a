// The balance ledger of store credit and gift cards: accounts, holds per payment, spends, refunds and adjustments, each
// an appended row under the account's row lock.

import { sql } from "kysely";
import { AppError } from "#shared/errors";
import type { DB, Writer } from "#server/db/client";
import type { BalanceAccountKind, Database } from "#server/db/schema";
import type { Transaction } from "kysely";

/**
 * The balance ledger (balance_accounts, balance_entries; docs/decisions/032): store credit and gift cards are money
 * the shop holds, each change one appended row, the balance their sum. Every change locks its account's row first
 * (select … for update), so instances racing on one account take turns; the unique indexes of migration 0037 make a
 * payment's spend and a refund's give-back happen once, and the account's CHECK keeps the balance at zero or more.
 *
 * A payment being prepared holds a balance under its hold key (the key stock and codes are held under, later the
 * intent's id): the hold is a negative row, closed once by its release, or by the spend in the order's transaction.
 * Each function takes the caller's transaction (or the database: then it opens its own).
 */
export interface BalanceAccount {
  id: string;
  kind: BalanceAccountKind;
  userId: string | null;
  lastFour: string | null;
  initialCents: number;
  /** What can still be held or spent (open holds already taken out). */
  balanceCents: number;
  expiresAt: Date | null;
  disabledAt: Date | null;
  note: string | null;
  createdAt: Date;
}

/** Why an account cannot pay now, if it cannot. */
export type BalanceRefusal = "disabled" | "expired" | null;

export interface BalanceFigures {
  /** Open to hold or spend now. */
  availableCents: number;
  /** Held by payments being made. */
  heldCents: number;
  /** What the shop owes on it: available plus held. */
  balanceCents: number;
}

/** One open hold: this payment's claim on this account. */
export interface OpenHold {
  entryId: string;
  accountId: string;
  holdKey: string;
  heldCents: number;
  expiresAt: Date | null;
}

type Trx = Transaction<Database>;

const accountColumns = [
  "id",
  "kind",
  "user_id",
  "last_four",
  "initial_cents",
  "balance_cents",
  "expires_at",
  "disabled_at",
  "note",
  "created_at",
] as const;

function toAccount(row: {
  id: string;
  kind: BalanceAccountKind;
  user_id: string | null;
  last_four: string | null;
  initial_cents: number;
  balance_cents: number;
  expires_at: Date | null;
  disabled_at: Date | null;
  note: string | null;
  created_at: Date;
}): BalanceAccount {
  return {
    id: row.id,
    kind: row.kind,
    userId: row.user_id,
    lastFour: row.last_four,
    initialCents: row.initial_cents,
    balanceCents: row.balance_cents,
    expiresAt: row.expires_at,
    disabledAt: row.disabled_at,
    note: row.note,
    createdAt: row.created_at,
  };
}

/** Runs `work` in the caller's transaction, or in one of its own when given the database. */
async function inTransaction<T>(executor: Writer, work: (trx: Trx) => Promise<T>): Promise<T> {
  return executor.isTransaction ? work(executor as Trx) : executor.transaction().execute(work);
}

/** The account's row, locked until the transaction ends: every change to a balance starts here. */
async function lockAccount(trx: Trx, accountId: string): Promise<BalanceAccount> {
  const row = await trx
    .selectFrom("balance_accounts")
    .select(accountColumns)
    .where("id", "=", accountId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", "There is no such balance.");
  return toAccount(row);
}

/** Holds not yet closed by a release, of one account or of every account, under the given keys. */
async function openHolds(
  executor: Writer,
  where: { accountId?: string; holdKeys?: readonly string[]; lapsedBy?: "now" },
): Promise<OpenHold[]> {
  if (where.holdKeys && where.holdKeys.length === 0) return [];
  const rows = await executor
    .selectFrom("balance_entries as hold")
    .select([
      sql<string>`hold.id::text`.as("entry_id"),
      "hold.account_id",
      "hold.hold_key",
      "hold.amount_cents",
      "hold.hold_expires_at",
    ])
    .where("hold.kind", "=", "hold")
    .$if(where.accountId !== undefined, (query) => query.where("hold.account_id", "=", where.accountId!))
    .$if(where.holdKeys !== undefined, (query) => query.where("hold.hold_key", "in", where.holdKeys!))
    .$if(where.lapsedBy === "now", (query) => query.where("hold.hold_expires_at", "<=", sql<Date>`now()`))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("balance_entries as closed")
            .select("closed.id")
            .where("closed.kind", "=", "release")
            .whereRef("closed.hold_entry_id", "=", "hold.id"),
        ),
      ),
    )
    .orderBy("hold.id")
    .execute();
  return rows.map((row) => ({
    entryId: row.entry_id,
    accountId: row.account_id,
    holdKey: row.hold_key!,
    heldCents: -row.amount_cents,
    expiresAt: row.hold_expires_at,
  }));
}

/** Closes one open hold (the account already locked): its amount comes back to the balance. */
async function closeHold(trx: Trx, hold: OpenHold, orderId: string | null = null): Promise<void> {
  await trx
    .insertInto("balance_entries")
    .values({
      account_id: hold.accountId,
      kind: "release",
      amount_cents: hold.heldCents,
      hold_key: hold.holdKey,
      hold_entry_id: hold.entryId,
      order_id: orderId,
    })
    .execute();
}

/** Releases, one account at a time in a fixed order (no two transactions wait on each other), every hold given. */
async function releaseEach(trx: Trx, holds: readonly OpenHold[]): Promise<number> {
  let released = 0;
  const accounts = [...new Set(holds.map((hold) => hold.accountId))].sort();
  for (const accountId of accounts) {
    await lockAccount(trx, accountId);
    // Read again under the lock: another transaction may have closed one meanwhile.
    const keys = [...new Set(holds.filter((hold) => hold.accountId === accountId).map((hold) => hold.holdKey))];
    for (const hold of await openHolds(trx, { accountId, holdKeys: keys })) {
      if (!holds.some((given) => given.entryId === hold.entryId)) continue;
      await closeHold(trx, hold);
      released += hold.heldCents;
    }
  }
  return released;
}

export function accountRefusal(
  account: Pick<BalanceAccount, "disabledAt" | "expiresAt">,
  now = new Date(),
): BalanceRefusal {
  if (account.disabledAt) return "disabled";
  if (account.expiresAt && account.expiresAt.getTime() <= now.getTime()) return "expired";
  return null;
}

export function createBalanceLedger(db: DB) {
  const ledger = {
    /** The user's store credit account, if one was ever opened. */
    async findStoreCredit(userId: string, executor: Writer = db): Promise<BalanceAccount | null> {
      const row = await executor
        .selectFrom("balance_accounts")
        .select(accountColumns)
        .where("kind", "=", "store_credit")
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return row ? toAccount(row) : null;
    },

    /** The user's store credit account, opened now (with nothing on it) if there is none yet. */
    async openStoreCredit(userId: string, executor: Writer = db): Promise<BalanceAccount> {
      await sql`
        insert into balance_accounts (kind, user_id) values ('store_credit', ${userId})
        on conflict (user_id) where kind = 'store_credit' do nothing`.execute(executor);
      return (await ledger.findStoreCredit(userId, executor))!;
    },

    /** A gift card's account with nothing on it yet (`issue` puts its value on); only the code's hash is kept. */
    async openGiftCard(
      executor: Writer,
      card: { codeHash: string; lastFour: string; expiresAt?: Date | null; note?: string | null },
    ): Promise<BalanceAccount> {
      const row = await executor
        .insertInto("balance_accounts")
        .values({
          kind: "gift_card",
          user_id: null,
          code_hash: card.codeHash,
          last_four: card.lastFour,
          expires_at: card.expiresAt ?? null,
          disabled_at: null,
          note: card.note ?? null,
        })
        .returning(accountColumns)
        .executeTakeFirstOrThrow();
      return toAccount(row);
    },

    /** A gift card by its code's hash. */
    async findGiftCard(codeHash: string, executor: Writer = db): Promise<BalanceAccount | null> {
      const row = await executor
        .selectFrom("balance_accounts")
        .select(accountColumns)
        .where("kind", "=", "gift_card")
        .where("code_hash", "=", codeHash)
        .executeTakeFirst();
      return row ? toAccount(row) : null;
    },

    async findAccount(accountId: string, executor: Writer = db): Promise<BalanceAccount | null> {
      const row = await executor
        .selectFrom("balance_accounts")
        .select(accountColumns)
        .where("id", "=", accountId)
        .executeTakeFirst();
      return row ? toAccount(row) : null;
    },

    /** Available, held and owed, in one read. */
    async figures(accountId: string, executor: Writer = db): Promise<BalanceFigures> {
      const account = await ledger.findAccount(accountId, executor);
      if (!account) return { availableCents: 0, heldCents: 0, balanceCents: 0 };
      const held = (await openHolds(executor, { accountId })).reduce((sum, hold) => sum + hold.heldCents, 0);
      return { availableCents: account.balanceCents, heldCents: held, balanceCents: account.balanceCents + held };
    },

    /** Puts money on the account (a gift card's value, store credit given by hand or for an order). */
    async issue(
      executor: Writer,
      accountId: string,
      amountCents: number,
      by: { actor?: string | null; note?: string | null; orderId?: string | null } = {},
    ): Promise<void> {
      if (!Number.isInteger(amountCents) || amountCents <= 0) throw new RangeError("issue: a positive whole amount");
      await inTransaction(executor, async (trx) => {
        await lockAccount(trx, accountId);
        await trx
          .insertInto("balance_entries")
          .values({
            account_id: accountId,
            kind: "issue",
            amount_cents: amountCents,
            actor: by.actor ?? null,
            note: by.note ?? null,
            order_id: by.orderId ?? null,
          })
          .execute();
      });
    },

    /**
     * Holds up to `maxCents` of the account for the payment `holdKey`, in place of what that payment (and the ones it
     * `replaces`) held on it: the cents actually held, which is less when less is available, and 0 for an account
     * that is disabled or expired. The hold lasts until `expiresAt` (then the sweep releases it).
     */
    async hold(
      executor: Writer,
      accountId: string,
      holdKey: string,
      maxCents: number,
      { expiresAt = null, replaces = [] }: { expiresAt?: Date | null; replaces?: readonly string[] } = {},
    ): Promise<number> {
      if (!Number.isInteger(maxCents) || maxCents < 0) throw new RangeError("hold: a whole amount, zero or more");
      return inTransaction(executor, async (trx) => {
        await lockAccount(trx, accountId);
        for (const hold of await openHolds(trx, { accountId, holdKeys: [holdKey, ...replaces] }))
          await closeHold(trx, hold);
        const account = await lockAccount(trx, accountId);
        if (accountRefusal(account)) return 0;
        const held = Math.min(maxCents, account.balanceCents);
        if (held === 0) return 0;
        await trx
          .insertInto("balance_entries")
          .values({
            account_id: accountId,
            kind: "hold",
            amount_cents: -held,
            hold_key: holdKey,
            hold_expires_at: expiresAt,
          })
          .execute();
        return held;
      });
    },

    /** What the payment `holdKey` holds, per account. */
    async holdsOf(holdKey: string, executor: Writer = db): Promise<OpenHold[]> {
      return openHolds(executor, { holdKeys: [holdKey] });
    },

    /** Releases the given open holds (those closed meanwhile are left as they are); returns the cents released. */
    async releaseHolds(executor: Writer, holds: readonly OpenHold[]): Promise<number> {
      if (holds.length === 0) return 0;
      return inTransaction(executor, (trx) => releaseEach(trx, holds));
    },

    /** The payment was replaced, refused, cancelled or lapsed: whatever it held comes back. Returns the cents released. */
    async release(executor: Writer, holdKey: string): Promise<number> {
      return inTransaction(executor, async (trx) => releaseEach(trx, await openHolds(trx, { holdKeys: [holdKey] })));
    },

    /** A hold taken under its own key becomes the intent's: released under `from`, held again under `to`. */
    async renameHold(executor: Writer, from: string, to: string): Promise<void> {
      await inTransaction(executor, async (trx) => {
        const holds = await openHolds(trx, { holdKeys: [from] });
        for (const accountId of [...new Set(holds.map((hold) => hold.accountId))].sort()) {
          await lockAccount(trx, accountId);
          for (const hold of await openHolds(trx, { accountId, holdKeys: [from, to] })) {
            await closeHold(trx, hold);
            if (hold.holdKey !== from) continue;
            await trx
              .insertInto("balance_entries")
              .values({
                account_id: accountId,
                kind: "hold",
                amount_cents: -hold.heldCents,
                hold_key: to,
                hold_expires_at: hold.expiresAt,
              })
              .execute();
          }
        }
      });
    },

    /**
     * In the order's own transaction: the payment `holdKey` spends `amountCents` of the account, once. Its open hold
     * is closed and the amount spent; a hold that lapsed and was released meanwhile spends what is still available.
     * `shortCents` is what could not be spent (the order then owes it; the caller flags it). A second call for the
     * same payment and account answers the first spend.
     */
    async spend(
      trx: Writer,
      {
        accountId,
        holdKey,
        orderId,
        amountCents,
      }: { accountId: string; holdKey: string; orderId: string; amountCents: number },
    ): Promise<{ spentCents: number; shortCents: number }> {
      if (!Number.isInteger(amountCents) || amountCents < 0)
        throw new RangeError("spend: a whole amount, zero or more");
      return inTransaction(trx, async (trx) => {
        await lockAccount(trx, accountId);
        const done = await trx
          .selectFrom("balance_entries")
          .select("amount_cents")
          .where("kind", "=", "spend")
          .where("account_id", "=", accountId)
          .where("hold_key", "=", holdKey)
          .executeTakeFirst();
        if (done) return { spentCents: -done.amount_cents, shortCents: Math.max(0, amountCents + done.amount_cents) };
        const [hold] = await openHolds(trx, { accountId, holdKeys: [holdKey] });
        if (hold) await closeHold(trx, hold, orderId);
        const account = await lockAccount(trx, accountId);
        const spent = Math.min(amountCents, account.balanceCents);
        if (spent > 0)
          await trx
            .insertInto("balance_entries")
            .values({
              account_id: accountId,
              kind: "spend",
              amount_cents: -spent,
              hold_key: holdKey,
              hold_entry_id: hold?.entryId ?? null,
              order_id: orderId,
            })
            .execute();
        return { spentCents: spent, shortCents: amountCents - spent };
      });
    },

    /** In the refund's transaction: the refund `refundId` gives `amountCents` back to the account, once. */
    async giveBack(
      trx: Writer,
      {
        accountId,
        refundId,
        orderId,
        amountCents,
        actor = null,
      }: { accountId: string; refundId: string; orderId: string | null; amountCents: number; actor?: string | null },
    ): Promise<void> {
      if (!Number.isInteger(amountCents) || amountCents <= 0) throw new RangeError("giveBack: a positive whole amount");
      await inTransaction(trx, async (trx) => {
        await lockAccount(trx, accountId);
        // Under the account's lock a second call sees the first's row (and the unique index stops any other path).
        const given = await trx
          .selectFrom("balance_entries")
          .select("id")
          .where("kind", "=", "refund")
          .where("account_id", "=", accountId)
          .where("refund_id", "=", refundId)
          .executeTakeFirst();
        if (given) return;
        await trx
          .insertInto("balance_entries")
          .values({
            account_id: accountId,
            kind: "refund",
            amount_cents: amountCents,
            refund_id: refundId,
            order_id: orderId,
            actor,
          })
          .execute();
      });
    },

    /**
     * An operator's change by hand, with its reason: adds, or takes away no more than is available (a larger removal is
     * refused with the amount that can be removed).
     */
    async adjust(
      executor: Writer,
      { accountId, amountCents, actor, note }: { accountId: string; amountCents: number; actor: string; note: string },
    ): Promise<void> {
      if (!Number.isInteger(amountCents) || amountCents === 0) throw new RangeError("adjust: a non-zero whole amount");
      await inTransaction(executor, async (trx) => {
        const account = await lockAccount(trx, accountId);
        if (account.balanceCents + amountCents < 0)
          throw new AppError("INVALID_INPUT", "That is more than the balance.", {
            details: { availableCents: account.balanceCents },
          });
        await trx
          .insertInto("balance_entries")
          .values({ account_id: accountId, kind: "adjust", amount_cents: amountCents, actor, note })
          .execute();
      });
    },

    /** The account's available balance lapses (an expired gift card): returns the cents expired. */
    async expire(executor: Writer, accountId: string, note: string | null = null): Promise<number> {
      return inTransaction(executor, async (trx) => {
        const account = await lockAccount(trx, accountId);
        if (account.balanceCents === 0) return 0;
        await trx
          .insertInto("balance_entries")
          .values({ account_id: accountId, kind: "expire", amount_cents: -account.balanceCents, note })
          .execute();
        return account.balanceCents;
      });
    },

    /** No more holds or spends (a refunded gift card); what it holds stays owed until expired or adjusted. */
    async disable(executor: Writer, accountId: string): Promise<void> {
      await inTransaction(executor, async (trx) => {
        await lockAccount(trx, accountId);
        await trx
          .updateTable("balance_accounts")
          .set({ disabled_at: sql<Date>`coalesce(disabled_at, now())` })
          .where("id", "=", accountId)
          .execute();
      });
    },

    /** What refunds of the order gave back, per account (the refund split's "already had back"). */
    async givenBackFor(orderId: string, executor: Writer = db): Promise<Map<string, number>> {
      const rows = await executor
        .selectFrom("balance_entries")
        .select(["account_id", sql<number>`sum(amount_cents)::int`.as("cents")])
        .where("kind", "=", "refund")
        .where("order_id", "=", orderId)
        .groupBy("account_id")
        .execute();
      return new Map(rows.map((row) => [row.account_id, row.cents]));
    },

    /** Runs releaseLapsedHolds every `intervalMs` (the reservation sweep's beat) until stopped. */
    startSweep(intervalMs: number, onError: (error: unknown) => void): { stop: () => Promise<void> } {
      let running: Promise<unknown> = Promise.resolve();
      const timer = setInterval(() => {
        running = ledger.releaseLapsedHolds().catch(onError);
      }, intervalMs);
      timer.unref();
      return {
        async stop() {
          clearInterval(timer);
          await running;
        },
      };
    },

    /** The sweep: holds past their time come back to their balances. Returns how many were released. */
    async releaseLapsedHolds(): Promise<number> {
      const lapsed = await openHolds(db, { lapsedBy: "now" });
      if (lapsed.length === 0) return 0;
      await db.transaction().execute((trx) => releaseEach(trx, lapsed));
      return lapsed.length;
    },
  };
  return ledger;
}

export type BalanceLedger = ReturnType<typeof createBalanceLedger>;
