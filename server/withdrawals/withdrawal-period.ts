// The EU right of withdrawal's period: 14 days from the day the goods arrive, for EU and EEA addresses.

import type { FulfilmentStatus, PaymentStatus } from "#shared/orders";
import { hasRightOfWithdrawal } from "#shared/withdrawal-countries";

/** The right of withdrawal lasts 14 days from the day the goods arrive (Consumer Rights Directive, Article 9). */
export const WITHDRAWAL_PERIOD_DAYS = 14;

const DAY_MS = 24 * 60 * 60 * 1000;

/** What decides whether an order may be withdrawn from now. */
export interface WithdrawalFacts {
  /** The delivery address's country (ISO code); null for an order without one. */
  country: string | null;
  paymentStatus: PaymentStatus;
  fulfilmentStatus: FulfilmentStatus;
  /** When the order was marked shipped; null while it has not been. */
  shippedAt: Date | null;
  /** Units not yet withdrawn from, over all its lines. */
  unitsLeft: number;
}

/**
 * When the period ends: 14 days after delivery, delivery being taken as DELIVERY_DAYS after the order was marked
 * shipped (the shop does not learn when a parcel arrives). Null while the order has not shipped: the period has not
 * started, and the shopper may withdraw from payment on.
 */
export function withdrawalPeriodEnd(shippedAt: Date | null, deliveryDays: number): Date | null {
  if (!shippedAt) return null;
  return new Date(shippedAt.getTime() + (deliveryDays + WITHDRAWAL_PERIOD_DAYS) * DAY_MS);
}

/**
 * Whether "Withdraw from contract here" is offered: an order delivered to an EU or EEA country, paid and not given
 * back in full, not cancelled, with units left to withdraw from, until its period ends.
 */
export function canWithdraw(facts: WithdrawalFacts, now: Date, deliveryDays: number): boolean {
  if (!hasRightOfWithdrawal(facts.country)) return false;
  if (facts.paymentStatus === "refunded") return false;
  if (facts.fulfilmentStatus === "cancelled" || facts.fulfilmentStatus === "returned") return false;
  if (facts.unitsLeft <= 0) return false;
  const end = withdrawalPeriodEnd(facts.shippedAt, deliveryDays);
  return end === null || now.getTime() <= end.getTime();
}
