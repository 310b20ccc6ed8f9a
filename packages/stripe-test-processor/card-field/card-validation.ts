/**
 * The rules of the shop's card entry field, imitating Stripe's card Element (https://docs.stripe.com/js/element):
 * brand detection, formatting as the shopper types, and the field messages Stripe.js shows, word for word
 * (see /work/shared/test-cards.md, second table). Pure and isomorphic: no DOM, no node:*, so the field, the
 * server and the tests all judge a card the same way.
 *
 * Every reader looks only at the digits of a field ("4242 4242 4242 4242", "4242424242424242" and
 * "4242-4242-4242-4242" are one number), as Stripe.js does.
 */

export type CardBrand = "visa" | "mastercard" | "amex" | "discover" | "diners" | "jcb" | "unionpay" | "unknown";

interface BrandRules {
  /** What the shopper reads next to the number. */
  name: string;
  /** Digits of a full number, the longest last: fewer than all is incomplete, more than the longest is invalid. */
  numberLengths: readonly number[];
  /** Positions (in digits) after which a space is shown: 4-4-4-4, Amex's 4-6-5, Diners' 4-6-4. */
  gaps: readonly number[];
  /** Digits of the security code: 3, or 4 for Amex (the four printed on the front). */
  cvcLength: number;
}

const brandRules: Record<CardBrand, BrandRules> = {
  visa: { name: "Visa", numberLengths: [16], gaps: [4, 8, 12], cvcLength: 3 },
  mastercard: { name: "Mastercard", numberLengths: [16], gaps: [4, 8, 12], cvcLength: 3 },
  amex: { name: "American Express", numberLengths: [15], gaps: [4, 10], cvcLength: 4 },
  discover: { name: "Discover", numberLengths: [16, 19], gaps: [4, 8, 12, 16], cvcLength: 3 },
  diners: { name: "Diners Club", numberLengths: [14, 16, 19], gaps: [4, 10], cvcLength: 3 },
  jcb: { name: "JCB", numberLengths: [16, 17, 18, 19], gaps: [4, 8, 12, 16], cvcLength: 3 },
  unionpay: { name: "UnionPay", numberLengths: [16, 17, 18, 19], gaps: [4, 8, 12, 16], cvcLength: 3 },
  // A brand the field does not name is held to the common case, as Stripe's field does before it knows the brand.
  unknown: { name: "Unknown card brand", numberLengths: [16], gaps: [4, 8, 12], cvcLength: 3 },
};

export function getBrandRules(brand: CardBrand): Readonly<BrandRules> {
  return brandRules[brand];
}

/** Stripe.js's wording, exactly: the page shows these to the shopper. */
export const cardFieldMessages = {
  numberIncomplete: "Your card number is incomplete.",
  numberInvalid: "Your card number is invalid.",
  expiryIncomplete: "Your card's expiration date is incomplete.",
  expiryInvalid: "Your card's expiration date is invalid.",
  expiryYearInPast: "Your card's expiration year is in the past.",
  expiryInPast: "Your card's expiration date is in the past.",
  cvcIncomplete: "Your card's security code is incomplete.",
  /** Only reachable by calling validateCard directly: the field never lets a code grow longer than the brand's. */
  cvcInvalid: "Your card's security code is invalid.",
  postalCodeIncomplete: "Your postal code is incomplete.",
  /** Only reachable by calling validateCard directly: the field never lets a code grow past its longest form. */
  postalCodeInvalid: "Your postal code is invalid.",
} as const;

export const cardFieldNames = ["number", "expiry", "cvc", "postalCode"] as const;
export type CardFieldName = (typeof cardFieldNames)[number];

/**
 * empty: nothing typed; incomplete: too short so far; invalid: as long as it can be, yet wrong (fails Luhn,
 * month 13, date in the past, too long); complete: valid.
 */
export type FieldStatus = "empty" | "incomplete" | "invalid" | "complete";

export interface FieldCheck {
  status: FieldStatus;
  /** What is wrong, in Stripe's words; null only when complete. An empty field has its "incomplete" message. */
  message: string | null;
}

export type CardInput = Record<CardFieldName, string>;

/** A card as the payment step needs it: digits only, a four-digit year. */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  /** A US ZIP ("12345" or "12345-6789"), or another country's code ("SW1A 1AA"). */
  postalCode: string;
}

export interface CardValidation {
  brand: CardBrand;
  fields: Record<CardFieldName, FieldCheck>;
  /** Nothing typed in any field. */
  empty: boolean;
  /** Every field is complete and valid. */
  complete: boolean;
  /** The message of the first field (in field order) that is not complete; null when complete. */
  error: string | null;
  /** The card, only when complete. */
  card: CardDetails | null;
}

const digitsOf = (value: string) => value.replace(/\D/g, "");

const MAX_POSTAL_CODE_DIGITS = 9;
const SHORT_POSTAL_CODE_DIGITS = 5;
/** Postal codes elsewhere (SW1A 1AA, K1A 0B1, 75008): letters, digits, a space or hyphen, up to 10 characters. */
const MAX_POSTAL_CODE_LENGTH = 10;
const MIN_POSTAL_CODE_LENGTH = 3;

/**
 * The brand as soon as the first digits say so for certain: Visa 4; Mastercard 51-55 and 2221-2720; Amex 34, 37.
 * Anything else, or too few digits to tell (a lone "5", "2", "3"), is "unknown".
 */
export function detectBrand(number: string): CardBrand {
  const digits = digitsOf(number);
  if (digits.startsWith("4")) return "visa";
  if (/^3[47]/.test(digits)) return "amex";
  if (/^5[1-5]/.test(digits)) return "mastercard";
  if (digits.startsWith("2") && isCertainlyWithin(digits.slice(0, 4), 2221, 2720)) return "mastercard";
  if (/^(6011|65|64[4-9])/.test(digits)) return "discover";
  if (/^(36|38|39|30[0-5])/.test(digits)) return "diners";
  if (/^35(2[89]|[3-8])/.test(digits)) return "jcb";
  if (/^62/.test(digits)) return "unionpay";
  return "unknown";
}

/** Whether every four-digit number starting with `prefix` lies within [low, high]. */
function isCertainlyWithin(prefix: string, low: number, high: number): boolean {
  const scale = 10 ** (4 - prefix.length);
  const smallest = Number(prefix) * scale;
  const largest = smallest + scale - 1;
  return smallest >= low && largest <= high;
}

/** The Luhn (mod 10) check every card number carries in its last digit. An empty number is not valid. */
export function luhnValid(number: string): boolean {
  const digits = digitsOf(number);
  if (digits.length === 0) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Digits grouped as the brand prints them (4-4-4-4, Amex 4-6-5), cut at the brand's length. */
export function formatCardNumber(number: string): string {
  const { numberLengths, gaps } = brandRules[detectBrand(number)];
  const digits = digitsOf(number).slice(0, Math.max(...numberLengths));
  let formatted = "";
  for (let index = 0; index < digits.length; index++) {
    if (gaps.includes(index)) formatted += " ";
    formatted += digits[index];
  }
  return formatted;
}

/** The security code's digits, cut at the brand's length (3, or 4 for Amex). */
export function formatCvc(cvc: string, brand: CardBrand): string {
  return digitsOf(cvc).slice(0, brandRules[brand].cvcLength);
}

/**
 * A US ZIP, "12345" or ZIP+4 "12345-6789" (the hyphen put in as the sixth digit is typed); a code with letters is
 * another country's, kept as typed in capitals ("SW1A 1AA").
 */
export function formatPostalCode(postalCode: string): string {
  if (/[A-Za-z]/.test(postalCode)) {
    return postalCode
      .toUpperCase()
      .replace(/[^A-Z0-9 -]/g, "")
      .replace(/\s+/g, " ")
      .trimStart()
      .slice(0, MAX_POSTAL_CODE_LENGTH);
  }
  const digits = digitsOf(postalCode).slice(0, MAX_POSTAL_CODE_DIGITS);
  return digits.length > SHORT_POSTAL_CODE_DIGITS
    ? `${digits.slice(0, SHORT_POSTAL_CODE_DIGITS)}-${digits.slice(SHORT_POSTAL_CODE_DIGITS)}`
    : digits;
}

const EXPIRY_SEPARATOR = " / ";

/**
 * Reads an expiry as typed, pasted or autofilled: "1230", "12/30", "12 / 30", "12/2030", "122030", "2" (February),
 * "1/" (January). `month` and `year` hold up to two digits each.
 */
export function splitExpiry(
  expiry: string,
  { isDeleting = false }: { isDeleting?: boolean } = {},
): { month: string; year: string } {
  const separated = /^\s*(\d+)\D+(\d*)/.exec(expiry);
  if (separated && separated[1] !== undefined && separated[1].length <= 2) {
    const [, monthPart = "", yearPart = ""] = separated;
    // "1/" means January; but while deleting, "1 / 30" is a month being retyped, not "01".
    const month = monthPart.length === 1 && !isDeleting ? `0${monthPart}` : monthPart;
    return { month, year: lastTwoDigitsOfYear(yearPart) };
  }
  const digits = digitsOf(expiry);
  if (digits === "") return { month: "", year: "" };
  // Months 2-9 cannot take a second digit, so a leading 2-9 is that month: "4" is "04".
  if (/^[2-9]/.test(digits) && !isDeleting) return { month: `0${digits[0]}`, year: digits.slice(1, 3) };
  // "MMYYYY", as some autofill writes it.
  if (digits.length === 6 && digits.slice(2, 4) === "20") return { month: digits.slice(0, 2), year: digits.slice(4) };
  return { month: digits.slice(0, 2), year: digits.slice(2, 4) };
}

function lastTwoDigitsOfYear(yearPart: string): string {
  return yearPart.length === 4 ? yearPart.slice(2) : yearPart.slice(0, 2);
}

/**
 * "MM / YY" as the shopper types: a leading 0 for months 2-9, " / " put in once the month is whole. While the shopper
 * deletes (isDeleting), nothing is added back, so backspace can remove the separator and a month digit.
 */
export function formatExpiry(expiry: string, options: { isDeleting?: boolean } = {}): string {
  const { month, year } = splitExpiry(expiry, options);
  if (year !== "") return `${month}${EXPIRY_SEPARATOR}${year}`;
  return month.length < 2 || options.isDeleting ? month : `${month}${EXPIRY_SEPARATOR}`;
}

function checkNumber(number: string, brand: CardBrand): FieldCheck {
  const digits = digitsOf(number);
  const { numberLengths } = brandRules[brand];
  const longest = Math.max(...numberLengths);
  if (digits.length === 0) return { status: "empty", message: cardFieldMessages.numberIncomplete };
  if (numberLengths.includes(digits.length) && luhnValid(digits)) return { status: "complete", message: null };
  // A shorter length that fails the check may still be the start of a longer number of the brand (UnionPay's 19).
  if (digits.length < longest) return { status: "incomplete", message: cardFieldMessages.numberIncomplete };
  return { status: "invalid", message: cardFieldMessages.numberInvalid };
}

/**
 * A card is good through the last day of its expiry month (https://docs.stripe.com/testing: "any future date"),
 * judged in the shopper's own calendar (`now`'s local year and month). Two-digit years are 20YY.
 */
function checkExpiry(expiry: string, now: Date): FieldCheck {
  const { month, year } = splitExpiry(expiry);
  if (month === "") return { status: "empty", message: cardFieldMessages.expiryIncomplete };
  if (month.length === 2 && !isMonth(Number(month)))
    return { status: "invalid", message: cardFieldMessages.expiryInvalid };
  if (month.length < 2 || year.length < 2) return { status: "incomplete", message: cardFieldMessages.expiryIncomplete };
  const fullYear = 2000 + Number(year);
  if (fullYear < now.getFullYear()) return { status: "invalid", message: cardFieldMessages.expiryYearInPast };
  if (fullYear === now.getFullYear() && Number(month) < now.getMonth() + 1) {
    return { status: "invalid", message: cardFieldMessages.expiryInPast };
  }
  return { status: "complete", message: null };
}

const isMonth = (month: number) => month >= 1 && month <= 12;

function checkCvc(cvc: string, brand: CardBrand): FieldCheck {
  const digits = digitsOf(cvc);
  const { cvcLength } = brandRules[brand];
  if (digits.length === 0) return { status: "empty", message: cardFieldMessages.cvcIncomplete };
  if (digits.length < cvcLength) return { status: "incomplete", message: cardFieldMessages.cvcIncomplete };
  if (digits.length > cvcLength) return { status: "invalid", message: cardFieldMessages.cvcInvalid };
  return { status: "complete", message: null };
}

function checkPostalCode(postalCode: string): FieldCheck {
  if (/[A-Za-z]/.test(postalCode)) {
    const code = postalCode.trim();
    if (code.length > MAX_POSTAL_CODE_LENGTH || !/^[A-Za-z0-9][A-Za-z0-9 -]*$/.test(code))
      return { status: "invalid", message: cardFieldMessages.postalCodeInvalid };
    return code.replace(/[ -]/g, "").length < MIN_POSTAL_CODE_LENGTH
      ? { status: "incomplete", message: cardFieldMessages.postalCodeIncomplete }
      : { status: "complete", message: null };
  }
  const digits = digitsOf(postalCode);
  if (digits.length === 0) return { status: "empty", message: cardFieldMessages.postalCodeIncomplete };
  if (digits.length > MAX_POSTAL_CODE_DIGITS)
    return { status: "invalid", message: cardFieldMessages.postalCodeInvalid };
  if (digits.length !== SHORT_POSTAL_CODE_DIGITS && digits.length !== MAX_POSTAL_CODE_DIGITS) {
    return { status: "incomplete", message: cardFieldMessages.postalCodeIncomplete };
  }
  return { status: "complete", message: null };
}

/** Judges the four fields together (the security code's length depends on the number's brand). */
export function validateCard(input: CardInput, now: Date = new Date()): CardValidation {
  const brand = detectBrand(input.number);
  const fields: Record<CardFieldName, FieldCheck> = {
    number: checkNumber(input.number, brand),
    expiry: checkExpiry(input.expiry, now),
    cvc: checkCvc(input.cvc, brand),
    postalCode: checkPostalCode(input.postalCode),
  };
  const firstProblem = cardFieldNames.map((name) => fields[name]).find((field) => field.status !== "complete");
  const complete = firstProblem === undefined;
  const { month, year } = splitExpiry(input.expiry);
  return {
    brand,
    fields,
    empty: cardFieldNames.every((name) => fields[name].status === "empty"),
    complete,
    error: firstProblem?.message ?? null,
    card: complete
      ? {
          number: digitsOf(input.number),
          expMonth: Number(month),
          expYear: 2000 + Number(year),
          cvc: digitsOf(input.cvc),
          postalCode: formatPostalCode(input.postalCode),
        }
      : null,
  };
}
