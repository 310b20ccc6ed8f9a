import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE, UNKNOWN_FIELDS_SHOP } from "./form-errors";

const schema = z.strictObject({
  email: z.email({ error: "Enter an e-mail address." }),
  age: z.number({ error: "Enter your age." }).min(18, { error: "Too young." }),
});

describe("fieldErrorsOf", () => {
  it("keeps each field's first sentence, under the field's name", () => {
    const parsed = schema.safeParse({ email: "nope", age: 3 });
    expect(parsed.success || fieldErrorsOf(parsed.error)).toEqual({
      email: "Enter an e-mail address.",
      age: "Too young.",
    });
  });

  it("answers fields nobody asked for with the form's own sentence, the shop's or the console's", () => {
    const parsed = schema.safeParse({ email: "a@example.com", age: 30, colour: "red" });
    expect(parsed.success || fieldErrorsOf(parsed.error)).toEqual({ form: UNKNOWN_FIELDS_SHOP });
    expect(parsed.success || fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE })).toEqual({
      form: UNKNOWN_FIELDS_CONSOLE,
    });
    expect(
      parsed.success || fieldErrorsOf(parsed.error, { unknownFields: (names) => `Unknown: ${names.join(", ")}.` }),
    ).toEqual({ form: "Unknown: colour." });
  });

  it("puts an issue on a field the form does not show under the form", () => {
    const parsed = schema.safeParse({ email: "a@example.com" });
    expect(parsed.success || fieldErrorsOf(parsed.error, { fields: ["email"] })).toEqual({ form: "Enter your age." });
  });
});
