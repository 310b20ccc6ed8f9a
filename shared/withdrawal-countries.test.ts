import { describe, expect, it } from "vitest";
import { COUNTRIES } from "./address";
import { EEA_ONLY_COUNTRY_CODES, EU_COUNTRY_CODES, hasRightOfWithdrawal } from "./withdrawal-countries";

describe("the countries with the EU's right of withdrawal", () => {
  it("are the 27 EU member states and Iceland, Liechtenstein and Norway, each once", () => {
    expect(EU_COUNTRY_CODES).toHaveLength(27);
    expect(new Set(EU_COUNTRY_CODES).size).toBe(27);
    expect([...EEA_ONLY_COUNTRY_CODES].sort()).toEqual(["IS", "LI", "NO"]);
    for (const code of [...EU_COUNTRY_CODES, ...EEA_ONLY_COUNTRY_CODES]) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it("hold for Germany, France, Norway and Greece (as GR), in any case", () => {
    for (const code of ["DE", "FR", "NO", "GR", "de", "is", "LI"]) expect(hasRightOfWithdrawal(code)).toBe(true);
  });

  it("do not hold for the US, the UK, Switzerland, the EU's own code for Greece, or no address", () => {
    for (const code of ["US", "GB", "CH", "EL", "EU", "", null, undefined])
      expect(hasRightOfWithdrawal(code)).toBe(false);
  });

  it("among the countries the shop ships to, are exactly its European Union and EEA ones", () => {
    const withRight = COUNTRIES.filter((country) => hasRightOfWithdrawal(country.code)).map((country) => country.code);
    expect(withRight.sort()).toEqual(["AT", "BE", "DE", "DK", "ES", "FR", "IE", "IT", "NL", "NO", "SE"]);
  });
});
