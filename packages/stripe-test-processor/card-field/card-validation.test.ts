import { describe, expect, it } from "vitest";
import {
  cardFieldMessages,
  detectBrand,
  formatCardNumber,
  formatCvc,
  formatExpiry,
  formatPostalCode,
  luhnValid,
  validateCard,
  type CardInput,
} from "./card-validation.ts";

// 15 May 2026, local time: expiry checks read the shopper's own calendar.
const now = new Date(2026, 4, 15, 12, 0, 0);

const visa = "4242 4242 4242 4242";
const amex = "3782 822463 10005";
const goodCard: CardInput = { number: visa, expiry: "12 / 30", cvc: "123", postalCode: "94103" };

const fieldsOf = (input: Partial<CardInput>) => validateCard({ ...goodCard, ...input }, now).fields;

describe("detectBrand", () => {
  it("knows the brands of Stripe's test cards", () => {
    expect(detectBrand("4242424242424242")).toBe("visa");
    expect(detectBrand("5555 5555 5555 4444")).toBe("mastercard");
    expect(detectBrand("2223003122003222")).toBe("mastercard");
    expect(detectBrand("378282246310005")).toBe("amex");
    expect(detectBrand("371449635398431")).toBe("amex");
  });

  it("names a brand as soon as the first digits are certain, and not before", () => {
    expect(detectBrand("")).toBe("unknown");
    expect(detectBrand("4")).toBe("visa");
    expect(detectBrand("3")).toBe("unknown");
    expect(detectBrand("34")).toBe("amex");
    expect(detectBrand("37")).toBe("amex");
    expect(detectBrand("35")).toBe("unknown");
    expect(detectBrand("5")).toBe("unknown");
    expect(detectBrand("51")).toBe("mastercard");
    expect(detectBrand("55")).toBe("mastercard");
    expect(detectBrand("56")).toBe("unknown");
    expect(detectBrand("50")).toBe("unknown");
  });

  it("takes Mastercard's 2-series only inside 2221-2720", () => {
    expect(detectBrand("2")).toBe("unknown");
    expect(detectBrand("22")).toBe("unknown"); // 2200-2220 are not Mastercard
    expect(detectBrand("222")).toBe("unknown");
    expect(detectBrand("2220")).toBe("unknown");
    expect(detectBrand("2221")).toBe("mastercard");
    expect(detectBrand("223")).toBe("mastercard");
    expect(detectBrand("23")).toBe("mastercard");
    expect(detectBrand("26")).toBe("mastercard");
    expect(detectBrand("27")).toBe("unknown");
    expect(detectBrand("271")).toBe("mastercard");
    expect(detectBrand("2720")).toBe("mastercard");
    expect(detectBrand("2721")).toBe("unknown");
    expect(detectBrand("28")).toBe("unknown");
  });

  it("reads digits only, as typed with spaces or dashes", () => {
    expect(detectBrand(" 4242-4242")).toBe("visa");
    expect(detectBrand("3 7")).toBe("amex");
  });
});

describe("luhnValid", () => {
  it("accepts the test cards and rejects a one-digit slip", () => {
    expect(luhnValid("4242424242424242")).toBe(true);
    expect(luhnValid("5555555555554444")).toBe(true);
    expect(luhnValid("378282246310005")).toBe(true);
    expect(luhnValid("4000000000000002")).toBe(true);
    expect(luhnValid("4242424242424241")).toBe(false);
    expect(luhnValid("378282246310006")).toBe(false);
  });

  it("ignores spaces and refuses an empty number", () => {
    expect(luhnValid("4242 4242 4242 4242")).toBe(true);
    expect(luhnValid("")).toBe(false);
    expect(luhnValid("   ")).toBe(false);
  });
});

describe("formatCardNumber", () => {
  it("groups 4-4-4-4 as the shopper types", () => {
    expect(formatCardNumber("")).toBe("");
    expect(formatCardNumber("4")).toBe("4");
    expect(formatCardNumber("4242")).toBe("4242");
    expect(formatCardNumber("42424")).toBe("4242 4");
    expect(formatCardNumber("4242424242424242")).toBe("4242 4242 4242 4242");
  });

  it("groups Amex 4-6-5", () => {
    expect(formatCardNumber("37828")).toBe("3782 8");
    expect(formatCardNumber("37828224631")).toBe("3782 822463 1");
    expect(formatCardNumber("378282246310005")).toBe(amex);
  });

  it("stops at the brand's length: 16 digits, 15 for Amex", () => {
    expect(formatCardNumber("42424242424242424242")).toBe("4242 4242 4242 4242");
    expect(formatCardNumber("3782822463100051234")).toBe(amex);
    expect(formatCardNumber("90000000000000011234")).toBe("9000 0000 0000 0001");
    expect(formatCardNumber("6205500000000000004123")).toBe("6205 5000 0000 0000 004");
    expect(formatCardNumber("36227206271667")).toBe("3622 720627 1667");
  });

  it("drops anything that is not a digit, and regroups a pasted number", () => {
    expect(formatCardNumber("4242-4242 abc 4242.4242")).toBe("4242 4242 4242 4242");
    expect(formatCardNumber("4242 42 42")).toBe("4242 4242");
  });
});

describe("formatExpiry", () => {
  it("puts in ' / ' once the month is whole", () => {
    expect(formatExpiry("")).toBe("");
    expect(formatExpiry("1")).toBe("1");
    expect(formatExpiry("0")).toBe("0");
    expect(formatExpiry("12")).toBe("12 / ");
    expect(formatExpiry("123")).toBe("12 / 3");
    expect(formatExpiry("1230")).toBe("12 / 30");
    expect(formatExpiry("12 / 3")).toBe("12 / 3");
    expect(formatExpiry("12 / 30")).toBe("12 / 30");
  });

  it("adds the leading 0 to months 2-9, which cannot take a second digit", () => {
    for (const digit of ["2", "3", "4", "5", "6", "7", "8", "9"]) expect(formatExpiry(digit)).toBe(`0${digit} / `);
    expect(formatExpiry("430")).toBe("04 / 30");
  });

  it("reads a typed separator after one digit as that month", () => {
    expect(formatExpiry("1/")).toBe("01 / ");
    expect(formatExpiry("1 /")).toBe("01 / ");
    expect(formatExpiry("1/30")).toBe("01 / 30");
  });

  it("keeps a month of 13 or more as typed, for the check to call invalid", () => {
    expect(formatExpiry("13")).toBe("13 / ");
    expect(formatExpiry("00")).toBe("00 / ");
  });

  it("takes the forms paste and autofill write", () => {
    expect(formatExpiry("12/30")).toBe("12 / 30");
    expect(formatExpiry("12/2030")).toBe("12 / 30");
    expect(formatExpiry("12 - 2030")).toBe("12 / 30");
    expect(formatExpiry("122030")).toBe("12 / 30");
    expect(formatExpiry("12305")).toBe("12 / 30");
  });

  it("adds nothing back while the shopper deletes", () => {
    expect(formatExpiry("12 /", { isDeleting: true })).toBe("12");
    expect(formatExpiry("12 / ", { isDeleting: true })).toBe("12");
    expect(formatExpiry("1", { isDeleting: true })).toBe("1");
    expect(formatExpiry("1 / 30", { isDeleting: true })).toBe("1 / 30"); // the month's second digit, deleted to retype it
    expect(formatExpiry("12 / 3", { isDeleting: true })).toBe("12 / 3");
  });
});

describe("formatCvc and formatPostalCode", () => {
  it("cuts the security code at 3 digits, 4 for Amex", () => {
    expect(formatCvc("12345", "visa")).toBe("123");
    expect(formatCvc("12345", "unknown")).toBe("123");
    expect(formatCvc("12a345", "amex")).toBe("1234");
  });

  it("writes a ZIP or ZIP+4, at most 10 characters", () => {
    expect(formatPostalCode("9410")).toBe("9410");
    expect(formatPostalCode("94103")).toBe("94103");
    expect(formatPostalCode("941031")).toBe("94103-1");
    expect(formatPostalCode("9410312345678")).toBe("94103-1234");
    expect(formatPostalCode("94103-1234")).toHaveLength(10);
  });
});

describe("validateCard", () => {
  it("gives the card, digits only and with a four-digit year, when every field is complete", () => {
    const result = validateCard(goodCard, now);
    expect(result).toMatchObject({ brand: "visa", complete: true, empty: false, error: null });
    expect(result.card).toEqual({
      number: "4242424242424242",
      expMonth: 12,
      expYear: 2030,
      cvc: "123",
      postalCode: "94103",
    });
    for (const field of Object.values(result.fields)) expect(field).toEqual({ status: "complete", message: null });
  });

  it("takes Stripe's Amex and Mastercard test cards with their own code lengths", () => {
    const amexResult = validateCard({ ...goodCard, number: amex, cvc: "1234" }, now);
    expect(amexResult).toMatchObject({ brand: "amex", complete: true, error: null });
    expect(amexResult.card?.number).toBe("378282246310005");
    expect(validateCard({ ...goodCard, number: "5555 5555 5555 4444" }, now)).toMatchObject({
      brand: "mastercard",
      complete: true,
    });
  });

  it("calls a card with nothing typed empty, and names the first field", () => {
    const result = validateCard({ number: "", expiry: "", cvc: "", postalCode: "" }, now);
    expect(result).toMatchObject({
      empty: true,
      complete: false,
      card: null,
      error: cardFieldMessages.numberIncomplete,
    });
    expect(result.fields.number.status).toBe("empty");
    expect(result.fields.postalCode).toEqual({ status: "empty", message: "Your postal code is incomplete." });
  });

  describe("card number", () => {
    it("too short is incomplete", () => {
      expect(fieldsOf({ number: "4242 4242 4242 424" }).number).toEqual({
        status: "incomplete",
        message: "Your card number is incomplete.",
      });
      expect(fieldsOf({ number: "4" }).number.status).toBe("incomplete");
    });

    it("full but failing the Luhn check is invalid", () => {
      expect(fieldsOf({ number: "4242 4242 4242 4241" }).number).toEqual({
        status: "invalid",
        message: "Your card number is invalid.",
      });
    });

    it("follows the brand's length: 15 digits complete an Amex but not a Visa", () => {
      expect(fieldsOf({ number: "4242 4242 4242 424" }).number.status).toBe("incomplete");
      expect(fieldsOf({ number: amex, cvc: "1234" }).number.status).toBe("complete");
      expect(fieldsOf({ number: "3782 822463 1000" }).number).toEqual({
        status: "incomplete",
        message: cardFieldMessages.numberIncomplete,
      });
    });

    it("longer than the brand allows is invalid, even when the Luhn sum works out", () => {
      // 16 digits starting 37 pass Luhn, but an Amex has 15.
      expect(luhnValid("3782822463100052")).toBe(true);
      expect(fieldsOf({ number: "3782822463100052" }).number).toEqual({
        status: "invalid",
        message: cardFieldMessages.numberInvalid,
      });
      expect(fieldsOf({ number: "42424242424242424" }).number.status).toBe("invalid");
    });

    it("of an unknown brand is held to 16 digits and Luhn", () => {
      expect(fieldsOf({ number: "9000000000000001" }).number.status).toBe("complete");
      expect(fieldsOf({ number: "9000000000000002" }).number.status).toBe("invalid");
      expect(fieldsOf({ number: "900000000000000" }).number.status).toBe("incomplete");
    });

    it("takes Diners Club's 14 digits and UnionPay's 19, each brand at its own lengths", () => {
      expect(fieldsOf({ number: "3622 720627 1667" }).number.status).toBe("complete");
      expect(fieldsOf({ number: "6011 1111 1111 1117" }).number.status).toBe("complete");
      expect(fieldsOf({ number: "3566 0020 2036 0505" }).number.status).toBe("complete");
      expect(fieldsOf({ number: "6205 5000 0000 0000 004" }).number.status).toBe("complete");
      expect(fieldsOf({ number: "6205 5000 0000 0000 00" }).number.status).toBe("incomplete");
      expect(fieldsOf({ number: "6205 5000 0000 0000 005" }).number.status).toBe("invalid");
    });

    it("takes postal codes of other countries as well as US ZIPs", () => {
      expect(fieldsOf({ postalCode: "SW1A 1AA" }).postalCode.status).toBe("complete");
      expect(fieldsOf({ postalCode: "K1A 0B1" }).postalCode.status).toBe("complete");
      expect(fieldsOf({ postalCode: "S" }).postalCode.status).toBe("incomplete");
      expect(fieldsOf({ postalCode: "SW1A 1AA 1234" }).postalCode.status).toBe("invalid");
      expect(formatPostalCode("sw1a  1aa")).toBe("SW1A 1AA");
      expect(formatPostalCode("900011234")).toBe("90001-1234");
    });
  });

  describe("expiration date", () => {
    it("missing a month digit or the year is incomplete", () => {
      const incomplete = { status: "incomplete", message: "Your card's expiration date is incomplete." };
      expect(fieldsOf({ expiry: "1" }).expiry).toEqual(incomplete);
      expect(fieldsOf({ expiry: "12 / " }).expiry).toEqual(incomplete);
      expect(fieldsOf({ expiry: "12 / 3" }).expiry).toEqual(incomplete);
      expect(fieldsOf({ expiry: "" }).expiry).toEqual({ ...incomplete, status: "empty" });
    });

    it("month 13 or more, or 00, is invalid at once, before the year is typed", () => {
      const invalid = { status: "invalid", message: "Your card's expiration date is invalid." };
      expect(fieldsOf({ expiry: "13 / " }).expiry).toEqual(invalid);
      expect(fieldsOf({ expiry: "13 / 30" }).expiry).toEqual(invalid);
      expect(fieldsOf({ expiry: "19 / 30" }).expiry).toEqual(invalid);
      expect(fieldsOf({ expiry: "00 / 30" }).expiry).toEqual(invalid);
    });

    it("a year before this one is in the past", () => {
      expect(fieldsOf({ expiry: "12 / 25" }).expiry).toEqual({
        status: "invalid",
        message: "Your card's expiration year is in the past.",
      });
      expect(fieldsOf({ expiry: "01 / 00" }).expiry.message).toBe(cardFieldMessages.expiryYearInPast);
    });

    it("a month before this one, this year, is in the past", () => {
      expect(fieldsOf({ expiry: "04 / 26" }).expiry).toEqual({
        status: "invalid",
        message: "Your card's expiration date is in the past.",
      });
      expect(fieldsOf({ expiry: "01 / 26" }).expiry.message).toBe(cardFieldMessages.expiryInPast);
    });

    it("this month is still good, through its last day", () => {
      expect(fieldsOf({ expiry: "05 / 26" }).expiry.status).toBe("complete");
      expect(validateCard({ ...goodCard, expiry: "05 / 26" }, new Date(2026, 4, 31, 23, 59, 59)).complete).toBe(true);
      expect(validateCard({ ...goodCard, expiry: "05 / 26" }, new Date(2026, 5, 1, 0, 0, 0)).error).toBe(
        cardFieldMessages.expiryInPast,
      );
    });

    it("a later month this year, or any month of a later year, is good", () => {
      expect(fieldsOf({ expiry: "06 / 26" }).expiry.status).toBe("complete");
      expect(fieldsOf({ expiry: "01 / 27" }).expiry.status).toBe("complete");
      expect(fieldsOf({ expiry: "12 / 99" }).expiry.status).toBe("complete");
    });

    it("turns over at New Year: December of last year is the past year", () => {
      const newYear = new Date(2027, 0, 1, 0, 0, 1);
      expect(validateCard({ ...goodCard, expiry: "12 / 26" }, newYear).error).toBe(cardFieldMessages.expiryYearInPast);
      expect(validateCard({ ...goodCard, expiry: "01 / 27" }, newYear).complete).toBe(true);
    });

    it("reads the expiry in the forms autofill writes, and gives a four-digit year", () => {
      expect(validateCard({ ...goodCard, expiry: "0930" }, now).card).toMatchObject({ expMonth: 9, expYear: 2030 });
      expect(validateCard({ ...goodCard, expiry: "09/2030" }, now).card).toMatchObject({ expMonth: 9, expYear: 2030 });
    });
  });

  describe("security code", () => {
    it("shorter than 3 digits, or 4 for Amex, is incomplete", () => {
      const incomplete = { status: "incomplete", message: "Your card's security code is incomplete." };
      expect(fieldsOf({ cvc: "12" }).cvc).toEqual(incomplete);
      expect(fieldsOf({ number: amex, cvc: "123" }).cvc).toEqual(incomplete);
      expect(fieldsOf({ number: amex, cvc: "1234" }).cvc.status).toBe("complete");
    });

    it("longer than the brand's is invalid (a Visa after an Amex's four digits)", () => {
      expect(fieldsOf({ cvc: "1234" }).cvc).toEqual({ status: "invalid", message: cardFieldMessages.cvcInvalid });
    });
  });

  describe("postal code", () => {
    it("needs 5 digits, or all 9 of ZIP+4", () => {
      const incomplete = { status: "incomplete", message: "Your postal code is incomplete." };
      expect(fieldsOf({ postalCode: "9410" }).postalCode).toEqual(incomplete);
      expect(fieldsOf({ postalCode: "94103-12" }).postalCode).toEqual(incomplete);
      expect(fieldsOf({ postalCode: "94103-1234" }).postalCode.status).toBe("complete");
      expect(validateCard({ ...goodCard, postalCode: "941031234" }, now).card?.postalCode).toBe("94103-1234");
    });

    it("longer than ZIP+4 is invalid", () => {
      expect(fieldsOf({ postalCode: "94103-12345" }).postalCode).toEqual({
        status: "invalid",
        message: cardFieldMessages.postalCodeInvalid,
      });
    });
  });

  it("reports the first field's message in field order: number, expiry, security code, postal code", () => {
    const everythingWrong = { number: "4242", expiry: "12 / 20", cvc: "1", postalCode: "1" };
    expect(validateCard(everythingWrong, now).error).toBe(cardFieldMessages.numberIncomplete);
    expect(validateCard({ ...everythingWrong, number: visa }, now).error).toBe(cardFieldMessages.expiryYearInPast);
    expect(validateCard({ ...everythingWrong, number: visa, expiry: "12 / 30" }, now).error).toBe(
      cardFieldMessages.cvcIncomplete,
    );
    expect(validateCard({ ...goodCard, postalCode: "1" }, now)).toMatchObject({
      complete: false,
      empty: false,
      card: null,
      error: cardFieldMessages.postalCodeIncomplete,
    });
  });

  it("is not complete while any field is empty", () => {
    expect(validateCard({ ...goodCard, postalCode: "" }, now)).toMatchObject({
      complete: false,
      empty: false,
      error: cardFieldMessages.postalCodeIncomplete,
    });
  });
});
