/** Baskets, rates and promotions as fast-check draws them: the pricing function's and the refund function's properties. */

import fc from "fast-check";
import type { PricingInput, PromotionInput } from "#server/pricing/price-order";

export const lineArbitrary = fc.record({
  key: fc.uuid(),
  title: fc.string({ maxLength: 10 }),
  unitPriceCents: fc.integer({ min: 1, max: 99_999_999 }),
  quantity: fc.integer({ min: 1, max: 10 }),
  weightGrams: fc.integer({ min: 0, max: 50_000 }),
  taxable: fc.boolean(),
});
const methodArbitrary = fc.record({
  id: fc.uuid(),
  name: fc.string({ maxLength: 10 }),
  estimate: fc.constant(""),
  priceCents: fc.integer({ min: 0, max: 100_000 }),
  freeOverCents: fc.option(fc.integer({ min: 0, max: 100_000_000 }), { nil: null }),
  weightTiers: fc.array(
    fc.record({ upToGrams: fc.integer({ min: 1, max: 100_000 }), priceCents: fc.integer({ min: 0, max: 100_000 }) }),
    { maxLength: 3 },
  ),
});
const countryArbitrary = fc.constantFrom("US", "CA", "GB");
export const inputArbitrary: fc.Arbitrary<PricingInput> = fc.record({
  lines: fc.array(lineArbitrary, { minLength: 1, maxLength: 20 }),
  address: fc.option(fc.record({ country: countryArbitrary, state: fc.constantFrom("CA", "NY", null) }), { nil: null }),
  methodId: fc.constant(null),
  promotion: fc.oneof(
    fc.constant<PromotionInput>({ kind: "none" }),
    fc.integer({ min: 1, max: 100 }).map((percent): PromotionInput => ({ kind: "percentage", code: "P", percent })),
    fc
      .integer({ min: 1, max: 100_000_000 })
      .map((amountCents): PromotionInput => ({ kind: "amount", code: "A", amountCents })),
    fc.constant<PromotionInput>({ kind: "free-delivery", code: "F" }),
  ),
  rates: fc.record({
    zones: fc.array(
      fc.record({
        id: fc.uuid(),
        name: fc.string({ maxLength: 5 }),
        countries: fc.subarray(["US", "CA", "GB"]),
        states: fc.constant([]),
        methods: fc.array(methodArbitrary, { maxLength: 3 }),
      }),
      { maxLength: 2 },
    ),
    taxRates: fc.array(
      fc.record({
        id: fc.uuid(),
        country: countryArbitrary,
        state: fc.constantFrom("CA", "NY", null),
        rate: fc.integer({ min: 0, max: 100_000 }),
        taxesShipping: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
  }),
});
