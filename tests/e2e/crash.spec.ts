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
}

/** One checkout, cut short by a SIGKILL after a random delay (0 to 120 ms): wherever it lands. */
async function checkoutUntilKilled(shop: ShopProcess, killAfterMs: number): Promise<Shopper> {
  const shopper: Shopper = { cookie: "", added: false };
  const killer = new Promise<void>((resolve) => setTimeout(() => void killShop(shop).then(resolve), killAfterMs));
  const steps = (async () => {
    const added = await fetch(`${shop.origin}/basket/add`, { method: "POST", headers: json, body: JSON.stringify({ productId: "23445930" }) });
    shopper.cookie = (added.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    shopper.added = added.status === 201;
    const created = await fetch(`${shop.origin}/payments/create?total=9899`, { method: "POST", headers: { cookie: shopper.cookie } });
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    shopper.clientSecret = clientSecret;
    const publishableKey = /pk_test_[A-Za-z0-9]+/.exec(await (await fetch(`${shop.origin}/payment`, { headers: { cookie: shopper.cookie } })).text())?.[0] ?? "";
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    await confirmCard(shop.origin, clientSecret, publishableKey, "4242424242424242");
    await fetch(`${shop.origin}/orders/record`, { method: "POST", headers: { ...json, cookie: shopper.cookie }, body: JSON.stringify({ paymentIntentId: intentId }) });
  })().catch(() => undefined); // the kill cuts requests off mid-way: expected
  await Promise.all([steps, killer]);
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
      shoppers.push(await checkoutUntilKilled(shop, Math.floor(Math.random() * 120)));
    }
    const shop = await startShopProcess({ DATA_DIR: dataDir }, port);
    try {
      const publishableKey = /pk_test_[A-Za-z0-9]+/.exec(await (await fetch(`${shop.origin}/payment`)).text())?.[0] ?? "";
      for (const shopper of shoppers.filter((candidate) => candidate.added)) {
        const intentId = shopper.clientSecret?.split("_secret_")[0];
        const charged = intentId
          ? ((await (
              await fetch(`${shop.origin}/_processor/v1/payment_intents/${intentId}?client_secret=${shopper.clientSecret}`, {
                headers: { authorization: `Bearer ${publishableKey}` },
              })
            ).json()) as { status?: string }).status === "succeeded"
          : false;
        const ordersShown = async () => ((await (await fetch(`${shop.origin}/orders`, { headers: { cookie: shopper.cookie } })).text()).match(/data-testid="order"/g) ?? []).length;
        const basketCount = async () => ((await (await fetch(`${shop.origin}/basket`, { headers: { cookie: shopper.cookie } })).json()) as { basket: { count: number } }).basket.count;
        if (charged) {
          await expect.poll(ordersShown, { timeout: 30_000, message: `order for ${intentId}` }).toBe(1);
          expect(await basketCount()).toBe(0);
        } else {
          expect(await ordersShown()).toBe(0);
          expect(await basketCount()).toBe(1);
        }
      }
    } finally {
      await killShop(shop, "SIGTERM");
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
