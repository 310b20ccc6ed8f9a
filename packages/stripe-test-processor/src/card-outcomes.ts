/**
 * The card rules of the test-mode processor, as pure functions: which brand a number is, whether it is well formed,
 * and what Stripe's test mode does with it (/work/shared/test-cards.md; docs.stripe.com/testing and
 * docs.stripe.com/declines/codes). Nothing here stores or logs anything; callers keep only brand and last four.
 */

import { luhnValid } from "../card-field/card-validation.ts";
import type { Decline, DisputeReason, SettledOutcome } from "./processor-tables.ts";

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
export type CardOutcome =
  | SettledOutcome
  /** 3-D Secure first; then `afterAuthentication` if the shopper completes the challenge. */
  | { kind: "authenticate"; afterAuthentication: SettledOutcome }
  /** The payment stays `processing` until finished (the processor's own test helper), then `then`. */
  | { kind: "processing"; then: SettledOutcome };

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
  authenticationFailure:
    "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
} as const;

const cardDeclined = (declineCode: string, message: string): Decline => ({
  code: "card_declined",
  declineCode,
  message,
});
const insufficientFunds = cardDeclined("insufficient_funds", DECLINE_MESSAGES.insufficientFunds);

const succeed: CardOutcome = { kind: "succeed" };
const disputed = (dispute: DisputeReason): CardOutcome => ({ kind: "succeed", dispute });
const declined = (decline: Decline): CardOutcome => ({ kind: "decline", decline });
const authenticateThen = (afterAuthentication: SettledOutcome): CardOutcome => ({
  kind: "authenticate",
  afterAuthentication,
});
const genericDecline = cardDeclined("generic_decline", DECLINE_MESSAGES.declined);

/**
 * Stripe's test card numbers and what each does (docs.stripe.com/testing). Any other Luhn-valid number is a "live"
 * card and is declined. Cards Stripe documents only for checks the processor does not run (address and CVC checks,
 * Radar rules, balances, refund failures) simply succeed, as they do on Stripe without those rules.
 */
export const TEST_CARD_OUTCOMES: ReadonlyMap<string, CardOutcome> = new Map<string, CardOutcome>([
  // By brand.
  ["4242424242424242", succeed],
  ["4000056655665556", succeed], // Visa (debit)
  ["5555555555554444", succeed],
  ["2223003122003222", succeed], // Mastercard (2-series)
  ["5200828282828210", succeed], // Mastercard (debit)
  ["5105105105105100", succeed], // Mastercard (prepaid)
  ["378282246310005", succeed],
  ["371449635398431", succeed],
  ["6011111111111117", succeed], // Discover
  ["6011000990139424", succeed],
  ["6011981111111113", succeed], // Discover (debit)
  ["3056930009020004", succeed], // Diners Club
  ["36227206271667", succeed], // Diners Club (14 digits)
  ["6555900000604105", succeed], // BCcard and DinaCard
  ["3566002020360505", succeed], // JCB
  ["6200000000000005", succeed], // UnionPay
  ["6200000000000047", succeed], // UnionPay (debit)
  ["6205500000000000004", succeed], // UnionPay (19 digits)
  // By country (a few of Stripe's list).
  ["4000000760000002", succeed],
  ["4000001240000000", succeed],
  ["4000000360000006", succeed],
  ["4000002500000003", succeed],
  ["4000002760000016", succeed],
  ["4000008260000000", succeed],
  ["4000003920000003", succeed],
  ["4000007240000007", succeed],
  ["4000003800000008", succeed],
  ["4000005280000002", succeed],
  // Checks the processor does not run, and balance cards: the payment succeeds.
  ["4000000000000077", succeed],
  ["4000003720000278", succeed],
  ["4000000000000028", succeed],
  ["4000000000000036", succeed],
  ["4000000000000044", succeed],
  ["4000000000000101", succeed],
  ["4000000000005126", succeed],
  ["4000000000003055", succeed], // 3-D Secure supported, not required
  // Declines.
  ["4000000000000002", declined(genericDecline)],
  ["4000000000000341", declined(genericDecline)], // attaches, but every charge is declined
  ["4000000000009995", declined(insufficientFunds)],
  ["4000000000009987", declined(cardDeclined("lost_card", DECLINE_MESSAGES.declined))],
  ["4000000000009979", declined(cardDeclined("stolen_card", DECLINE_MESSAGES.declined))],
  ["4000000000000069", declined({ code: "expired_card", message: DECLINE_MESSAGES.expired })],
  ["4000000000000127", declined({ code: "incorrect_cvc", message: DECLINE_MESSAGES.incorrectCvc })],
  ["4000000000000119", declined({ code: "processing_error", message: DECLINE_MESSAGES.processingError })],
  ["4000000000006975", declined(cardDeclined("card_velocity_exceeded", DECLINE_MESSAGES.declined))],
  ["4100000000000019", declined(cardDeclined("fraudulent", DECLINE_MESSAGES.declined))], // blocked by Radar
  // 3-D Secure.
  ["4000002760003184", authenticateThen({ kind: "succeed" })],
  ["4000002500003155", authenticateThen({ kind: "succeed" })], // required unless set up for later use (never, here)
  ["4000000000003220", authenticateThen({ kind: "succeed" })], // 3-D Secure 2
  ["4000000000003063", authenticateThen({ kind: "succeed" })],
  ["4000008260003178", authenticateThen({ kind: "decline", decline: insufficientFunds })],
  ["4000008400001629", authenticateThen({ kind: "decline", decline: genericDecline })],
  // Disputes: the payment succeeds, then the cardholder disputes it.
  ["4000000000000259", disputed("fraudulent")],
  ["4000000000002685", disputed("product_not_received")],
  ["4000000000001976", disputed("inquiry")],
]);

/**
 * Stripe's test PaymentMethods (`pm_card_…`), for confirming from a server with the secret key: each stands for a
 * test card above. `pm_card_processing` is the processor's own (Stripe has no card that stays processing): the
 * payment waits in `processing` until the test helper finishes it.
 */
export const TEST_PAYMENT_METHODS: ReadonlyMap<string, string> = new Map([
  ["pm_card_visa", "4242424242424242"],
  ["pm_card_visa_debit", "4000056655665556"],
  ["pm_card_mastercard", "5555555555554444"],
  ["pm_card_mastercard_debit", "5200828282828210"],
  ["pm_card_mastercard_prepaid", "5105105105105100"],
  ["pm_card_amex", "378282246310005"],
  ["pm_card_discover", "6011111111111117"],
  ["pm_card_diners", "3056930009020004"],
  ["pm_card_jcb", "3566002020360505"],
  ["pm_card_unionpay", "6200000000000005"],
  ["pm_card_bypassPending", "4000000000000077"],
  ["pm_card_chargeDeclined", "4000000000000002"],
  ["pm_card_visa_chargeDeclined", "4000000000000002"],
  ["pm_card_chargeCustomerFail", "4000000000000341"],
  ["pm_card_chargeDeclinedInsufficientFunds", "4000000000009995"],
  ["pm_card_visa_chargeDeclinedInsufficientFunds", "4000000000009995"],
  ["pm_card_chargeDeclinedLostCard", "4000000000009987"],
  ["pm_card_visa_chargeDeclinedLostCard", "4000000000009987"],
  ["pm_card_chargeDeclinedStolenCard", "4000000000009979"],
  ["pm_card_visa_chargeDeclinedStolenCard", "4000000000009979"],
  ["pm_card_chargeDeclinedExpiredCard", "4000000000000069"],
  ["pm_card_chargeDeclinedIncorrectCvc", "4000000000000127"],
  ["pm_card_chargeDeclinedProcessingError", "4000000000000119"],
  ["pm_card_visa_chargeDeclinedVelocityLimitExceeded", "4000000000006975"],
  ["pm_card_chargeDeclinedFraudulent", "4100000000000019"],
  ["pm_card_radarBlock", "4100000000000019"],
  ["pm_card_authenticationRequired", "4000002760003184"],
  ["pm_card_authenticationRequiredOnSetup", "4000002500003155"],
  ["pm_card_threeDSecure2Required", "4000000000003220"],
  ["pm_card_threeDSecureRequired", "4000000000003063"],
  ["pm_card_authenticationRequiredChargeDeclinedInsufficientFunds", "4000008260003178"],
  ["pm_card_createDispute", "4000000000000259"],
  ["pm_card_createDisputeProductNotReceived", "4000000000002685"],
  ["pm_card_createDisputeInquiry", "4000000000001976"],
]);

export const PROCESSING_PAYMENT_METHOD = "pm_card_processing";

/** A test PaymentMethod's card and outcome, or undefined for an id the processor does not know. */
export function checkTestPaymentMethod(id: string): CardCheck | undefined {
  if (id === PROCESSING_PAYMENT_METHOD)
    return {
      ok: true,
      card: { brand: "visa", last4: "4242" },
      outcome: { kind: "processing", then: { kind: "succeed" } },
    };
  const number = TEST_PAYMENT_METHODS.get(id);
  if (!number) return undefined;
  const outcome = TEST_CARD_OUTCOMES.get(number);
  return outcome && { ok: true, card: { brand: cardBrand(number), last4: number.slice(-4) }, outcome };
}

const LIVE_CARD_OUTCOME: CardOutcome = {
  kind: "decline",
  decline: cardDeclined("test_mode_live_card", DECLINE_MESSAGES.liveCardInTestMode),
};

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
    return {
      ok: false,
      error: { code: "incorrect_number", message: CARD_INPUT_MESSAGES.incorrectNumber, param: "number" },
    };
  }
  const brand = cardBrand(digits);

  const expiryError = checkExpiry(details.expMonth, details.expYear, now);
  if (expiryError) return { ok: false, error: expiryError };

  if (details.cvc !== undefined && !isValidCvc(details.cvc, brand)) {
    return { ok: false, error: { code: "invalid_cvc", message: CARD_INPUT_MESSAGES.invalidCvc, param: "cvc" } };
  }

  return {
    ok: true,
    card: { brand, last4: digits.slice(-4) },
    outcome: TEST_CARD_OUTCOMES.get(digits) ?? LIVE_CARD_OUTCOME,
  };
}

function checkExpiry(monthText: string, yearText: string, now: Date): CardInputError | undefined {
  const month = /^[0-9]{1,2}$/.test(monthText) ? Number(monthText) : NaN;
  if (!(month >= 1 && month <= 12))
    return { code: "invalid_expiry_month", message: CARD_INPUT_MESSAGES.invalidExpiryMonth, param: "exp_month" };

  // Two-digit years mean this century, as on the card itself.
  const year = /^[0-9]{2}$/.test(yearText)
    ? 2000 + Number(yearText)
    : /^[0-9]{4}$/.test(yearText)
      ? Number(yearText)
      : NaN;
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
