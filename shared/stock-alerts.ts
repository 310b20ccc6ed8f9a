// Types, constants and plain functions only: this module reaches the browser bundle.

/** The longest e-mail address an alert is written to (RFC 5321's path limit, as accounts take). */
export const EMAIL_MAX_LENGTH = 254;

/** What the shopper is told after asking for an alert. */
export type StockAlertOutcome = "subscribed" | "check-email";

/** The sentences, exactly as shoppers read them. */
export const STOCK_ALERT_SENTENCES = {
  subscribed: "We'll e-mail you when it's back.",
  "check-email": "Check your e-mail to confirm your alert.",
} as const satisfies Record<StockAlertOutcome, string>;

/** An alert asked for on a variant that is not (or no longer) sold. */
export const NO_SUCH_VARIANT = "This item is not sold here. Please choose it again on its page.";

/** An alert asked for on a variant that has come back meanwhile. */
export const BACK_IN_STOCK_ALREADY = "It's back in stock: you can add it to your basket now.";

/** The product page's answer to "Notify me when available": the outcome, or the errors by field ("email", "form"). */
export type StockAlertAnswer =
  | { form: "stock-alert"; variantId: string; email: string; outcome: StockAlertOutcome }
  | { form: "stock-alert"; variantId: string; email: string; errors: Partial<Record<"email" | "form", string>> };
