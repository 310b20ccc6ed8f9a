import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatRate, taxLabel } from "#shared/pricing";
import { percentOf, priceOrder, shareByLargestRemainder, type PromotionInput, type ShopRates } from "./price-order";
import { inputArbitrary, lineArbitrary } from "#server/testing/pricing-arbitraries";

const NONE: PromotionInput = { kind: "none" };
const CALIFORNIA = { country: "US", state: "CA" };

/** The shop of the story: Standard $5.99 free over $35, Express $14.99, California 7.25 % without shipping. */
const STORY_RATES: ShopRates = {
  zones: [
    {
      id: "everywhere",
      name: "Everywhere",
      countries: ["US", "CA", "GB"],
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
        {
          id: "express",
          name: "Express delivery",
          estimate: "1-2 business days",
          priceCents: 1499,
          freeOverCents: null,
          weightTiers: [],
        },
      ],
    },
  ],
  taxRates: [{ id: "ca", country: "US", state: "CA", rate: 7250, taxesShipping: false }],
};

const book = { key: "book", title: "The Lean Startup", unitPriceCents: 1196, quantity: 1 };
const echo = { key: "echo", title: "Echo Dot", unitPriceCents: 9899, quantity: 1 };

describe("the issue's figures", () => {
  it("prices the $11.96 book sent by Express to California at $27.82", () => {
    const priced = priceOrder({
      lines: [book],
      address: CALIFORNIA,
      methodId: "express",
      promotion: NONE,
      rates: STORY_RATES,
    });
    expect(priced).toMatchObject({
      itemsCents: 1196,
      shippingCents: 1499,
      totalBeforeTaxCents: 2695,
      taxCents: 87,
      totalCents: 2782,
    });
    expect(priced.shipping?.name).toBe("Express delivery");
    expect(priced.taxes).toEqual([
      {
        rateId: "ca",
        country: "US",
        state: "CA",
        rate: 7250,
        taxesShipping: false,
        amountCents: 87,
        shippingTaxCents: 0,
      },
    ]);
    expect(priced.lines[0]).toMatchObject({ amountCents: 1196, discountCents: 0, taxCents: 87 });
  });

  it("ships the $98.99 Echo free by Standard and charges $106.17", () => {
    const priced = priceOrder({
      lines: [echo],
      address: CALIFORNIA,
      methodId: null,
      promotion: NONE,
      rates: STORY_RATES,
    });
    expect(priced).toMatchObject({ itemsCents: 9899, shippingCents: 0, taxCents: 718, totalCents: 10617 });
    expect(priced.shipping?.name).toBe("Standard delivery");
  });

  it("offers the cheapest option first and chooses it by default", () => {
    const priced = priceOrder({
      lines: [book],
      address: CALIFORNIA,
      methodId: null,
      promotion: NONE,
      rates: STORY_RATES,
    });
    expect(priced.deliveryOptions.map((option) => [option.name, option.priceCents])).toEqual([
      ["Standard delivery", 599],
      ["Express delivery", 1499],
    ]);
    expect(priced.shipping?.methodId).toBe("standard");
    expect(priced.totalCents).toBe(1196 + 599 + 87);
  });

  it("falls back to the cheapest when the chosen option does not serve the address", () => {
    const priced = priceOrder({
      lines: [book],
      address: CALIFORNIA,
      methodId: "gone",
      promotion: NONE,
      rates: STORY_RATES,
    });
    expect(priced.shipping?.methodId).toBe("standard");
  });
});

describe("delivery", () => {
  it("says an address no zone serves is undeliverable, and charges no shipping", () => {
    const priced = priceOrder({
      lines: [book],
      address: { country: "FR" },
      methodId: null,
      promotion: NONE,
      rates: STORY_RATES,
    });
    expect(priced.isUndeliverable).toBe(true);
    expect(priced.deliveryOptions).toEqual([]);
    expect(priced.shipping).toBeNull();
  });

  it("prices items alone before an address is known", () => {
    const priced = priceOrder({ lines: [book], address: null, methodId: null, promotion: NONE, rates: STORY_RATES });
    expect(priced).toMatchObject({
      isUndeliverable: false,
      shippingCents: 0,
      taxCents: 0,
      totalCents: 1196,
      shipping: null,
    });
  });

  it("serves a US state from the zone listing it before the zone listing the whole country", () => {
    const rates: ShopRates = {
      taxRates: [],
      zones: [
        {
          id: "us",
          name: "Rest of US",
          countries: ["US"],
          states: [],
          methods: [{ id: "m1", name: "Ground", estimate: "", priceCents: 500, freeOverCents: null, weightTiers: [] }],
        },
        {
          id: "far",
          name: "Far states",
          countries: ["US"],
          states: ["AK", "HI"],
          methods: [{ id: "m2", name: "Air", estimate: "", priceCents: 2500, freeOverCents: null, weightTiers: [] }],
        },
      ],
    };
    expect(
      priceOrder({ lines: [book], address: { country: "US", state: "HI" }, methodId: null, promotion: NONE, rates })
        .shipping?.name,
    ).toBe("Air");
    expect(
      priceOrder({ lines: [book], address: { country: "US", state: "NY" }, methodId: null, promotion: NONE, rates })
        .shipping?.name,
    ).toBe("Ground");
  });

  it("charges the first weight tier that holds the basket's weight, and the method's price above every tier", () => {
    const rates: ShopRates = {
      taxRates: [],
      zones: [
        {
          id: "z",
          name: "Z",
          countries: ["GB"],
          states: [],
          methods: [
            {
              id: "m",
              name: "Post",
              estimate: "",
              priceCents: 2000,
              freeOverCents: null,
              weightTiers: [
                { upToGrams: 2000, priceCents: 900 },
                { upToGrams: 500, priceCents: 400 },
              ],
            },
          ],
        },
      ],
    };
    const price = (weightGrams: number, quantity: number) =>
      priceOrder({
        lines: [{ ...book, weightGrams, quantity }],
        address: { country: "GB" },
        methodId: null,
        promotion: NONE,
        rates,
      }).shippingCents;
    expect(price(250, 2)).toBe(400);
    expect(price(250, 3)).toBe(900);
    expect(price(1000, 3)).toBe(2000);
    expect(
      priceOrder({ lines: [book], address: { country: "GB" }, methodId: null, promotion: NONE, rates }).shippingCents,
    ).toBe(400);
  });
});

describe("tax", () => {
  it("takes the state's rate before the country's, and the country's for other states", () => {
    const rates: ShopRates = {
      zones: STORY_RATES.zones,
      taxRates: [
        { id: "us", country: "US", state: null, rate: 5000, taxesShipping: false },
        { id: "ca", country: "US", state: "CA", rate: 7250, taxesShipping: false },
      ],
    };
    expect(
      priceOrder({ lines: [book], address: CALIFORNIA, methodId: null, promotion: NONE, rates }).taxes[0]?.rateId,
    ).toBe("ca");
    expect(
      priceOrder({ lines: [book], address: { country: "US", state: "NV" }, methodId: null, promotion: NONE, rates })
        .taxes[0]?.rateId,
    ).toBe("us");
    expect(
      priceOrder({ lines: [book], address: { country: "GB" }, methodId: null, promotion: NONE, rates }).taxes,
    ).toEqual([]);
  });

  it("taxes shipping when the rate says so, rounded on its own", () => {
    const rates: ShopRates = {
      ...STORY_RATES,
      taxRates: [{ id: "ca", country: "US", state: "CA", rate: 7250, taxesShipping: true }],
    };
    const priced = priceOrder({ lines: [book], address: CALIFORNIA, methodId: "express", promotion: NONE, rates });
    // 14.99 x 7.25 % = 1.086775 -> 1.09; the book's 0.8671 -> 0.87.
    expect(priced.taxes[0]).toMatchObject({ shippingTaxCents: 109, amountCents: 196 });
    expect(priced.totalCents).toBe(1196 + 1499 + 196);
  });

  it("charges no tax on a line whose variant does not charge tax", () => {
    const priced = priceOrder({
      lines: [book, { ...echo, taxable: false }],
      address: CALIFORNIA,
      methodId: null,
      promotion: NONE,
      rates: STORY_RATES,
    });
    expect(priced.lines.map((line) => line.taxCents)).toEqual([87, 0]);
    expect(priced.taxCents).toBe(87);
  });

  it("rounds half away from zero", () => {
    expect(percentOf(1000, 50)).toBe(1); // 0.5 cent
    expect(percentOf(999, 50)).toBe(0); // 0.4995 cent
    expect(percentOf(-1000, 50)).toBe(-1);
    expect(percentOf(200, 7250)).toBe(15); // 14.5 cents
  });

  it("names a rate with up to three decimals", () => {
    expect(formatRate(7250)).toBe("7.25%");
    expect(formatRate(6000)).toBe("6%");
    expect(formatRate(8875)).toBe("8.875%");
    expect(taxLabel({ country: "US", state: "CA", rate: 7250 })).toBe("Tax (US-CA 7.25%)");
  });
});

describe("promotions", () => {
  it("takes a percentage off the items, rounded half away from zero and shared by largest remainder", () => {
    // 10 % of 3 x $0.35 = $0.105 -> $0.11, shared 0.035 each: one cent more to the first line.
    const lines = ["a", "b", "c"].map((key) => ({ key, title: key, unitPriceCents: 35, quantity: 1 }));
    const priced = priceOrder({
      lines,
      address: null,
      methodId: null,
      promotion: { kind: "percentage", code: "TEN", percent: 10 },
      rates: STORY_RATES,
    });
    expect(priced.discountCents).toBe(11);
    expect(priced.lines.map((line) => line.discountCents)).toEqual([4, 4, 3]);
    expect(priced.promotion).toEqual({ code: "TEN", kind: "percentage" });
  });

  it("prices SAVE10 on the $199.99 monitor at $179.99 with no shipping or tax configured", () => {
    const rates: ShopRates = {
      zones: [
        {
          ...STORY_RATES.zones[0]!,
          methods: [{ ...STORY_RATES.zones[0]!.methods[0]!, priceCents: 0, freeOverCents: null }],
        },
      ],
      taxRates: [],
    };
    const monitor = { key: "m", title: "Monitor", unitPriceCents: 19999, quantity: 1 };
    const priced = priceOrder({
      lines: [monitor],
      address: CALIFORNIA,
      methodId: null,
      promotion: { kind: "percentage", code: "SAVE10", percent: 10 },
      rates,
    });
    expect(priced).toMatchObject({ discountCents: 2000, totalCents: 17999 });
  });

  it("caps an amount off at the items", () => {
    const priced = priceOrder({
      lines: [book],
      address: CALIFORNIA,
      methodId: "express",
      promotion: { kind: "amount", code: "BIG", amountCents: 5000 },
      rates: STORY_RATES,
    });
    expect(priced).toMatchObject({ discountCents: 1196, taxCents: 0, totalCents: 1499 });
  });

  it("compares Free over with the items after the discount", () => {
    const priced = priceOrder({
      lines: [{ ...book, unitPriceCents: 3600 }],
      address: CALIFORNIA,
      methodId: null,
      promotion: { kind: "amount", code: "TWO", amountCents: 200 },
      rates: STORY_RATES,
    });
    expect(priced.shippingCents).toBe(599);
  });

  it("makes every delivery option free with a free-delivery code, not a discount", () => {
    const priced = priceOrder({
      lines: [book],
      address: CALIFORNIA,
      methodId: "express",
      promotion: { kind: "free-delivery", code: "SHIPFREE" },
      rates: STORY_RATES,
    });
    expect(priced.deliveryOptions.map((option) => option.priceCents)).toEqual([0, 0]);
    expect(priced).toMatchObject({ discountCents: 0, shippingCents: 0, totalCents: 1196 + 87 });
    expect(priced.shipping).toMatchObject({ name: "Express delivery", isFreeDelivery: true });
  });

  it("taxes each line on its amount after its share of the discount", () => {
    const priced = priceOrder({
      lines: [book, echo],
      address: CALIFORNIA,
      methodId: null,
      promotion: { kind: "percentage", code: "HALF", percent: 50 },
      rates: STORY_RATES,
    });
    expect(priced.lines.map((line) => [line.discountCents, line.taxCents])).toEqual([
      [598, percentOf(598, 7250)],
      [4950, percentOf(9899 - 4950, 7250)],
    ]);
  });
});

describe("largest remainder", () => {
  it("gives the leftover cents to the largest remainders", () => {
    expect(shareByLargestRemainder(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(shareByLargestRemainder(10, [5, 3, 2])).toEqual([5, 3, 2]);
    expect(shareByLargestRemainder(7, [0, 0])).toEqual([0, 0]);
  });
});

describe("properties", () => {
  it("the total is always items - discount + shipping + tax, and no part is negative", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const priced = priceOrder(input);
        expect(priced.totalCents).toBe(
          priced.itemsCents - priced.discountCents + priced.shippingCents + priced.taxCents,
        );
        for (const figure of [
          priced.itemsCents,
          priced.discountCents,
          priced.shippingCents,
          priced.taxCents,
          priced.totalCents,
        ]) {
          expect(Number.isSafeInteger(figure) && figure >= 0).toBe(true);
        }
        expect(priced.discountCents).toBeLessThanOrEqual(priced.itemsCents);
        expect(priced.lines.reduce((total, line) => total + line.discountCents, 0)).toBe(priced.discountCents);
        for (const line of priced.lines)
          expect(line.discountCents >= 0 && line.discountCents <= line.amountCents && line.taxCents >= 0).toBe(true);
        expect(priced.taxes.reduce((total, tax) => total + tax.amountCents, 0)).toBe(priced.taxCents);
      }),
      { numRuns: 500 },
    );
  });

  it("a basket priced twice gives the same figures", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        expect(priceOrder(structuredClone(input))).toEqual(priceOrder(input));
      }),
      { numRuns: 300 },
    );
  });

  it("a percentage discount is the items' percentage rounded half away from zero", () => {
    fc.assert(
      fc.property(
        fc.array(lineArbitrary, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 100 }),
        (lines, percent) => {
          const priced = priceOrder({
            lines,
            address: null,
            methodId: null,
            promotion: { kind: "percentage", code: "P", percent },
            rates: { zones: [], taxRates: [] },
          });
          const exactHundredths = priced.itemsCents * percent; // the discount x 100
          expect(priced.discountCents).toBe(Math.floor(exactHundredths / 100) + (exactHundredths % 100 >= 50 ? 1 : 0));
        },
      ),
    );
  });
});
