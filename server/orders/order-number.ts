// Order numbers (SF-YYMM-XXXX): random letters from an alphabet that reads out unambiguously on the phone.

/** No 0/O or 1/I/L: a number read out on the phone is not misheard. 31 letters: 923,521 numbers a month. */
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
/** The largest multiple of the alphabet's length below 256: bytes above it are drawn again, so no letter is likelier. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/**
 * A new order number, SF-YYMM-XXXX (e.g. SF-2611-8K3Q): the month it was paid, then four random letters from a
 * cryptographic source, so one shopper's number says nothing about the next one's. Unique by the database's index;
 * the writer draws again on the rare clash.
 */
export function newOrderNumber(paidAt: Date): string {
  const yymm = `${String(paidAt.getUTCFullYear() % 100).padStart(2, "0")}${String(paidAt.getUTCMonth() + 1).padStart(2, "0")}`;
  let suffix = "";
  while (suffix.length < 4) {
    for (const byte of crypto.getRandomValues(new Uint8Array(8))) {
      if (byte < UNBIASED_LIMIT && suffix.length < 4) suffix += ALPHABET[byte % ALPHABET.length];
    }
  }
  return `SF-${yymm}-${suffix}`;
}
