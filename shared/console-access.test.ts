import { describe, expect, it } from "vitest";
import { consoleHomeOf, mayUse, type ConsoleAccess } from "./console-access";

const staff = (...areas: ConsoleAccess["areas"]): ConsoleAccess => ({ role: "staff", areas });

describe("console access", () => {
  it("opens the order page to Orders or Refunds, and each of its buttons to its own area", () => {
    const route = "routes/admin/order-detail";
    expect([mayUse(staff("orders"), route), mayUse(staff("refunds"), route), mayUse(staff("reports"), route)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([mayUse(staff("orders"), route, "ship"), mayUse(staff("orders"), route, "refund")]).toEqual([true, false]);
    expect([mayUse(staff("refunds"), route, "ship"), mayUse(staff("refunds"), route, "refund")]).toEqual([false, true]);
  });

  it("asks every area of the page for a button it does not know, so Staff cannot slip past with a made-up intent", () => {
    const route = "routes/admin/order-detail";
    expect(mayUse(staff("orders"), route, "made-up")).toBe(false);
    expect(mayUse(staff("orders"), route, null)).toBe(false);
    expect(mayUse(staff("orders", "refunds"), route, "made-up")).toBe(true);
    expect(mayUse({ role: "manager", areas: [] }, route, "made-up")).toBe(true);
  });

  it("keeps staff and a route without an action to Owners, and nobody without access gets anything", () => {
    expect(mayUse({ role: "manager", areas: [] }, "routes/admin/staff")).toBe(false);
    expect(mayUse({ role: "owner", areas: [] }, "routes/admin/staff", "invite")).toBe(true);
    expect(mayUse({ role: "manager", areas: [] }, "routes/admin/outbox", "anything")).toBe(false);
    expect(mayUse(null, "routes/admin/admin-layout")).toBe(false);
  });

  it("opens the console at the first section a role may open", () => {
    expect(consoleHomeOf({ role: "owner", areas: [] })).toBe("/admin");
    expect(consoleHomeOf(staff("reviews", "shipping"))).toBe("/admin/reviews");
    expect(consoleHomeOf(staff("refunds"))).toBe("/admin/orders");
  });
});
