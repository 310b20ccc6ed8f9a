// Store credit as the console sees it: a customer's balance and history, adding and removing credit with a note, the
// dashboard's figures and the outstanding balances' CSV.

import { sql } from "kysely";
import { formatCents } from "#shared/money";
import type { DB } from "#server/db/client";
import type { BalanceEntryKind } from "#server/db/schema";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { addDays, startOfDate } from "#server/calendar/shop-calendar";
import { csvDownload } from "#server/imports/csv-download";
import type { BalanceFigures, BalanceLedger } from "./balance-ledger";

/** The console's history of one balance: newest first, at most this many rows. */
const HISTORY_ROWS = 50;

/** How a ledger row reads in the console's history. */
export const ENTRY_LABELS: Record<BalanceEntryKind, string> = {
  issue: "Issued",
  hold: "Held for a payment",
  release: "Released",
  spend: "Spent",
  refund: "Refunded to it",
  adjust: "Adjusted",
  expire: "Expired",
};

export interface BalanceHistoryRow {
  id: string;
  kind: BalanceEntryKind;
  amountCents: number;
  orderNumber: string | null;
  actor: string | null;
  note: string | null;
  createdAt: Date;
}

/** One row of the outstanding balances' CSV: what the shop owed on a balance at the end of a day. */
export interface OutstandingBalance {
  accountId: string;
  kind: "store_credit" | "gift_card";
  /** The account's e-mail (store credit), or the card's last four. */
  holder: string;
  owedCents: number;
}

/**
 * Store credit as the shopper and the operator see it: the account's figure on /account, the console's customer
 * (looked up by e-mail) with "Add credit" and "Remove credit" (each an adjustment with a note, audited), the
 * dashboard's credit issued and spent, and what is owed on every balance on a date (the liability).
 */
export function createStoreCredit(db: DB, ledger: BalanceLedger, timeZone: () => Promise<string>) {
  async function history(accountId: string): Promise<BalanceHistoryRow[]> {
    const rows = await db
      .selectFrom("balance_entries")
      .leftJoin("orders", "orders.id", "balance_entries.order_id")
      .select([
        sql<string>`balance_entries.id::text`.as("id"),
        "balance_entries.kind",
        "balance_entries.amount_cents",
        "orders.number",
        "balance_entries.actor",
        "balance_entries.note",
        "balance_entries.created_at",
      ])
      .where("balance_entries.account_id", "=", accountId)
      // Holds and their releases are payments in progress: the history shows what moved the balance for good.
      .where("balance_entries.kind", "not in", ["hold", "release"])
      .orderBy("balance_entries.id", "desc")
      .limit(HISTORY_ROWS)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      amountCents: row.amount_cents,
      orderNumber: row.number,
      actor: row.actor,
      note: row.note,
      createdAt: row.created_at,
    }));
  }

  async function change(actor: Actor, userId: string, amountCents: number, note: string): Promise<void> {
    const account = await ledger.openStoreCredit(userId);
    await db.transaction().execute(async (trx) => {
      const before = (await ledger.findAccount(account.id, trx))?.balanceCents ?? 0;
      await ledger.adjust(trx, { accountId: account.id, amountCents, actor: actor.email, note });
      const user = await trx.selectFrom("users").select("email").where("id", "=", userId).executeTakeFirst();
      await recordAudit(trx, actor, {
        action: amountCents > 0 ? "store_credit.add" : "store_credit.remove",
        subject: user?.email ?? userId,
        before: { storeCredit: formatCents(before) },
        after: { storeCredit: formatCents(before + amountCents), note },
      });
    });
  }

  const service = {
    /** The account's store credit: what it can spend now and what is held by a payment being made. */
    async ofAccount(userId: string): Promise<BalanceFigures> {
      // One statement: the page reads it beside its other questions.
      const row = await db
        .selectFrom("balance_accounts as account")
        .select([
          "account.balance_cents",
          sql<number>`coalesce((select -sum(hold.amount_cents) from balance_entries hold where hold.account_id = account.id
            and hold.kind = 'hold' and not exists (select 1 from balance_entries closed where closed.kind = 'release'
            and closed.hold_entry_id = hold.id)), 0)::int`.as("held"),
        ])
        .where("account.kind", "=", "store_credit")
        .where("account.user_id", "=", userId)
        .executeTakeFirst();
      if (!row) return { availableCents: 0, heldCents: 0, balanceCents: 0 };
      return { availableCents: row.balance_cents, heldCents: row.held, balanceCents: row.balance_cents + row.held };
    },

    /** The console's customer by e-mail, with their store credit and its history; null for no such account. */
    async customer(email: string) {
      const user = await db
        .selectFrom("users")
        .select(["id", "email", "created_at"])
        .where("email", "=", email.trim().toLowerCase())
        .executeTakeFirst();
      if (!user) return null;
      const account = await ledger.findStoreCredit(user.id);
      return {
        user: { id: user.id, email: user.email, createdAt: user.created_at },
        figures: account ? await ledger.figures(account.id) : { availableCents: 0, heldCents: 0, balanceCents: 0 },
        history: account ? await history(account.id) : [],
      };
    },

    /** "Add credit": an adjustment by the operator, with its note. */
    addCredit: (actor: Actor, userId: string, amountCents: number, note: string) =>
      change(actor, userId, amountCents, note),

    /** "Remove credit": at most what is available (a larger amount is refused with the balance). */
    removeCredit: (actor: Actor, userId: string, amountCents: number, note: string) =>
      change(actor, userId, -amountCents, note),

    /**
     * The dashboard's figures for a period: store credit issued (given by hand, refunded to credit, issued) and spent
     * on orders (less what refunds gave back to it), in cents.
     */
    async figures(start: Date, end: Date): Promise<{ issuedCents: number; spentCents: number }> {
      const row = await db
        .selectFrom("balance_entries")
        .innerJoin("balance_accounts", "balance_accounts.id", "balance_entries.account_id")
        .select([
          sql<number>`coalesce(sum(case when balance_entries.kind in ('issue', 'refund') or (balance_entries.kind = 'adjust' and balance_entries.amount_cents > 0) then balance_entries.amount_cents else 0 end), 0)::int`.as(
            "issued",
          ),
          sql<number>`coalesce(-sum(case when balance_entries.kind = 'spend' then balance_entries.amount_cents else 0 end), 0)::int`.as(
            "spent",
          ),
        ])
        .where("balance_accounts.kind", "=", "store_credit")
        .where("balance_entries.created_at", ">=", start)
        .where("balance_entries.created_at", "<", end)
        .executeTakeFirstOrThrow();
      return { issuedCents: row.issued, spentCents: row.spent };
    },

    /**
     * What the shop owed on each balance at `before` (the end of a day): the sum of its rows written before then, holds
     * and their releases left out (money held for a payment is still owed until it is spent). Balances at zero are left
     * out. A page at a time, in account order, for a streamed CSV.
     */
    async *outstanding(before: Date): AsyncGenerator<OutstandingBalance> {
      for (let after = "00000000-0000-0000-0000-000000000000"; ;) {
        const rows = await db
          .selectFrom("balance_entries")
          .innerJoin("balance_accounts", "balance_accounts.id", "balance_entries.account_id")
          .leftJoin("users", "users.id", "balance_accounts.user_id")
          .select([
            "balance_accounts.id",
            "balance_accounts.kind",
            "users.email",
            "balance_accounts.last_four",
            sql<number>`sum(balance_entries.amount_cents)::int`.as("owed"),
          ])
          .where("balance_entries.kind", "not in", ["hold", "release"])
          .where("balance_entries.created_at", "<", before)
          .where("balance_accounts.id", ">", after)
          .groupBy(["balance_accounts.id", "balance_accounts.kind", "users.email", "balance_accounts.last_four"])
          .orderBy("balance_accounts.id")
          .limit(500)
          .execute();
        for (const row of rows)
          if (row.owed !== 0)
            yield {
              accountId: row.id,
              kind: row.kind,
              holder:
                row.kind === "gift_card"
                  ? `Gift card ending ${row.last_four ?? ""}`
                  : (row.email ?? "(deleted account)"),
              owedCents: row.owed,
            };
        if (rows.length < 500) return;
        after = rows.at(-1)!.id;
      }
    },

    /** "Outstanding balances" as a CSV: every balance owed at the end of `on` (YYYY-MM-DD, the shop's time zone). */
    async outstandingCsv(request: Request, on: string): Promise<Response> {
      const before = startOfDate(addDays(on, 1), await timeZone());
      async function* rows() {
        for await (const balance of service.outstanding(before))
          yield [
            on,
            balance.kind === "gift_card" ? "Gift card" : "Store credit",
            balance.holder,
            (balance.owedCents / 100).toFixed(2),
          ];
      }
      return csvDownload(request, {
        fileName: `outstanding-balances-${on}.csv`,
        columns: ["Date", "Kind", "Holder", "Outstanding"],
        rows: rows(),
      });
    },
  };
  return service;
}

export type StoreCredit = ReturnType<typeof createStoreCredit>;
