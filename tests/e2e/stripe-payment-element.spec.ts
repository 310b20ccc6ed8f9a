import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import Stripe from "stripe";
import { fillDeliveryAddress } from "./support/delivery";
import { startProcessorProcess, stopProcessorProcess, type ProcessorProcess } from "./support/processor-process";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { serveStripeJsStandIn, type StandInMethod, type StripeJsCall } from "./support/stripe-js-stand-in";

/**
 * Stripe mode's payment page, offline: the shop runs with three test keys and TEST_ONLY_STRIPE_API_URL, so its
 * server's Stripe calls go to the test processor run as its own process; the browser gets a stand-in for Stripe.js
 * (a fixture of the third-party script, support/stripe-js-stand-in.ts) whose calls to api.stripe.com reach the same
 * processor. What is checked is what the shop hands Stripe: the intent it creates, what the Payment Element is
 * given, how confirmPayment is called, and where each outcome leaves the shopper.
 */
test.describe.configure({ mode: "serial" });

const KEYS = {
  STRIPE_SECRET_KEY: "sk_test_elementstory1",
  STRIPE_PUBLISHABLE_KEY: "pk_test_elementstory1",
  STRIPE_WEBHOOK_SECRET: "whsec_elementstory1",
};
const BOOK = { id: "12321341", title: /The Lean Startup/, priceCents: 1196 };
const ORDERS_AFTER_PAYING = /\/orders\?placed=(SF-\d{4}-[A-Z0-9]{4})$/;

let processor: ProcessorProcess;
let shop: ShopProcess;
let stripe: Stripe;
const dataDirs: string[] = [];

test.beforeAll(async () => {
  // Two production processes starting beside the suite's own: on a busy machine that takes most of a minute.
  test.setTimeout(240_000);
  const [shopPort, processorPort] = [await freePort(), await freePort()];
  const dataDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dataDirs.push(dir);
    return dir;
  };
  processor = await startProcessorProcess(
    {
      ...KEYS,
      DATA_DIR: dataDir("storefront-element-processor-"),
      WEBHOOK_URL: `http://127.0.0.1:${shopPort}/webhooks/stripe`,
    },
    processorPort,
  );
  shop = await startShopProcess(
    {
      ...KEYS,
      DATA_DIR: dataDir("storefront-element-"),
      TEST_ONLY_STRIPE_API_URL: processor.origin,
      PAYMENT_ATTEMPTS_PER_IP: "100000",
    },
    shopPort,
  );
  const api = new URL(processor.origin);
  stripe = new Stripe(KEYS.STRIPE_SECRET_KEY, {
    host: api.hostname,
    port: api.port,
    protocol: "http",
    maxNetworkRetries: 0,
  });
});

test.afterAll(async () => {
  if (shop) await killShop(shop, "SIGTERM");
  if (processor) await stopProcessorProcess(processor);
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** A shopper with the book in the basket, on /payment with a delivery address, the Payment Element filled in. */
async function readyToPay(page: Page, method: StandInMethod) {
  const calls: StripeJsCall[] = [];
  await serveStripeJsStandIn(page, { method, apiOrigin: processor.origin, calls });
  await page.goto(`${shop.origin}/`);
  await page.getByRole("article", { name: BOOK.title }).getByRole("button", { name: "Add to Basket" }).click();
  await expect(page.getByRole("banner").getByRole("link", { name: "Basket, 1 item" })).toHaveAttribute(
    "aria-busy",
    "false",
  );
  await page.goto(`${shop.origin}/payment`);
  await fillDeliveryAddress(page);
  await expect(page.getByText("Stripe.js stand-in: the test payment method is filled in.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Buy Now" })).toBeEnabled();
  const elements = calls.find((call) => call.name === "elements")?.args as { clientSecret: string };
  return { calls, clientSecret: elements.clientSecret, intentId: elements.clientSecret.split("_secret_")[0] ?? "" };
}

/** Webhook events of a type the processor has delivered to the shop so far (its log says so, one line each). */
const deliveredEvents = (type: string) =>
  processor
    .log()
    .split("\n")
    .filter((line) => line.includes("processor: webhook delivered") && line.includes(`"type":"${type}"`)).length;

test("the shop creates the intent as documented, hands the Payment Element its client secret and options, and a paid confirm lands on the order, recorded once", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const { calls, clientSecret, intentId } = await readyToPay(page, { kind: "card", number: "4242424242424242" });

  const intent = await stripe.paymentIntents.retrieve(intentId);
  expect(intent).toMatchObject({
    amount: BOOK.priceCents,
    currency: "usd",
    automatic_payment_methods: { enabled: true },
    status: "requires_payment_method",
    client_secret: clientSecret,
    shipping: {
      name: "Ada Lovelace",
      address: {
        line1: "1 Main Street",
        line2: "Apartment 4",
        city: "Los Angeles",
        state: "CA",
        postal_code: "90001",
        country: "US",
      },
    },
  });
  // Stripe.js is loaded (with the publishable key alone) as soon as the page shows, before there is an intent.
  const constructed = calls.filter((call) => call.name === "Stripe");
  expect(constructed.length).toBeGreaterThan(0);
  expect(new Set(constructed.map((call) => JSON.stringify(call.args)))).toEqual(
    new Set([JSON.stringify({ publishableKey: KEYS.STRIPE_PUBLISHABLE_KEY })]),
  );
  expect(calls.filter((call) => call.name === "elements" || call.name === "create")).toEqual([
    { name: "elements", args: { clientSecret } },
    { name: "create", args: { type: "payment", options: { layout: "tabs" } } },
  ]);

  const succeededBefore = deliveredEvents("payment_intent.succeeded");
  await page.getByRole("button", { name: "Buy Now" }).click();
  await expect(page).toHaveURL(ORDERS_AFTER_PAYING, { timeout: 30_000 });
  const orderNumber = ORDERS_AFTER_PAYING.exec(page.url())?.[1] ?? "";
  expect(calls.filter((call) => call.name === "confirmPayment")).toEqual([
    {
      name: "confirmPayment",
      args: {
        sameElements: true,
        confirmParams: { return_url: `${shop.origin}/payment/return` },
        redirect: "if_required",
      },
    },
  ]);
  expect(await stripe.paymentIntents.retrieve(intentId)).toMatchObject({
    status: "succeeded",
    amount_received: BOOK.priceCents,
  });

  // The webhook of the same payment arrives, and the return page is reached again: still the one order.
  await expect.poll(() => deliveredEvents("payment_intent.succeeded"), { timeout: 15_000 }).toBe(succeededBefore + 1);
  await page.goto(`${shop.origin}/payment/return?payment_intent=${intentId}`);
  await expect(page).toHaveURL(`${shop.origin}/orders?placed=${orderNumber}`);
  await expect(page.getByTestId("order")).toHaveCount(1);
  await expect(page.getByTestId("order")).toContainText(`Order ${orderNumber}`);
});

test("a processing payment says so, and its order appears once the payment succeeds", async ({ page }) => {
  test.setTimeout(90_000);
  const { calls, intentId } = await readyToPay(page, { kind: "payment-method", id: "pm_card_processing" });
  await page.getByRole("button", { name: "Buy Now" }).click();
  await expect(page).toHaveURL(`${shop.origin}/payment/return?payment_intent=${intentId}`);
  await expect(page.getByRole("heading", { name: "Your payment is processing" })).toBeVisible();
  await expect(page.getByRole("main").getByRole("status")).toContainText(
    "Your payment is processing; we will e-mail you",
  );
  expect(calls.filter((call) => call.name === "confirmPayment")).toHaveLength(1);

  await stripe.rawRequest("POST", `/v1/test_helpers/payment_intents/${intentId}/finish_processing`, {
    outcome: "succeed",
  });
  await expect
    .poll(
      async () => {
        await page.goto(`${shop.origin}/payment/return?payment_intent=${intentId}`);
        return ORDERS_AFTER_PAYING.test(page.url());
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  await expect(page.getByTestId("order")).toHaveCount(1);
});

test("a method that leaves the page: the hosted authentication page, then /payment/return finishes the order once", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const { intentId } = await readyToPay(page, { kind: "redirecting-card", number: "4000002760003184" });
  const succeededBefore = deliveredEvents("payment_intent.succeeded");
  await page.getByRole("button", { name: "Buy Now" }).click();

  await expect(page).toHaveURL(new RegExp(`^${processor.origin}/3d_secure/${intentId}/`));
  await expect(page.getByRole("heading", { name: "Authenticate your payment" })).toBeVisible();
  await expect(page.getByText("11.96 USD")).toBeVisible();
  const hostedPage = page.url();
  await page.getByRole("button", { name: "Complete authentication" }).click();

  await expect(page).toHaveURL(ORDERS_AFTER_PAYING, { timeout: 30_000 });
  const orderNumber = ORDERS_AFTER_PAYING.exec(page.url())?.[1] ?? "";
  await expect.poll(() => deliveredEvents("payment_intent.succeeded"), { timeout: 15_000 }).toBe(succeededBefore + 1);
  await page.goto(`${shop.origin}/payment/return?payment_intent=${intentId}&redirect_status=succeeded`);
  await expect(page).toHaveURL(`${shop.origin}/orders?placed=${orderNumber}`);
  await expect(page.getByTestId("order")).toHaveCount(1);

  // The link was used: going back to it finds nothing to answer.
  await page.goto(hostedPage);
  await expect(page.getByRole("heading", { name: "Authentication page not available" })).toBeVisible();
});
