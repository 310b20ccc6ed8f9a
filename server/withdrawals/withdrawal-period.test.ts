import { describe, expect, it } from "vitest";
import { canWithdraw, withdrawalPeriodEnd, type WithdrawalFacts } from "./withdrawal-period";

const DAY = 24 * 60 * 60 * 1000;
const shippedAt = new Date("2026-11-01T10:00:00Z");
const german: WithdrawalFacts = {
  country: "DE",
  paymentStatus: "paid",
  fulfilmentStatus: "shipped",
  shippedAt,
  unitsLeft: 2,
};

describe("the withdrawal period", () => {
  it("ends 14 days after delivery, delivery being DELIVERY_DAYS after shipping", () => {
    expect(withdrawalPeriodEnd(shippedAt, 7)?.toISOString()).toBe("2026-11-22T10:00:00.000Z");
    expect(withdrawalPeriodEnd(shippedAt, 0)?.toISOString()).toBe("2026-11-15T10:00:00.000Z");
    expect(withdrawalPeriodEnd(null, 7)).toBeNull();
  });

  it("is open from payment, before shipping, and until its last moment", () => {
    expect(canWithdraw({ ...german, fulfilmentStatus: "unfulfilled", shippedAt: null }, new Date(), 7)).toBe(true);
    expect(canWithdraw(german, new Date(shippedAt.getTime() + 21 * DAY), 7)).toBe(true);
    expect(canWithdraw(german, new Date(shippedAt.getTime() + 21 * DAY + 1), 7)).toBe(false);
    expect(canWithdraw(german, new Date(shippedAt.getTime() + 15 * DAY), 0)).toBe(false);
  });

  it("applies to EU and EEA addresses only", () => {
    expect(canWithdraw({ ...german, country: "NO" }, shippedAt, 7)).toBe(true);
    expect(canWithdraw({ ...german, country: "US" }, shippedAt, 7)).toBe(false);
    expect(canWithdraw({ ...german, country: "GB" }, shippedAt, 7)).toBe(false);
    expect(canWithdraw({ ...german, country: null }, shippedAt, 7)).toBe(false);
  });

  it("is closed once nothing is left to withdraw from: refunded, cancelled, returned or withdrawn in full", () => {
    expect(canWithdraw({ ...german, paymentStatus: "refunded" }, shippedAt, 7)).toBe(false);
    expect(canWithdraw({ ...german, fulfilmentStatus: "cancelled", shippedAt: null }, shippedAt, 7)).toBe(false);
    expect(canWithdraw({ ...german, fulfilmentStatus: "returned" }, shippedAt, 7)).toBe(false);
    expect(canWithdraw({ ...german, unitsLeft: 0 }, shippedAt, 7)).toBe(false);
    expect(canWithdraw({ ...german, paymentStatus: "partially_refunded" }, shippedAt, 7)).toBe(true);
  });
});
