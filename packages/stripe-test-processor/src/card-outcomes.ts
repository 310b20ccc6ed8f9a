/**
 * The card rules of the test-mode processor, as pure functions: which brand a number is, whether it is well formed,
 * and what Stripe's test mode does with it (/work/shared/test-cards.md; docs.stripe.com/testing and
 * docs.stripe.com/declines/codes). Nothing here stores or logs anything; callers keep only brand and last four.
 */

import { luhnValid } from "../card-field/card-validation.ts";

export type CardBrand = "visa" | "mastercard" | "amex" | "discover" | "diners" | "jcb" | "unionpay" | "unknown";

/** A card as sent in `payment_method_data[card]`, before any check. */
export interface CardDetails {
  number: string;
  expMonth: string;
  expYear: string;
  cvc?: string;
}

export interface CardSummary {
  brand: CardBrand;
  last4: string;
}

/** A refusal: Stripe's error `code`, optional `decline_code`, and the sentence a shopper is shown. */
export interface Decline {
  code: string;
  declineCode?: string;
  message: string;
}

export type CardOutcome =
  | { kind: "succeed" }
  | { kind: "decline"; decline: Decline }
  /** 3-D Secure first; then `afterAuthentication` if the shopper completes the challenge. */
  | { kind: "authenticate"; afterAuthentication: { kind: "succeed" } | { kind: "decline"; decline: Decline } };

/** A card that cannot be charged at all, named after the field that is wrong (Stripe's `param`). */
export interface CardInputError extends Decline {
  param: "number" | "exp_month" | "exp_year" | "cvc";
}

export type CardCheck = { ok: true; card: CardSummary; outcome: CardOutcome } | { ok: false; error: CardInputError };

export const DECLINE_MESSAGES = {
  declined: "Your card was declined.",
  insufficientFunds: "Your card has insufficient funds.",
  expired: "Your card has expired.",
  incorrectCvc: "Your card's security code is incorrect.",
  processingError: "An error occurred while processing your card. Try again in a little bit.",
  liveCardInTestMode:
    "Your card was declined. Your request was in test mode, but used a non test card. For a list of valid test cards, visit: https://stripe.com/docs/testing.",
  authenticationFailure: "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
} as const;

const cardDeclined = (declineCode: string, message: string): Decline => ({ code: "card_declined", declineCode, message });
const insufficientFunds = cardDeclined("insufficient_funds", DECLINE_MESSAGES.insufficientFunds);

/** Stripe's test card numbers and what each does. Any other Luhn-valid number is a "live" card and is declined. */
export const TEST_CARD_OUTCOMES: ReadonlyMap<string, CardOutcome> = new Map<string, CardOutcome>([
  ["4242424242424242", { kind: "succeed" }],
  ["5555555555554444", { kind: "succeed" }],
  ["378282246310005", { kind: "succeed" }],
  ["4000000000000002", { kind: "decline", decline: cardDeclined("generic_decline", DECLINE_MESSAGES.declined) }],
  ["4000000000009995", { kind: "decline", decline: insufficientFunds }],
  ["4000000000009987", { kind: "decline", decline: cardDeclined("lost_card", DECLINE_MESSAGES.declined) }],
  ["4000000000009979", { kind: "decline", decline: cardDeclined("stolen_card", DECLINE_MESSAGES.declined) }],
  ["4000000000000069", { kind: "decline", decline: { code: "expired_card", message: DECLINE_MESSAGES.expired } }],
  ["4000000000000127", { kind: "decline", decline: { code: "incorrect_cvc", message: DECLINE_MESSAGES.incorrectCvc } }],
  ["4000000000000119", { kind: "decline", decline: { code: "processing_error", message: DECLINE_MESSAGES.processingError } }],
  ["4000002760003184", { kind: "authenticate", afterAuthentication: { kind: "succeed" } }],
  ["4000008260003178", { kind: "authenticate", afterAuthentication: { kind: "decline", decline: insufficientFunds } }],
]);

const LIVE_CARD_OUTCOME: CardOutcome = { kind: "decline", decline: cardDeclined("test_mode_live_card", DECLINE_MESSAGES.liveCardInTestMode) };

/** Stripe's API wording for card fields it cannot accept. */
export const CARD_INPUT_MESSAGES = {
  incorrectNumber: "Your card number is incorrect.",
  invalidExpiryMonth: "Your card's expiration month is invalid.",
  invalidExpiryYear: "Your card's expiration year is invalid.",
  invalidCvc: "Your card's security code is invalid.",
} as const;

/** Stripe accepts expiry years up to this far ahead. */
const MAX_YEARS_AHEAD = 50;

/** The Luhn (mod 10) checksum every card number carries in its last digit; digits only. */
export function passesLuhn(digits: string): boolean {
  return /^[0-9]+$/.test(digits) && luhnValid(digits);
}

/** The card network, from the number's leading digits (IIN ranges). */
export function cardBrand(digits: string): CardBrand {
  const prefix = (length: number) => Number(digits.slice(0, length));
  if (/^4/.test(digits)) return "visa";
  if (/^3[47]/.test(digits)) return "amex";
  if ((prefix(2) >= 51 && prefix(2) <= 55) || (prefix(4) >= 2221 && prefix(4) <= 2720)) return "mastercard";
  if (/^(6011|65)/.test(digits) || (prefix(3) >= 644 && prefix(3) <= 649)) return "discover";
  if (/^(36|38|39)/.test(digits) || (prefix(3) >= 300 && prefix(3) <= 305)) return "diners";
  if (prefix(4) >= 3528 && prefix(4) <= 3589) return "jcb";
  if (/^62/.test(digits)) return "unionpay";
  return "unknown";
}

/** A card number as digits only: Stripe.js sends digits, people type spaces. */
export function normalizeCardNumber(number: string): string {
  return number.replaceAll(" ", "");
}

/**
 * Checks a card the way Stripe does, in its order (number, expiry, security code), and says what charging it does.
 * `now` decides which expiry dates are in the past (a card is valid through the end of its expiry month, UTC).
 */
export function checkCard(details: CardDetails, now: Date): CardCheck {
  const digits = normalizeCardNumber(details.number);
  if (digits.length < 12 || digits.length > 19 || !passesLuhn(digits)) {
    return { ok: false, error: { code: "incorrect_number", message: CARD_INPUT_MESSAGES.incorrectNumber, param: "number" } };
  }
  const brand = cardBrand(digits);

  const expiryError = checkExpiry(details.expMonth, details.expYear, now);
  if (expiryError) return { ok: false, error: expiryError };

  if (details.cvc !== undefined && !isValidCvc(details.cvc, brand)) {
    return { ok: false, error: { code: "invalid_cvc", message: CARD_INPUT_MESSAGES.invalidCvc, param: "cvc" } };
  }

  return { ok: true, card: { brand, last4: digits.slice(-4) }, outcome: TEST_CARD_OUTCOMES.get(digits) ?? LIVE_CARD_OUTCOME };
}

function checkExpiry(monthText: string, yearText: string, now: Date): CardInputError | undefined {
  const month = /^[0-9]{1,2}$/.test(monthText) ? Number(monthText) : NaN;
  if (!(month >= 1 && month <= 12)) return { code: "invalid_expiry_month", message: CARD_INPUT_MESSAGES.invalidExpiryMonth, param: "exp_month" };

  // Two-digit years mean this century, as on the card itself.
  const year = /^[0-9]{2}$/.test(yearText) ? 2000 + Number(yearText) : /^[0-9]{4}$/.test(yearText) ? Number(yearText) : NaN;
  const thisYear = now.getUTCFullYear();
  if (!(year >= thisYear && year <= thisYear + MAX_YEARS_AHEAD)) {
    return { code: "invalid_expiry_year", message: CARD_INPUT_MESSAGES.invalidExpiryYear, param: "exp_year" };
  }
  if (year === thisYear && month < now.getUTCMonth() + 1) {
    return { code: "invalid_expiry_month", message: CARD_INPUT_MESSAGES.invalidExpiryMonth, param: "exp_month" };
  }
  return undefined;
}

/** Three digits, or four for American Express. */
function isValidCvc(cvc: string, brand: CardBrand): boolean {
  return (brand === "amex" ? /^[0-9]{4}$/ : /^[0-9]{3}$/).test(cvc);
}
