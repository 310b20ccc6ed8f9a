import { describe, expect, it } from "vitest";
import { methodFormSchema } from "./shipping-schemas";

/** The console's delivery method form as an operator fills it in; `weightTiers` is the story's. */
const method = (weightTiers: string, zoneId = "00000000-0000-4000-8000-000000000000") =>
  methodFormSchema.safeParse({
    intent: "add-method",
    zoneId,
    name: "Standard",
    estimate: "3–5 days",
    price: "5.99",
    freeOver: "",
    weightTiers,
  });

describe("a delivery method's weight tiers", () => {
  it("take the same price cap as every other price: $999,999.99, and a larger tier is refused under its field", () => {
    expect(method("500 = 999999.99").data?.weightTiers).toEqual([{ upToGrams: 500, priceCents: 99_999_999 }]);
    for (const tier of ["500 = 1000000.00", "500 = 21474836.47", "2000 = 99999999999"]) {
      const refused = method(`100 = 1.00\n${tier}`);
      expect(refused.success, tier).toBe(false);
      expect(refused.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
        ["weightTiers", `A tier's price is at most $999,999.99 ("${tier}" is more).`],
      ]);
    }
  });

  it("refuse a zone or method id that is not an id, before any query", () => {
    expect(method("").success).toBe(true);
    expect(method("", "not-a-uuid").error?.issues.map((issue) => issue.path.join("."))).toEqual(["zoneId"]);
  });
});
