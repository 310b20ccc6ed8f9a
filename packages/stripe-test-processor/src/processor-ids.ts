const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A random string of letters and digits, as in Stripe's ids and keys. Bytes of 248 and above are skipped so that
 * every character is equally likely (248 = 4 × 62).
 */
export function randomAlphanumeric(length: number): string {
  let text = "";
  while (text.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && text.length < length) text += ALPHABET[byte % 62];
    }
  }
  return text;
}

/** A new object id with Stripe's prefix: `pi_…`, `pm_…`, `evt_…`, `req_…`. */
export function newId(prefix: "pi" | "pm" | "evt" | "req" | "ch" | "re" | "dp"): string {
  return `${prefix}_${randomAlphanumeric(24)}`;
}

/** A PaymentIntent's client secret: its id, `_secret_`, and 25 random characters (Stripe's shape). */
export function newClientSecret(paymentIntentId: string): string {
  return `${paymentIntentId}_secret_${randomAlphanumeric(25)}`;
}
