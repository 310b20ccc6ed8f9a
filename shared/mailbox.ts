// The mailbox an address delivers to (lower case, no +tag), as limits and "once per customer" count it.

/**
 * The mailbox an address delivers to, as limits and "once per customer" count it: lower-cased, without a `+tag`
 * (name+anything@example.com reaches name@example.com at most providers, so it is the same customer and inbox).
 */
export function mailboxOf(address: string): string {
  const trimmed = address.trim().toLowerCase();
  const at = trimmed.lastIndexOf("@");
  if (at < 0) return trimmed;
  const local = trimmed.slice(0, at);
  const plus = local.indexOf("+");
  return `${plus > 0 ? local.slice(0, plus) : local}${trimmed.slice(at)}`;
}
