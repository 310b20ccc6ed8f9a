import { describe, expect, it } from "vitest";
import type { CardInput } from "./card-validation.ts";
import { describeCardField, noInteraction, type Interaction } from "./card-field-state.ts";

const now = new Date(2026, 4, 15);
const good: CardInput = { number: "4242 4242 4242 4242", expiry: "12 / 30", cvc: "123", postalCode: "94103" };
const empty: CardInput = { number: "", expiry: "", cvc: "", postalCode: "" };

const describe_ = (values: Partial<CardInput>, interaction: Partial<Interaction> = {}) =>
  describeCardField({ ...empty, ...values }, { ...noInteraction, ...interaction }, now);

describe("describeCardField", () => {
  it("reports a complete card with no error", () => {
    const view = describeCardField(good, noInteraction, now);
    expect(view.state).toEqual({
      empty: false,
      complete: true,
      error: null,
      card: { number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123", postalCode: "94103" },
    });
    expect(view.fieldsInError).toEqual([]);
  });

  it("says nothing of an incomplete number while the shopper is still typing it", () => {
    const view = describe_({ number: "4242 42" }, { focused: "number" });
    expect(view.state).toMatchObject({ empty: false, complete: false, error: null, card: null });
    expect(view.fieldsInError).toEqual([]);
  });

  it("says the number is incomplete once the shopper leaves it", () => {
    const view = describe_({ number: "4242 42" }, { focused: "expiry", visited: new Set(["number"]) });
    expect(view.state.error).toBe("Your card number is incomplete.");
    expect(view.fieldsInError).toEqual(["number"]);
  });

  it("hides the incomplete message again while the shopper is back in the input", () => {
    expect(
      describe_({ number: "4242 42" }, { focused: "number", visited: new Set(["number"]) }).state.error,
    ).toBeNull();
  });

  it("says a full number failing Luhn is invalid at once, while still typing", () => {
    const view = describe_({ number: "4242 4242 4242 4241" }, { focused: "number" });
    expect(view.state.error).toBe("Your card number is invalid.");
    expect(view.fieldsInError).toEqual(["number"]);
  });

  it("says month 13 and dates in the past at once", () => {
    expect(describe_({ expiry: "13 / " }, { focused: "expiry" }).state.error).toBe(
      "Your card's expiration date is invalid.",
    );
    expect(describe_({ expiry: "12 / 25" }, { focused: "expiry" }).state.error).toBe(
      "Your card's expiration year is in the past.",
    );
    expect(describe_({ expiry: "04 / 26" }, { focused: "expiry" }).state.error).toBe(
      "Your card's expiration date is in the past.",
    );
  });

  it("says nothing of an input left empty, until the form is submitted", () => {
    expect(describe_({}, { visited: new Set(["number", "expiry"]) }).state).toMatchObject({ empty: true, error: null });
    const submitted = describe_({}, { submitted: true });
    expect(submitted.state).toMatchObject({ empty: true, complete: false, error: "Your card number is incomplete." });
    expect(submitted.fieldsInError).toEqual(["number", "expiry", "cvc", "postalCode"]);
  });

  it("reports the first field in error, in field order", () => {
    const view = describe_(
      { number: "4242 4242 4242 4242", expiry: "12 / 3", cvc: "12", postalCode: "941" },
      { visited: new Set(["postalCode", "cvc", "expiry", "number"]) },
    );
    expect(view.fieldsInError).toEqual(["expiry", "cvc", "postalCode"]);
    expect(view.state.error).toBe("Your card's expiration date is incomplete.");
  });

  it("asks for the Amex security code's fourth digit", () => {
    const view = describe_({ ...good, number: "3782 822463 10005", cvc: "123" }, { visited: new Set(["cvc"]) });
    expect(view.brand).toBe("amex");
    expect(view.state.error).toBe("Your card's security code is incomplete.");
  });

  it("asks for the rest of the postal code once left", () => {
    expect(describe_({ ...good, postalCode: "9410" }, { visited: new Set(["postalCode"]) }).state.error).toBe(
      "Your postal code is incomplete.",
    );
  });
});
