import { describe, expect, it } from "vitest";
import {
  GIFT_CARD_ALPHABET,
  formatGiftCardCode,
  giftCardCodeHash,
  giftCardLastFour,
  newGiftCardCode,
  normaliseGiftCardCode,
} from "./gift-card-code";

describe("gift card codes", () => {
  it("are 16 characters without 0, O, 1 or I", () => {
    for (let round = 0; round < 200; round++) {
      const code = newGiftCardCode();
      expect(code).toMatch(/^[2-9A-HJ-NP-Z]{16}$/);
      expect(code).not.toMatch(/[01OI]/);
    }
    expect(GIFT_CARD_ALPHABET).toHaveLength(32);
    expect(new Set(GIFT_CARD_ALPHABET).size).toBe(32);
  });

  it("use every character of the alphabet, none much more than the others", () => {
    const counts = new Map<string, number>();
    for (let round = 0; round < 2000; round++)
      for (const character of newGiftCardCode()) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(32);
    // 32,000 characters: 1,000 each on average; a biased pick would stray far further than this.
    for (const count of counts.values()) expect(count).toBeGreaterThan(800);
    for (const count of counts.values()) expect(count).toBeLessThan(1200);
  });

  it("are not repeated", () => {
    const codes = new Set(Array.from({ length: 1000 }, () => newGiftCardCode()));
    expect(codes.size).toBe(1000);
  });

  it("are shown in groups of four", () => {
    expect(formatGiftCardCode("ABCDEFGHJKLM7XQ2")).toBe("ABCD EFGH JKLM 7XQ2");
    expect(giftCardLastFour("ABCDEFGHJKLM7XQ2")).toBe("7XQ2");
  });

  it("are read whatever the case and spacing a shopper types", () => {
    expect(normaliseGiftCardCode("abcd efgh jklm 7xq2")).toBe("ABCDEFGHJKLM7XQ2");
    expect(normaliseGiftCardCode(" ABCD-EFGH-JKLM-7XQ2 ")).toBe("ABCDEFGHJKLM7XQ2");
    expect(normaliseGiftCardCode("ABCDEFGHJKLM7XQ2")).toBe("ABCDEFGHJKLM7XQ2");
  });

  it("refuse what cannot be a code without looking it up", () => {
    expect(normaliseGiftCardCode("")).toBeNull();
    expect(normaliseGiftCardCode("ABCD EFGH JKLM")).toBeNull();
    expect(normaliseGiftCardCode("ABCD EFGH JKLM 7XQ22")).toBeNull();
    expect(normaliseGiftCardCode("ABCD EFGH JKLM 7XQ0")).toBeNull();
    expect(normaliseGiftCardCode("ABCD EFGH JKLM 7XQI")).toBeNull();
  });

  it("are stored as a hash that the typed form finds again", () => {
    const code = newGiftCardCode();
    const typed = formatGiftCardCode(code).toLowerCase();
    expect(giftCardCodeHash(normaliseGiftCardCode(typed)!)).toBe(giftCardCodeHash(code));
    expect(giftCardCodeHash(code)).not.toContain(code);
    expect(giftCardCodeHash(code)).not.toBe(giftCardCodeHash(newGiftCardCode()));
  });
});
