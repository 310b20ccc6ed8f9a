import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { PriceBreakdown } from "#shared/pricing";
import { applyBalances } from "./apply-balances";
import { splitRefund } from "./refund";

const priced = (totalCents: number): PriceBreakdown => ({
  itemsCents: totalCents,
  discountCents: 0,
  shippingCents: 0,
  totalBeforeTaxCents: totalCents,
  taxCents: 0,
  totalCents,
  lines: [],
  shipping: null,
  deliveryOptions: [],
  isUndeliverable: false,
  taxes: [],
  promotion: null,
});
const credit = (availableCents: number, accountId = "credit") => ({
  accountId,
  kind: "store_credit" as const,
  lastFour: null,
  availableCents,
});

describe("balances paying for an order", () => {
  it("pays the whole total, or part of it with the card paying the rest", () => {
    expect(applyBalances(priced(3_000), [credit(5_000)])).toMatchObject({
      totalCents: 3_000,
      dueCents: 0,
      balances: [{ accountId: "credit", amountCents: 3_000 }],
    });
    expect(applyBalances(priced(3_000), [credit(2_000)])).toMatchObject({ dueCents: 1_000 });
    expect(applyBalances(priced(3_000), [credit(0)])).toMatchObject({ dueCents: 3_000, balances: [] });
  });

  it("never leaves the card less than it can take", () => {
    // $30.00 less $29.80 would leave 20 cents for the card: the balance pays 50 cents less instead.
    expect(applyBalances(priced(3_000), [credit(2_980)])).toMatchObject({
      dueCents: 50,
      balances: [{ amountCents: 2_950 }],
    });
  });

  it("applies balances in order, each paying at most what it has, together never more than the total", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 4 }),
        (total, available) => {
          const result = applyBalances(
            priced(total),
            available.map((cents, index) => credit(cents, `account-${index}`)),
          );
          const paid = (result.balances ?? []).reduce((sum, balance) => sum + balance.amountCents, 0);
          expect(paid + result.dueCents!).toBe(total);
          // Nothing or at least the card minimum is left for the card, unless the total itself is less.
          expect(result.dueCents === 0 || result.dueCents! >= 50 || result.dueCents === total).toBe(true);
          for (const balance of result.balances ?? []) {
            const index = Number(balance.accountId.slice("account-".length));
            expect(balance.amountCents).toBeGreaterThan(0);
            expect(balance.amountCents).toBeLessThanOrEqual(available[index]!);
          }
        },
      ),
    );
  });
});

describe("a refund of an order paid partly by balances", () => {
  it("goes back to the balances first, then to the card", () => {
    expect(splitRefund(4_000, [{ accountId: "credit", leftCents: 3_000 }])).toEqual({
      balances: [{ accountId: "credit", amountCents: 3_000 }],
      cardCents: 1_000,
    });
    expect(splitRefund(1_000, [{ accountId: "credit", leftCents: 3_000 }])).toEqual({
      balances: [{ accountId: "credit", amountCents: 1_000 }],
      cardCents: 0,
    });
    // A balance that has had everything back already takes nothing more.
    expect(splitRefund(1_000, [{ accountId: "credit", leftCents: 0 }])).toEqual({ balances: [], cardCents: 1_000 });
  });

  it("splits any refund into parts that add up to it, none over what a balance paid", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.array(fc.integer({ min: -100, max: 50_000 }), { maxLength: 4 }),
        (amount, lefts) => {
          const split = splitRefund(
            amount,
            lefts.map((leftCents, index) => ({ accountId: `account-${index}`, leftCents })),
          );
          const back = split.balances.reduce((sum, balance) => sum + balance.amountCents, 0);
          expect(back + split.cardCents).toBe(amount);
          expect(split.cardCents).toBeGreaterThanOrEqual(0);
          for (const balance of split.balances)
            expect(balance.amountCents).toBeLessThanOrEqual(lefts[Number(balance.accountId.slice(8))]!);
        },
      ),
    );
  });
});
