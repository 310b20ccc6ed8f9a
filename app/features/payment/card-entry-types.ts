/** What the payment page and its card entries (the test processor's field, Stripe's Payment Element) agree on. */

export type ConfirmOutcome =
  | { status: "succeeded"; paymentIntentId: string }
  /** The bank wants the shopper to authenticate (3-D Secure) before it decides. */
  | { status: "requires_action"; paymentIntentId: string }
  /** Accepted, not yet final (a bank debit): not a failure; the order is recorded when it succeeds. */
  | { status: "processing"; paymentIntentId: string }
  | { status: "failed"; message: string };

/** What the payment page needs from a card entry, whichever processor is behind it. */
export interface CardEntryState {
  empty: boolean;
  complete: boolean;
  error: string | null;
}

export interface CardEntryController {
  /** Confirms the payment with the card the shopper entered. */
  confirm(clientSecret: string): Promise<ConfirmOutcome>;
  /** The answer to the built-in processor's authentication challenge (Stripe.js runs 3-D Secure itself). */
  authenticate(clientSecret: string, answer: "complete" | "fail"): Promise<ConfirmOutcome>;
}
