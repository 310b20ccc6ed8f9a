import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inputArbitrary } from "#server/testing/pricing-arbitraries";
import { priceOrder } from "./price-order";
import { chargedOrder, quoteRefund, type ChargedOrder, type EarlierRefunds } from "./refund";

const NOTHING_YET: EarlierRefunds = { refundedCents: 0, quantities: [], shippingRefunded: false };

/** Applies one refund's quote to what was refunded before it. */
function after(earlier: EarlierRefunds, quote: ReturnType<typeof quoteRefund>): EarlierRefunds {
  const quantities = [...earlier.quantities];
  for (const line of quote.lines) quantities[line.index] = (quantities[line.index] ?? 0) + line.quantity;
  return {
    refundedCents: earlier.refundedCents + quote.totalCents,
    quantities,
    shippingRefunded: earlier.shippingRefunded || quote.shippingCents > 0,
  };
}

/** A priced basket as an order charged it. */
const orderArbitrary = inputArbitrary.map((input) => {
  const priced = priceOrder(input);
  return chargedOrder(
    priced.lines.map((line) => ({ priceCents: line.unitPriceCents, quantity: line.quantity })),
    priced,
    priced.totalCents,
  );
});

/** An order and a sequence of refund requests against it (quantities per line, shipping, a fee). */
const refundsArbitrary = orderArbitrary.chain((order) =>
  fc.tuple(
    fc.constant(order),
    fc.array(
      fc.record({
        quantities: fc.tuple(...order.lines.map((line) => fc.integer({ min: 0, max: line.quantity }))),
        includeShipping: fc.boolean(),
        returnFeeCents: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5_000 })),
        goodwillCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000 })),
      }),
      { maxLength: 6 },
    ),
  ),
);

describe("the refund function", () => {
  it("refunds a line's units at its price after its share of the discount, plus its tax, and shipping when asked", () => {
    // Two of $10.00 with $2.00 off the line and 10 % tax on the rest ($1.80), shipping $5.99 taxed 60 cents.
    const order: ChargedOrder = {
      lines: [
        { quantity: 2, amountCents: 2000, discountCents: 200, taxCents: 180 },
        { quantity: 1, amountCents: 500, discountCents: 0, taxCents: 50 },
      ],
      shippingCents: 659,
      totalCents: 2000 - 200 + 180 + 550 + 659,
    };
    const one = quoteRefund(order, NOTHING_YET, { quantities: [1], includeShipping: false, returnFeeCents: 0 });
    expect(one.lines).toEqual([{ index: 0, quantity: 1, amountCents: 990 }]);
    expect(one.totalCents).toBe(990);
    const rest = quoteRefund(order, after(NOTHING_YET, one), {
      quantities: [5, 1],
      includeShipping: true,
      returnFeeCents: 0,
    });
    expect(rest.lines).toEqual([
      { index: 0, quantity: 1, amountCents: 990 },
      { index: 1, quantity: 1, amountCents: 550 },
    ]);
    expect(rest.shippingCents).toBe(659);
    expect(one.totalCents + rest.totalCents).toBe(order.totalCents);
  });

  it("keeps a return fee back, and never refunds more than is left of the payment", () => {
    const order: ChargedOrder = {
      lines: [{ quantity: 1, amountCents: 1000, discountCents: 0, taxCents: 0 }],
      shippingCents: 0,
      totalCents: 1000,
    };
    expect(quoteRefund(order, NOTHING_YET, { quantities: [1], includeShipping: true, returnFeeCents: 300 })).toEqual({
      lines: [{ index: 0, quantity: 1, amountCents: 1000 }],
      shippingCents: 0,
      returnFeeCents: 300,
      totalCents: 700,
      leftCents: 1000,
    });
    // $9.97 went back by amount alone (goodwill) before the line was returned: 3 cents are left to give.
    const quote = quoteRefund(
      order,
      { refundedCents: 997, quantities: [], shippingRefunded: false },
      { quantities: [1], includeShipping: false, returnFeeCents: 0 },
    );
    expect(quote.totalCents).toBe(3);
  });

  it("a whole order refunded at once, shipping included, is exactly its total", () => {
    fc.assert(
      fc.property(orderArbitrary, (order) => {
        const quote = quoteRefund(order, NOTHING_YET, {
          quantities: order.lines.map((line) => line.quantity),
          includeShipping: true,
          returnFeeCents: 0,
        });
        expect(quote.totalCents).toBe(order.totalCents);
      }),
      { numRuns: 300 },
    );
  });

  it("any sequence of refunds never gives back more than was paid, nor a unit or the shipping twice, and ends exactly at the total", () => {
    fc.assert(
      fc.property(refundsArbitrary, ([order, requests]) => {
        let earlier = NOTHING_YET;
        let withoutFees = true;
        for (const request of requests) {
          if (request.goodwillCents > 0) {
            // A refund by amount alone, as the console allows, of at most what is left.
            const left = order.totalCents - earlier.refundedCents;
            earlier = { ...earlier, refundedCents: earlier.refundedCents + Math.min(left, request.goodwillCents) };
            if (Math.min(left, request.goodwillCents) > 0) withoutFees = false;
          }
          const quote = quoteRefund(order, earlier, request);
          expect(quote.totalCents).toBeGreaterThanOrEqual(0);
          expect(quote.totalCents).toBeLessThanOrEqual(order.totalCents - earlier.refundedCents);
          expect(quote.returnFeeCents).toBeLessThanOrEqual(request.returnFeeCents);
          for (const line of quote.lines) {
            expect(line.quantity).toBeGreaterThan(0);
            expect(line.amountCents).toBeGreaterThanOrEqual(0);
          }
          if (quote.returnFeeCents > 0) withoutFees = false;
          earlier = after(earlier, quote);
          order.lines.forEach((line, index) =>
            expect(earlier.quantities[index] ?? 0).toBeLessThanOrEqual(line.quantity),
          );
        }
        // Whatever is left, returned with its shipping: the refunds add up to the order's total, never more.
        const last = quoteRefund(order, earlier, {
          quantities: order.lines.map((line) => line.quantity),
          includeShipping: true,
          returnFeeCents: 0,
        });
        const refunded = earlier.refundedCents + last.totalCents;
        expect(refunded).toBeLessThanOrEqual(order.totalCents);
        if (withoutFees) expect(refunded).toBe(order.totalCents);
      }),
      { numRuns: 300 },
    );
  });
});
