import {
  cardFieldNames,
  validateCard,
  type CardBrand,
  type CardDetails,
  type CardFieldName,
  type CardInput,
  type FieldStatus,
} from "./card-validation.ts";

/** What the field tells the page on every change, like the `change` event of Stripe's card Element. */
export interface CardFieldState {
  /** Nothing typed in any of the four inputs. */
  empty: boolean;
  /** All four inputs hold a valid card. */
  complete: boolean;
  /** The message the page should show under the form now (Stripe.js wording), or null. */
  error: string | null;
  /** The card, only when complete: digits only, four-digit year. */
  card: CardDetails | null;
}

/** What the shopper has done so far, which decides which messages are shown yet. */
export interface Interaction {
  /** The input holding the focus, if any. */
  focused: CardFieldName | null;
  /** Inputs the shopper has left at least once. */
  visited: ReadonlySet<CardFieldName>;
  /** The surrounding form was submitted: every input counts as visited, empty ones included. */
  submitted: boolean;
}

export const noInteraction: Interaction = { focused: null, visited: new Set(), submitted: false };

export const emptyCardFieldState: CardFieldState = { empty: true, complete: false, error: null, card: null };

export interface CardFieldView {
  brand: CardBrand;
  /** Inputs whose message is showing (aria-invalid), in field order. */
  fieldsInError: readonly CardFieldName[];
  state: CardFieldState;
}

/**
 * Stripe.js's timing of field messages: a complete-but-wrong value (a full number failing Luhn, month 13, a date in
 * the past) is reported at once, even while typing; a value that is merely too short only once the shopper leaves
 * the input, and not while they are back in it; an empty input only after the form was submitted.
 */
export function isShowingError(status: FieldStatus, field: CardFieldName, interaction: Interaction): boolean {
  if (status === "invalid") return true;
  if (status === "complete" || interaction.focused === field) return false;
  if (status === "incomplete") return interaction.visited.has(field) || interaction.submitted;
  return interaction.submitted;
}

export function describeCardField(values: CardInput, interaction: Interaction, now: Date = new Date()): CardFieldView {
  const validation = validateCard(values, now);
  const fieldsInError = cardFieldNames.filter((field) =>
    isShowingError(validation.fields[field].status, field, interaction),
  );
  const firstInError = fieldsInError[0];
  return {
    brand: validation.brand,
    fieldsInError,
    state: {
      empty: validation.empty,
      complete: validation.complete,
      error: firstInError === undefined ? null : validation.fields[firstInError].message,
      card: validation.card,
    },
  };
}

export function isSameState(a: CardFieldState, b: CardFieldState): boolean {
  return (
    a.empty === b.empty &&
    a.complete === b.complete &&
    a.error === b.error &&
    JSON.stringify(a.card) === JSON.stringify(b.card)
  );
}
