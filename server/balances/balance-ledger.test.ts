import { expect, it } from "vitest";
import fc from "fast-check";
import { sql } from "kysely";
import { AppError } from "#shared/errors";
import { describeEachDatabase } from "#server/testing/test-database";
import type { DB } from "#server/db/client";
import { createBalanceLedger, type BalanceLedger } from "./balance-ledger";

/** One change a shopper's payments, the shop's refunds or an operator can make to a balance. */
type Step =
  | { op: "hold"; payment: number; cents: number }
  | { op: "release"; payment: number }
  | { op: "rename"; payment: number }
  | { op: "spend"; payment: number; cents: number }
  | { op: "refund"; refund: number; cents: number }
  | { op: "adjust"; cents: number }
  | { op: "expire" };

const cents = fc.integer({ min: 0, max: 6_000 });
const payment = fc.integer({ min: 0, max: 4 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("hold" as const), payment, cents }),
  fc.record({ op: fc.constant("release" as const), payment }),
  fc.record({ op: fc.constant("rename" as const), payment }),
  fc.record({ op: fc.constant("spend" as const), payment, cents }),
  fc.record({
    op: fc.constant("refund" as const),
    refund: fc.integer({ min: 0, max: 3 }),
    cents: fc.integer({ min: 1, max: 3_000 }),
  }),
  fc.record({
    op: fc.constant("adjust" as const),
    cents: fc.integer({ min: -4_000, max: 4_000 }).filter((n) => n !== 0),
  }),
  fc.constant({ op: "expire" as const }),
);

let run = 0;

async function apply(ledger: BalanceLedger, db: DB, accountId: string, prefix: string, taken: Step): Promise<void> {
  const key = (n: number) => `${prefix}:pay${n}`;
  try {
    switch (taken.op) {
      case "hold":
        await ledger.hold(db, accountId, key(taken.payment), taken.cents, { replaces: [`${key(taken.payment)}:old`] });
        return;
      case "release":
        await ledger.release(db, key(taken.payment));
        return;
      case "rename":
        await ledger.renameHold(db, key(taken.payment), `${key(taken.payment)}:old`);
        return;
      case "spend":
        await db.transaction().execute((trx) =>
          ledger.spend(trx, {
            accountId,
            holdKey: key(taken.payment),
            orderId: `order-${key(taken.payment)}`,
            amountCents: taken.cents,
          }),
        );
        return;
      case "refund":
        await ledger.giveBack(db, {
          accountId,
          refundId: `${prefix}:re${taken.refund}`,
          orderId: null,
          amountCents: taken.cents,
        });
        return;
      case "adjust":
        await ledger.adjust(db, { accountId, amountCents: taken.cents, actor: "staff", note: "by hand" });
        return;
      case "expire":
        await ledger.expire(db, accountId);
        return;
    }
  } catch (error) {
    // A removal larger than the balance is refused in words; nothing else may fail.
    if (error instanceof AppError && taken.op === "adjust") return;
    throw error;
  }
}

/** The account's stored balance, the sum of its rows, what was spent per payment and what each hold's closing says. */
async function ledgerFacts(db: DB, accountId: string) {
  const { rows } = await sql<{ balance: number; sum: number; spends: number; keys: number; twice: number }>`
    select a.balance_cents as balance,
      (select coalesce(sum(amount_cents), 0)::int from balance_entries where account_id = a.id) as sum,
      (select count(*)::int from balance_entries where account_id = a.id and kind = 'spend') as spends,
      (select count(distinct hold_key)::int from balance_entries where account_id = a.id and kind = 'spend') as keys,
      (select count(*)::int from (select hold_entry_id from balance_entries where account_id = a.id and kind = 'release'
        group by hold_entry_id having count(*) > 1) as closed) as twice
    from balance_accounts a where a.id = ${accountId}`.execute(db);
  return rows[0]!;
}

describeEachDatabase("the balance ledger", (getDatabase) => {
  const db = () => getDatabase().db;

  it("keeps every balance equal to the sum of its rows and never below zero, in any interleaving of changes", async () => {
    const ledger = createBalanceLedger(db());
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 10_000 }),
        // Batches of steps: the steps of one batch run at once (interleaved on PostgreSQL's pool), batches in turn.
        fc.array(fc.array(step, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
        async (initialCents, batches) => {
          const prefix = `run${run++}-${crypto.randomUUID().slice(0, 8)}`;
          const account = await ledger.openGiftCard(db(), { codeHash: prefix, lastFour: "7XQ2" });
          if (initialCents > 0) await ledger.issue(db(), account.id, initialCents);
          for (const batch of batches) {
            await Promise.all(batch.map((taken) => apply(ledger, db(), account.id, prefix, taken)));
            const facts = await ledgerFacts(db(), account.id);
            expect(facts.balance).toBe(facts.sum);
            expect(facts.balance).toBeGreaterThanOrEqual(0);
            expect(facts.spends).toBe(facts.keys);
            expect(facts.twice).toBe(0);
          }
          // Everything released: what is owed is what is available, and nothing is held.
          for (let n = 0; n < 5; n++) {
            await ledger.release(db(), `${prefix}:pay${n}`);
            await ledger.release(db(), `${prefix}:pay${n}:old`);
          }
          const figures = await ledger.figures(account.id);
          expect(figures.heldCents).toBe(0);
          expect(figures.availableCents).toBe((await ledgerFacts(db(), account.id)).sum);
        },
      ),
      { numRuns: 30 },
    );
  }, 240_000);

  it("holds no more than is available, and a payment's spend happens once however often it is recorded", async () => {
    const ledger = createBalanceLedger(db());
    const user = await db()
      .insertInto("users")
      .values({ email: `credit-${crypto.randomUUID()}@example.com`, password_hash: "x" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const account = await ledger.openStoreCredit(user.id);
    expect((await ledger.openStoreCredit(user.id)).id).toBe(account.id);
    await ledger.issue(db(), account.id, 5_000, { note: "Refund to store credit" });

    expect(await ledger.hold(db(), account.id, "pay-a", 3_000)).toBe(3_000);
    expect(await ledger.hold(db(), account.id, "pay-b", 3_000)).toBe(2_000);
    expect(await ledger.hold(db(), account.id, "pay-c", 3_000)).toBe(0);
    expect(await ledger.figures(account.id)).toEqual({ availableCents: 0, heldCents: 5_000, balanceCents: 5_000 });

    const spendA = () =>
      db()
        .transaction()
        .execute((trx) =>
          ledger.spend(trx, { accountId: account.id, holdKey: "pay-a", orderId: "order-a", amountCents: 3_000 }),
        );
    expect(await spendA()).toEqual({ spentCents: 3_000, shortCents: 0 });
    expect(await spendA()).toEqual({ spentCents: 3_000, shortCents: 0 });
    expect(await ledger.release(db(), "pay-b")).toBe(2_000);
    expect(await ledger.release(db(), "pay-b")).toBe(0);
    expect(await ledger.figures(account.id)).toEqual({ availableCents: 2_000, heldCents: 0, balanceCents: 2_000 });

    // A hold that lapsed and was released still spends what is there, and says what it could not.
    await ledger.hold(db(), account.id, "pay-d", 2_000, { expiresAt: new Date(Date.now() - 1_000) });
    expect(await ledger.releaseLapsedHolds()).toBeGreaterThanOrEqual(1);
    await ledger.adjust(db(), {
      accountId: account.id,
      amountCents: -500,
      actor: "staff",
      note: "goodwill taken back",
    });
    expect(
      await db()
        .transaction()
        .execute((trx) =>
          ledger.spend(trx, { accountId: account.id, holdKey: "pay-d", orderId: "order-d", amountCents: 2_000 }),
        ),
    ).toEqual({ spentCents: 1_500, shortCents: 500 });
    await expect(
      ledger.adjust(db(), { accountId: account.id, amountCents: -1, actor: "staff", note: "more" }),
    ).rejects.toThrow("That is more than the balance.");

    await ledger.giveBack(db(), { accountId: account.id, refundId: "re_1", orderId: "order-a", amountCents: 1_200 });
    await ledger.giveBack(db(), { accountId: account.id, refundId: "re_1", orderId: "order-a", amountCents: 1_200 });
    expect((await ledger.figures(account.id)).availableCents).toBe(1_200);

    // The rows are never changed or removed.
    await expect(sql`delete from balance_entries where account_id = ${account.id}`.execute(db())).rejects.toThrow();
  });
});
