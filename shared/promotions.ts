/**
 * Promotion codes: what a shopper types and reads, and what an operator fills in. Codes are letters, digits and
 * hyphens, 3 to 32 long, kept upper case and matched without regard to case.
 */

import { formatCents } from "./money";

export type PromotionKindName = "percentage" | "amount" | "free-delivery";

/** The sentences a refused code gets, word for word wherever it is refused. */
export const PROMOTION_REFUSALS = {
  invalid: "This code isn't valid.",
  expired: "This code has expired.",
  used: "This code has already been used.",
  tooSmall: "This code can't be used on an order this small.",
} as const;

export function spendMoreMessage(shortCents: number): string {
  return `Spend ${formatCents(shortCents)} more to use this code.`;
}

/** The card processor's smallest charge: a total from $0.01 up to this less a cent cannot be paid by card. */
export const CARD_MINIMUM_CENTS = 50;

export const PROMOTION_CODE_PATTERN = /^[A-Za-z0-9-]{3,32}$/;

export function normalizeCode(typed: string): string {
  return typed.trim().toUpperCase();
}

export const PROMOTION_KIND_LABELS: Record<PromotionKindName, string> = {
  percentage: "Percentage off",
  amount: "Amount off",
  "free-delivery": "Free delivery",
};

/** "10% off", "$5.00 off", "Free delivery": a promotion's value as the console lists it. */
export function describePromotionValue(kind: PromotionKindName, value: number): string {
  if (kind === "percentage") return `${value}% off`;
  if (kind === "amount") return `${formatCents(value)} off`;
  return "Free delivery";
}

/** A promotion as the console lists and edits it. */
export interface PromotionView {
  id: string;
  code: string;
  kind: PromotionKindName;
  value: number;
  minimumSubtotalCents: number;
  /** ISO 8601, or null. */
  startsAt: string | null;
  endsAt: string | null;
  usageLimit: number | null;
  oncePerCustomer: boolean;
  status: "active" | "paused";
  /** Redemptions and live holds, as counted against Total uses. */
  uses: number;
  redemptions: number;
}
