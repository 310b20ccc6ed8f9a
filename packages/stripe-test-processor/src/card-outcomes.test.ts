import { describe, expect, it } from "vitest";
import { cardBrand, checkCard, passesLuhn, TEST_CARD_OUTCOMES, type CardCheck } from "./card-outcomes.ts";

const NOW = new Date("2026-06-15T12:00:00Z");
const check = (number: string, expiry: { expMonth?: string; expYear?: string; cvc?: string } = {}): CardCheck =>
  checkCard(
    {
      number,
      expMonth: expiry.expMonth ?? "12",
      expYear: expiry.expYear ?? "2030",
      cvc: "cvc" in expiry ? expiry.cvc : "123",
    },
    NOW,
  );

describe("test card outcomes (every row of test-cards.md)", () => {
  it.each([
    ["4242 4242 4242 4242", "visa"],
    ["5555 5555 5555 4444", "mastercard"],
  ])("%s succeeds (%s)", (number, brand) => {
    expect(check(number)).toEqual({ ok: true, card: { brand, last4: number.slice(-4) }, outcome: { kind: "succeed" } });
  });

  it("3782 822463 10005 (Amex) succeeds with a four-digit security code", () => {
    expect(check("378282246310005", { cvc: "1234" })).toEqual({
      ok: true,
      card: { brand: "amex", last4: "0005" },
      outcome: { kind: "succeed" },
    });
  });

  it.each([
    ["4000000000000002", "card_declined", "generic_decline", "Your card was declined."],
    ["4000000000009995", "card_declined", "insufficient_funds", "Your card has insufficient funds."],
    ["4000000000009987", "card_declined", "lost_card", "Your card was declined."],
    ["4000000000009979", "card_declined", "stolen_card", "Your card was declined."],
    ["4000000000000069", "expired_card", undefined, "Your card has expired."],
    ["4000000000000127", "incorrect_cvc", undefined, "Your card's security code is incorrect."],
    [
      "4000000000000119",
      "processing_error",
      undefined,
      "An error occurred while processing your card. Try again in a little bit.",
    ],
  ])("%s is declined with %s / %s", (number, code, declineCode, message) => {
    const result = check(number);
    expect(result).toEqual({
      ok: true,
      card: { brand: "visa", last4: number.slice(-4) },
      outcome: { kind: "decline", decline: { code, declineCode, message } },
    });
    if (result.ok && result.outcome.kind === "decline")
      expect("declineCode" in result.outcome.decline).toBe(declineCode !== undefined);
  });

  it("4000 0027 6000 3184 needs authentication, then succeeds", () => {
    expect(check("4000002760003184")).toMatchObject({
      ok: true,
      outcome: { kind: "authenticate", afterAuthentication: { kind: "succeed" } },
    });
  });

  it("4000 0082 6000 3178 needs authentication, then is declined for insufficient funds", () => {
    expect(check("4000008260003178")).toMatchObject({
      ok: true,
      outcome: {
        kind: "authenticate",
        afterAuthentication: {
          kind: "decline",
          decline: {
            code: "card_declined",
            declineCode: "insufficient_funds",
            message: "Your card has insufficient funds.",
          },
        },
      },
    });
  });

  it.each(["4111111111111111", "5425233430109903", "6011000000000012", "4012888888881881"])(
    "any other Luhn-valid number (%s) is a live card, declined in test mode",
    (number) => {
      expect(check(number)).toMatchObject({
        ok: true,
        outcome: {
          kind: "decline",
          decline: {
            code: "card_declined",
            declineCode: "test_mode_live_card",
            message:
              "Your card was declined. Your request was in test mode, but used a non test card. For a list of valid test cards, visit: https://stripe.com/docs/testing.",
          },
        },
      });
    },
  );

  it("every listed test card passes the Luhn check", () => {
    for (const number of TEST_CARD_OUTCOMES.keys()) expect(passesLuhn(number), number).toBe(true);
  });
});

describe("card number checks", () => {
  it.each([
    "4242424242424241",
    "4242 4242 4242 4243",
    "1234567812345678",
    "42424242424242x2",
    "",
    "0000",
    "4".repeat(20),
  ])("refuses %j as incorrect_number", (number) => {
    expect(check(number)).toEqual({
      ok: false,
      error: { code: "incorrect_number", message: "Your card number is incorrect.", param: "number" },
    });
  });

  it("computes Luhn as the standard says", () => {
    expect(passesLuhn("79927398713")).toBe(true);
    expect(passesLuhn("79927398710")).toBe(false);
    expect(passesLuhn("")).toBe(false);
    expect(passesLuhn("12a4")).toBe(false);
  });

  it.each([
    ["4242424242424242", "visa"],
    ["5555555555554444", "mastercard"],
    ["2223003122003222", "mastercard"],
    ["378282246310005", "amex"],
    ["6011111111111117", "discover"],
    ["3056930009020004", "diners"],
    ["3566002020360505", "jcb"],
    ["6200000000000005", "unionpay"],
    ["9999999999999995", "unknown"],
  ])("names the brand of %s: %s", (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });
});

describe("expiry and security code checks", () => {
  const error = (code: string, param: string, message: string) => ({ ok: false, error: { code, param, message } });
  const pastYear = error("invalid_expiry_year", "exp_year", "Your card's expiration year is invalid.");
  const badMonth = error("invalid_expiry_month", "exp_month", "Your card's expiration month is invalid.");

  it.each([
    ["a past year", { expMonth: "12", expYear: "2025" }, pastYear],
    ["a past two-digit year", { expMonth: "12", expYear: "25" }, pastYear],
    ["a year too far ahead", { expMonth: "1", expYear: "2077" }, pastYear],
    ["a malformed year", { expMonth: "1", expYear: "20x6" }, pastYear],
    ["a three-digit year", { expMonth: "1", expYear: "203" }, pastYear],
    ["an earlier month this year", { expMonth: "5", expYear: "2026" }, badMonth],
    ["month 0", { expMonth: "0", expYear: "2030" }, badMonth],
    ["month 13", { expMonth: "13", expYear: "2030" }, badMonth],
    ["a malformed month", { expMonth: "1.5", expYear: "2030" }, badMonth],
  ])("refuses %s", (_name, expiry, expected) => {
    expect(check("4242424242424242", expiry)).toEqual(expected);
  });

  it.each([
    ["this month", { expMonth: "6", expYear: "2026" }],
    ["a two-digit future year", { expMonth: "01", expYear: "27" }],
    ["fifty years ahead", { expMonth: "12", expYear: "2076" }],
  ])("accepts %s", (_name, expiry) => {
    expect(check("4242424242424242", expiry)).toMatchObject({ ok: true });
  });

  it("checks the number before the expiry, and the expiry before the security code", () => {
    expect(check("4242424242424241", { expYear: "2001", cvc: "1" })).toMatchObject({
      error: { code: "incorrect_number" },
    });
    expect(check("4242424242424242", { expYear: "2001", cvc: "1" })).toMatchObject({
      error: { code: "invalid_expiry_year" },
    });
  });

  it.each([
    ["4242424242424242", "12"],
    ["4242424242424242", "1234"],
    ["4242424242424242", "12a"],
    ["378282246310005", "123"],
    ["4242424242424242", ""],
  ])("refuses %s with security code %j as invalid_cvc", (number, cvc) => {
    expect(check(number, { cvc })).toEqual(error("invalid_cvc", "cvc", "Your card's security code is invalid."));
  });

  it("accepts a card sent without a security code, as Stripe does", () => {
    expect(check("4242424242424242", { cvc: undefined })).toMatchObject({ ok: true });
  });
});
