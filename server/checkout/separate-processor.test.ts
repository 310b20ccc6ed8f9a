import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import {
  freePort,
  SEPARATE_PROCESSOR_KEYS as KEYS,
  startProcessorProcess,
  stopProcessorProcess,
} from "#server/testing/processor-process";
import { describeEachDatabase } from "#server/testing/test-database";
import { addDeliveryAddress, createHttpBrowser, createTestShop } from "#server/testing/test-app";

const ECHO = "23445930"; // $98.99

describeEachDatabase("a shop paying through the test processor run as its own process", (getDatabase) => {
  const dataDir = mkdtempSync(join(tmpdir(), "storefront-processor-"));
  let processor: ChildProcess | undefined;
  let processorUrl = "";
  let shopOrigin = "";
  let closeShop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    processorUrl = `http://127.0.0.1:${await freePort()}`;
    const shop = await createTestShop(getDatabase(), { stripe: KEYS, processorUrl });
    const running = await shop.listen(0);
    shopOrigin = `http://127.0.0.1:${running.port}`;
    closeShop = running.close;
    processor = await startProcessorProcess(
      Number(new URL(processorUrl).port),
      `${shopOrigin}/webhooks/stripe`,
      dataDir,
    );
  });
  afterAll(async () => {
    await stopProcessorProcess(processor);
    await closeShop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("creates the intent through the SDK over HTTP, takes the card from the page's origin, and records the order from the webhook", async () => {
    const browser = createHttpBrowser(shopOrigin);
    expect((await browser.postJson("/basket/add", { productId: ECHO })).status).toBe(201);
    await addDeliveryAddress(browser);
    const notMounted = await browser.get("/_processor/v1/payment_intents");
    expect(notMounted.status).toBe(404);
    // The payment page may call the processor's origin, and only that one besides its own.
    expect(notMounted.headers.get("content-security-policy")).toContain(`connect-src 'self' ${processorUrl};`);

    const created = await browser.send("/payments/create?total=9899", { method: "POST" });
    expect(created.status).toBe(201);
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const intentId = clientSecret.split("_secret_")[0] ?? "";

    // The payment page, on the shop's origin, sends the card to the processor's: a cross-origin call, as to Stripe.
    const confirmed = await fetch(`${processorUrl}/v1/payment_intents/${intentId}/confirm`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${KEYS.publishableKey}`,
        "content-type": "application/x-www-form-urlencoded",
        origin: shopOrigin,
      },
      body: new URLSearchParams({
        client_secret: clientSecret,
        use_stripe_sdk: "true",
        "payment_method_data[type]": "card",
        "payment_method_data[card][number]": "4242424242424242",
        "payment_method_data[card][exp_month]": "12",
        "payment_method_data[card][exp_year]": "2034",
        "payment_method_data[card][cvc]": "123",
      }),
    });
    expect(confirmed.headers.get("access-control-allow-origin")).toBe("*");
    expect(await confirmed.json()).toMatchObject({ id: intentId, status: "succeeded", amount: 9899 });

    // Nobody calls /orders/record: the processor's signed webhook reaches the shop, which records the order.
    const order = await vi.waitFor(
      async () => {
        const row = await getDatabase()
          .db.selectFrom("orders")
          .select(["id", "amount_cents"])
          .where("id", "=", intentId)
          .executeTakeFirst();
        if (!row) throw new Error("The webhook has not recorded the order yet.");
        return row;
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(order).toEqual({ id: intentId, amount_cents: 9899 });
  });
});
