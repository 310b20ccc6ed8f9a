// A gift card's code: drawn at random from an unambiguous alphabet, shown in groups of four, and kept only as a hash
// and its last four.

import { randomBytes } from "node:crypto";
import { sha256Base64url } from "#server/tokens";

/**
 * A gift card's code: 16 characters of an alphabet without 0, O, 1 and I (read aloud or copied from paper, they are
 * mistaken for each other), shown in groups of four. 32 characters of 5 bits each: 80 random bits, far beyond
 * guessing at ten wrong numbers an hour. The code is the card (whoever has it may spend it), so like a session token
 * only its SHA-256 is stored, with its last four characters for the shopper and the operator to recognise it by.
 */
export const GIFT_CARD_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
export const GIFT_CARD_CODE_LENGTH = 16;

/** A new code from the operating system's cryptographic source, ungrouped. */
export function newGiftCardCode(): string {
  // 32 divides 256, so taking the low 5 bits of each byte picks every character with the same chance.
  const bytes = randomBytes(GIFT_CARD_CODE_LENGTH);
  let code = "";
  for (const byte of bytes) code += GIFT_CARD_ALPHABET[byte & 31];
  return code;
}

/** "ABCD EFGH JKLM NPQR": how the code is shown and e-mailed. */
export function formatGiftCardCode(code: string): string {
  return code.match(/.{1,4}/g)?.join(" ") ?? code;
}

/**
 * What a shopper typed, as a code: case, spaces and hyphens ignored; null when it cannot be one of ours (wrong length
 * or a character outside the alphabet), so a typo is refused without a lookup.
 */
export function normaliseGiftCardCode(typed: string): string | null {
  const code = typed.replace(/[\s-]+/g, "").toUpperCase();
  if (code.length !== GIFT_CARD_CODE_LENGTH) return null;
  for (const character of code) if (!GIFT_CARD_ALPHABET.includes(character)) return null;
  return code;
}

/** What is stored and looked up: the SHA-256 of the normalised code. */
export function giftCardCodeHash(code: string): string {
  return sha256Base64url(`gift-card:${code}`);
}

/** The last four characters: "Gift card ending 7XQ2". */
export function giftCardLastFour(code: string): string {
  return code.slice(-4);
}
