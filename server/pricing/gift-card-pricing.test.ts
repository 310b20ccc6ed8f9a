import { describe, expect, it } from "vitest";
import { applyBalances } from "./apply-balances";
import { priceOrder, type PromotionInput, type ShopRates } from "./price-order";

const NONE: PromotionInput = { kind: "none" };
const CALIFORNIA = { country: "US", state: "CA" };

function ratesWith({ taxesGiftCards }: { taxesGiftCards: boolean }): ShopRates {
  return {
    zones: [
      {
        id: "us",
        name: "United States",
        countries: ["US"],
        states: [],
        methods: [
          {
            id: "standard",
            name: "Standard delivery",
            estimate: "3-5 business days",
            priceCents: 599,
            freeOverCents: 3500,
            weightTiers: [],
          },
        ],
      },
    ],
    taxRates: [{ id: "ca", country: "US", state: "CA", rate: 7250, taxesShipping: false, taxesGiftCards }],
  };
}

const book = { key: "book", title: "The Lean Startup", unitPriceCents: 1196, quantity: 1, weightGrams: 400 };
const giftCard = { key: "card", title: "Gift card", unitPriceCents: 5000, quantity: 1, isGiftCard: true };

describe("gift cards in the pricing function", () => {
  it("need no delivery and carry no tax when they are all the basket holds", () => {
    const priced = priceOrder({
      lines: [giftCard],
      address: CALIFORNIA,
      methodId: null,
      promotion: NONE,
      rates: ratesWith({ taxesGiftCards: false }),
    });
    expect(priced).toMatchObject({
      itemsCents: 5000,
      shippingCents: 0,
      taxCents: 0,
      totalCents: 5000,
      shipping: null,
      isUndeliverable: false,
      giftCardsCents: 5000,
    });
  });

  it("are sold to an address no delivery zone serves", () => {
    const priced = priceOrder({
      lines: [giftCard],
      address: { country: "FR" },
      methodId: null,
      promotion: NONE,
      rates: ratesWith({ taxesGiftCards: false }),
    });
    expect(priced.isUndeliverable).toBe(false);
    expect(priced.totalCents).toBe(5000);
  });

  it("are taxed where a rate says gift cards are", () => {
    const priced = priceOrder({
      lines: [giftCard],
      address: CALIFORNIA,
      methodId: null,
      promotion: NONE,
      rates: ratesWith({ taxesGiftCards: true }),
    });
    expect(priced.taxCents).toBe(363);
    expect(priced.giftCardsCents).toBe(5363);
  });

  it("are not discounted by a promotion code, which discounts the other lines only", () => {
    const percent = priceOrder({
      lines: [book, giftCard],
      address: CALIFORNIA,
      methodId: null,
      promotion: { kind: "percentage", code: "TEN", percent: 10 },
      rates: ratesWith({ taxesGiftCards: false }),
    });
    expect(percent.discountCents).toBe(120);
    expect(percent.lines.find((line) => line.key === "card")?.discountCents).toBe(0);
    const amount = priceOrder({
      lines: [book, giftCard],
      address: CALIFORNIA,
      methodId: null,
      promotion: { kind: "amount", code: "TWENTY", amountCents: 2000 },
      rates: ratesWith({ taxesGiftCards: false }),
    });
    // Capped at the book: the $20 off cannot come out of the gift card.
    expect(amount.discountCents).toBe(1196);
    expect(amount.totalCents).toBe(5000 + 599);
  });

  it("count nothing towards free delivery of the rest", () => {
    const priced = priceOrder({
      lines: [book, giftCard],
      address: CALIFORNIA,
      methodId: null,
      promotion: NONE,
      rates: ratesWith({ taxesGiftCards: false }),
    });
    // $61.96 of items, but only $11.96 of them are delivered: under "Free over $35".
    expect(priced.shippingCents).toBe(599);
    expect(priced.taxCents).toBe(87);
    expect(priced.totalCents).toBe(1196 + 5000 + 599 + 87);
    expect(priced.giftCardsCents).toBe(5000);
  });

  it("leave a basket without them priced as before", () => {
    const priced = priceOrder({
      lines: [book],
      address: CALIFORNIA,
      methodId: null,
      promotion: NONE,
      rates: ratesWith({ taxesGiftCards: false }),
    });
    expect(priced.giftCardsCents).toBe(0);
    expect(priced.totalCents).toBe(1196 + 599 + 87);
  });
});

describe("gift cards paying", () => {
  it("never pay for gift cards: a $20 card on a $50 gift card and an $11.96 book pays the book only", () => {
    const priced = priceOrder({
      lines: [book, giftCard],
      address: CALIFORNIA,
      methodId: null,
      promotion: NONE,
      rates: ratesWith({ taxesGiftCards: false }),
    });
    const paid = applyBalances(priced, [
      { accountId: "card", kind: "gift_card", lastFour: "7XQ2", availableCents: 2_000 },
      { accountId: "credit", kind: "store_credit", lastFour: null, availableCents: 10_000 },
    ]);
    // The book, its delivery and its tax: $18.82 by the gift card; store credit may pay the rest.
    expect(paid.balances).toEqual([
      { accountId: "card", kind: "gift_card", lastFour: "7XQ2", amountCents: 1_196 + 599 + 87 },
      { accountId: "credit", kind: "store_credit", lastFour: null, amountCents: 5_000 },
    ]);
    expect(paid.dueCents).toBe(0);
  });
});
