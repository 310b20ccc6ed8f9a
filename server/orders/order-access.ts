/**
 * The guest's signed order link: `/orders/SF-2611-8K3Q?access=…`, where the signature is an HMAC-SHA256 of the order's
 * number keyed by the order's own random `access_key` (256 bits, never shown). Whoever holds the link (it is in every
 * order e-mail, and "Find an order" answers with it) sees that one order and may return or withdraw from it, from any
 * device, without an account or the session that paid. Nothing else opens with it, and the key never leaves the server.
 */

import { createHmac, timingSafeEqual } from "node:crypto";
import { ORDER_ACCESS_PARAM } from "#shared/returns";

export { ORDER_ACCESS_PARAM };

/** base64url of 32 bytes: 43 characters. */
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The signature of an order's number with its access key. */
export function signOrderAccess(accessKey: string, orderNumber: string): string {
  return createHmac("sha256", accessKey).update(`order:${orderNumber.toUpperCase()}`).digest("base64url");
}

/** Whether `signature` (from a link or a form) is the order's: compared in constant time; anything malformed is not. */
export function isOrderAccessSignature(accessKey: string, orderNumber: string, signature: unknown): boolean {
  if (typeof signature !== "string" || !SIGNATURE_PATTERN.test(signature)) return false;
  const expected = Buffer.from(signOrderAccess(accessKey, orderNumber));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The path of an order's page with its signature: what order e-mails link to and "Find an order" leads to. */
export function signedOrderPath(order: { number: string; accessKey: string }, suffix = ""): string {
  const signature = signOrderAccess(order.accessKey, order.number);
  return `/orders/${encodeURIComponent(order.number)}${suffix}?${ORDER_ACCESS_PARAM}=${signature}`;
}

/** A signature as a route reads it from its URL or form: the string when it is shaped like one, else null. */
export function readOrderAccessSignature(value: string | null | undefined): string | null {
  return typeof value === "string" && SIGNATURE_PATTERN.test(value) ? value : null;
}
