import { describe, expect, it } from "vitest";
import { formatCardNumber, formatExpiry } from "./card-validation.ts";
import { reformatEdit, type Deletion } from "./reformat-edit.ts";

const number = (raw: string) => formatCardNumber(raw);
const expiry = (raw: string, isDeleting: boolean) => formatExpiry(raw, { isDeleting });

/** `|` in `raw` marks the caret after the edit; `|` in the answer marks where the caret ends up. */
function edit(
  previous: string,
  rawWithCaret: string,
  deletion: Deletion,
  format: (raw: string, isDeleting: boolean) => string = number,
): string {
  const caret = rawWithCaret.indexOf("|");
  const raw = rawWithCaret.replace("|", "");
  const result = reformatEdit({ previous, raw, caret, deletion, format });
  return `${result.value.slice(0, result.caret)}|${result.value.slice(result.caret)}`;
}

describe("reformatEdit", () => {
  it("keeps the caret at the end while typing at the end", () => {
    expect(edit("4242", "42424|", null)).toBe("4242 4|");
    expect(edit("1", "12|", null, expiry)).toBe("12 / |");
    expect(edit("", "4|", null, expiry)).toBe("04 / |");
  });

  it("keeps the caret after the same digit when typing in the middle", () => {
    expect(edit("4242 4242", "4242 1|4242", null)).toBe("4242 1|424 2");
    expect(edit("4242 4242", "421|42 4242", null)).toBe("421|4 2424 2");
  });

  it("leaves the caret in place when a typed letter is dropped", () => {
    expect(edit("4242 4242", "42a|42 4242", null)).toBe("42|42 4242");
  });

  it("deletes the digit before a space when backspace only took the space", () => {
    expect(edit("4242 4242", "4242|4242", "backward")).toBe("424|4 242");
  });

  it("deletes the digit after a space when delete only took the space", () => {
    expect(edit("4242 4242", "4242|4242", "forward")).toBe("4242| 242");
  });

  it("lets backspace take the expiry's ' / ' and then the month", () => {
    expect(edit("12 / ", "12 /|", "backward", expiry)).toBe("12|");
    expect(edit("12", "1|", "backward", expiry)).toBe("1|");
    expect(edit("02 / ", "02 /|", "backward", expiry)).toBe("02|");
  });

  it("deletes a month digit when backspace only took the separator in the middle", () => {
    expect(edit("12 / 30", "12 /|30", "backward", expiry)).toBe("1| / 30");
  });
});
