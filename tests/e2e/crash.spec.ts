import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { confirmCard } from "../../server/testing/confirm-card";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";

/**
 * A paid order is never lost and nothing is recorded twice: the server is killed (SIGKILL, no goodbye) at a random
 * point of a checkout (while adding, pricing, confirming the card or recording), then restarted on the same data.
 * Afterwards every intent the processor charged has exactly one order and an empty basket; every shopper whose card
 * was not charged still has the item and no order. `npm test` runs a few rounds; `npm run test:faults` runs 20.
 */
test.describe.configure({ mode: "serial" });

const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 3);
const json = { "content-type": "application/json" };

interface Shopper {
  cookie: string;
  added: boolean;
  clientSecret?: string;
  /** Read from the shopper's own /payment (an empty basket's /payment sends the shopper back to the basket). */
  publishableKey?: string;
}

/** The step of a checkout during which the kill lands: each round picks one, so every step is cut at some point. */
const KILL_DURING = ["confirm-answered", "create", "confirm", "add"] as const;
type Step = (typeof KILL_DURING)[number];

/**
 * One checkout, cut short by a SIGKILL 0 to 20 ms after the chosen step's request was sent ("confirm-answered":
 * after the processor charged the card, while the order is being recorded): wherever in that step it lands.
 */
async function checkoutUntilKilled(shop: ShopProcess, killDuring: Step): Promise<Shopper> {
  const shopper: Shopper = { cookie: "", added: false };
  let killer: Promise<void> = Promise.resolve();
  const killSoon = (step: Step) => {
    if (step === killDuring)
      killer = new Promise<void>((resolve) =>
        setTimeout(() => void killShop(shop).then(resolve), Math.floor(Math.random() * 20)),
      );
  };
  const steps = (async () => {
    killSoon("add");
    const added = await fetch(`${shop.origin}/basket/add`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ productId: "23445930" }),
    });
    shopper.cookie = (added.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    shopper.added = added.status === 201;
    await fetch(`${shop.origin}/checkout/address`, {
      method: "POST",
      headers: { ...json, cookie: shopper.cookie },
      body: JSON.stringify({
        name: "Ada Lovelace",
        line1: "1 Main Street",
        city: "Los Angeles",
        region: "CA",
        postalCode: "90001",
        country: "US",
        email: "ada@example.com",
      }),
    });
    const publishableKey =
      /pk_test_[A-Za-z0-9]+/.exec(
        await (await fetch(`${shop.origin}/payment`, { headers: { cookie: shopper.cookie } })).text(),
      )?.[0] ?? "";
    shopper.publishableKey = publishableKey;
    killSoon("create");
    const created = await fetch(`${shop.origin}/payments/create?total=9899`, {
      method: "POST",
      headers: { cookie: shopper.cookie },
    });
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    shopper.clientSecret = clientSecret;
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    killSoon("confirm");
    await confirmCard(shop.origin, clientSecret, publishableKey, "4242424242424242");
    killSoon("confirm-answered");
    await fetch(`${shop.origin}/orders/record`, {
      method: "POST",
      headers: { ...json, cookie: shopper.cookie },
      body: JSON.stringify({ paymentIntentId: intentId }),
    });
  })().catch(() => undefined); // the kill cuts requests off mid-way: expected
  await steps;
  await killer;
  // A kill that had not landed before the steps ended lands now; the process is gone either way.
  await killShop(shop).catch(() => undefined);
  return shopper;
}

test("killed at random points of checkouts, the shop ends with one order per charge and no lost basket", async () => {
  test.setTimeout(60_000 + ROUNDS * 20_000);
  const dataDir = mkdtempSync(join(tmpdir(), "storefront-crash-"));
  const port = await freePort();
  try {
    const shoppers: Shopper[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const shop = await startShopProcess({ DATA_DIR: dataDir }, port);
      shoppers.push(await checkoutUntilKilled(shop, KILL_DURING[round % KILL_DURING.length]!));
    }
    const shop = await startShopProcess({ DATA_DIR: dataDir }, port);
    try {
      const checked = { charged: 0, notCharged: 0 };
      for (const shopper of shoppers.filter((candidate) => candidate.added)) {
        const intentId = shopper.clientSecret?.split("_secret_")[0];
        const charged = intentId
          ? (
              (await (
                await fetch(
                  `${shop.origin}/_processor/v1/payment_intents/${intentId}?client_secret=${shopper.clientSecret}`,
                  {
                    headers: { authorization: `Bearer ${shopper.publishableKey ?? ""}` },
                  },
                )
              ).json()) as { status?: string }
            ).status === "succeeded"
          : false;
        const ordersShown = async () =>
          (
            (await (await fetch(`${shop.origin}/orders`, { headers: { cookie: shopper.cookie } })).text()).match(
              /data-testid="order"/g,
            ) ?? []
          ).length;
        const basketCount = async () =>
          (
            (await (await fetch(`${shop.origin}/basket`, { headers: { cookie: shopper.cookie } })).json()) as {
              basket: { count: number };
            }
          ).basket.count;
        if (charged) {
          await expect.poll(ordersShown, { timeout: 30_000, message: `order for ${intentId}` }).toBe(1);
          expect(await basketCount()).toBe(0);
          checked.charged++;
        } else {
          expect(await ordersShown()).toBe(0);
          expect(await basketCount()).toBe(1);
          checked.notCharged++;
        }
      }
      // The story proves something only if it saw both kinds of checkout: one charged before its kill (its order
      // must appear), and one cut off with the item added but nothing charged (its basket must survive).
      expect(checked.charged, "checkouts charged before their kill").toBeGreaterThan(0);
      expect(checked.notCharged, "checkouts cut off before the charge").toBeGreaterThan(0);
    } finally {
      await killShop(shop, "SIGTERM");
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
