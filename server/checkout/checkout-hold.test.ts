import { describe, expect, it } from "vitest";
import { AppError } from "#shared/errors";
import type { PriceBreakdown } from "#shared/pricing";
import type { Writer } from "#server/db/client";
import { createCheckoutHold, type HoldAdapter, type HoldRequest } from "./checkout-hold";

/**
 * A kind of hold kept in memory, as a balance adapter would keep it in its table: what each key holds, and whether it
 * refuses. It is a real adapter of the port, which is what a new kind of hold is.
 */
function balanceHold(kind: string, { refuses = false } = {}) {
  const held = new Map<string, number>();
  const settled: string[] = [];
  const adapter: HoldAdapter = {
    kind,
    async reserve({ hold, replaces, pricing }) {
      if (refuses) throw new AppError("STOCK_SHORT", `No ${kind} left.`);
      for (const key of replaces) held.delete(key);
      held.set(hold, pricing.totalCents);
      return true;
    },
    async rename(from, to) {
      const amount = held.get(from);
      held.delete(from);
      if (amount !== undefined) held.set(to, amount);
    },
    async release(hold) {
      held.delete(hold);
    },
    async settle(_trx, { hold }) {
      settled.push(hold);
      held.delete(hold);
      return kind === "oversold kind" ? { oversold: true } : null;
    },
  };
  return { adapter, held, settled };
}

const pricing = { totalCents: 1196 } as PriceBreakdown;
const request = (hold: string, replaces: string[] = []): HoldRequest => ({
  hold,
  replaces,
  stock: [],
  pricing,
  customer: { owner: { sessionId: "s1" }, email: null },
});

describe("the one hold of a checkout payment", () => {
  it("holds every kind under the payment's key, moves them to the intent together, and lets them all go", async () => {
    const stock = balanceHold("stock");
    const credit = balanceHold("store credit");
    const hold = createCheckoutHold([stock.adapter, credit.adapter]);
    await hold.reserve(request("new:1"));
    await hold.rename("new:1", "pi_1");
    expect([...stock.held.keys()]).toEqual(["pi_1"]);
    expect(credit.held.get("pi_1")).toBe(1196);
    await hold.release("pi_1");
    expect(stock.held.size + credit.held.size).toBe(0);
  });

  it("moves to the intent only the kinds that hold something: one that held nothing under a new key has nothing to move", async () => {
    const stock = balanceHold("stock");
    const renamed: string[] = [];
    const nothing: HoldAdapter = {
      kind: "code",
      reserve: async () => false,
      rename: async (from, to) => void renamed.push(`${from} -> ${to}`),
      release: async () => {},
      settle: async () => null,
    };
    const hold = createCheckoutHold([stock.adapter, nothing]);
    const held = await hold.reserve({ ...request("new:5"), isNew: true });
    expect([...held]).toEqual(["stock"]);
    await hold.rename("new:5", "pi_5", held);
    expect([...stock.held.keys()]).toEqual(["pi_5"]);
    expect(renamed).toEqual([]);
  });

  it("refused by one kind, holds none: what the others took and the replaced payment's hold are let go", async () => {
    const stock = balanceHold("stock");
    const credit = balanceHold("store credit", { refuses: true });
    stock.held.set("pi_old", 500);
    const hold = createCheckoutHold([stock.adapter, credit.adapter]);
    await expect(hold.reserve(request("new:2", ["pi_old"]))).rejects.toThrow("No store credit left.");
    expect(stock.held.size).toBe(0);
  });

  it("a renewal refused leaves the intent's hold as it was (it lapses or its intent ends it)", async () => {
    const stock = balanceHold("stock");
    const credit = balanceHold("store credit", { refuses: true });
    stock.held.set("pi_3", 1196);
    const hold = createCheckoutHold([stock.adapter, credit.adapter]);
    await expect(hold.renew(request("pi_3"))).rejects.toThrow("No store credit left.");
    expect(stock.held.get("pi_3")).toBe(1196);
  });

  it("settles every kind in the order's transaction and hands back what the order must be flagged with", async () => {
    const stock = balanceHold("oversold kind");
    const credit = balanceHold("store credit");
    const hold = createCheckoutHold([stock.adapter, credit.adapter]);
    await hold.reserve(request("pi_4"));
    const flags = await hold.settle({} as Writer, {
      hold: "pi_4",
      orderId: "pi_4",
      items: [],
      pricing,
      customer: null,
      strict: false,
    });
    expect(flags).toEqual([{ oversold: true }]);
    expect([stock.settled, credit.settled]).toEqual([["pi_4"], ["pi_4"]]);
  });
});
