// How much of each balance (store credit, a gift card) pays towards a total, in the order they were applied, never past
// what is owed.

import { CARD_MINIMUM_CENTS } from "#shared/promotions";
import type { AppliedBalance, PriceBreakdown } from "#shared/pricing";

/** A balance a checkout may pay with: how much of it is there for this payment. */
export interface AvailableBalance {
  accountId: string;
  kind: AppliedBalance["kind"];
  lastFour: string | null;
  availableCents: number;
}

/**
 * The balances applied to a priced basket, in the order given (gift cards first, then store credit, as the checkout
 * lists them): each pays what it can of what is left. What is left for the card is nothing or at least the card
 * minimum: a remainder the card could not take (under $0.50) is left to the card by taking that much less from the
 * last balance, so a shopper is never asked to pay 20 cents by card.
 */
export function applyBalances(pricing: PriceBreakdown, balances: readonly AvailableBalance[]): PriceBreakdown {
  const applied: AppliedBalance[] = [];
  let left = pricing.isUndeliverable ? 0 : pricing.totalCents;
  // Gift cards do not buy gift cards: what gift cards may pay stops short of the gift card lines (with their tax).
  let giftCardRoom = Math.max(0, pricing.totalCents - (pricing.giftCardsCents ?? 0));
  for (const balance of balances) {
    const cap = balance.kind === "gift_card" ? Math.min(left, giftCardRoom) : left;
    const amountCents = Math.min(Math.max(0, balance.availableCents), cap);
    if (amountCents <= 0) continue;
    if (balance.kind === "gift_card") giftCardRoom -= amountCents;
    applied.push({ accountId: balance.accountId, kind: balance.kind, lastFour: balance.lastFour, amountCents });
    left -= amountCents;
  }
  if (left > 0 && left < CARD_MINIMUM_CENTS) {
    let short = CARD_MINIMUM_CENTS - left;
    for (let index = applied.length - 1; index >= 0 && short > 0; index--) {
      const taken = Math.min(short, applied[index]!.amountCents);
      applied[index] = { ...applied[index]!, amountCents: applied[index]!.amountCents - taken };
      short -= taken;
      left += taken;
    }
  }
  const kept = applied.filter((balance) => balance.amountCents > 0);
  return { ...pricing, balances: kept, dueCents: pricing.totalCents - kept.reduce((sum, b) => sum + b.amountCents, 0) };
}
