import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BUILT_IN_PROCESSOR_PATH, prefixedHttpClient } from "#server/payments/payment-provider";
import { createPageShop } from "#server/testing/page-shop";
import { addDeliveryAddress, confirmCard, createHttpBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const OPERATOR = "owner@attention.test";
const PASSWORD = "violet tractor harbour pickle";
const BOOK = "12321341"; // $11.96

type Browser = ReturnType<typeof createHttpBrowser>;

/** The page's main text, tags gone: what an operator reads. */
const mainText = (page: string) =>
  (/<main[\s\S]*<\/main>/.exec(page)?.[0] ?? page).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

/**
 * "Needs attention" and the dashboard as an operator's browser without JavaScript uses them: plain GETs and form
 * posts to the console's pages, on a shop paid through the real checkout.
 */
describeEachDatabase("the console's Needs attention and dashboard pages", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let origin = "";
  let stop: () => Promise<void> = async () => {};
  let operator: Browser;

  const page = (path: string, init: RequestInit = {}) =>
    operator.send(path, {
      ...init,
      headers: { accept: "text/html", origin, ...Object.fromEntries(new Headers(init.headers)) },
    });
  const post = (path: string, fields: Record<string, string>) =>
    page(path, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });

  beforeAll(async () => {
    shop = await createPageShop(getDatabase(), { operator: { email: OPERATOR, password: PASSWORD } });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    stop = running.close;
    operator = createHttpBrowser(origin);
    const signedIn = await operator.send("/login", {
      method: "POST",
      body: new URLSearchParams({ intent: "sign-in", email: OPERATOR, password: PASSWORD }),
      headers: { accept: "text/html", origin, "content-type": "application/x-www-form-urlencoded" },
    });
    expect(signedIn.status).toBeLessThan(400);
  }, 90_000);
  afterAll(async () => {
    await stop();
    await shop.close();
  });

  /** A guest pays $11.96 for a basket of two books ($23.92): held for review, no order. */
  async function payTooLittle(): Promise<string> {
    const browser = createHttpBrowser(origin);
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    expect((await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 2 })).status).toBeLessThan(300);
    await addDeliveryAddress(browser);
    const { clientSecret } = (await (await browser.send("/payments/create?total=2392", { method: "POST" })).json()) as {
      clientSecret: string;
    };
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    const sdk = new Stripe(shop.processorKeys!.secretKey, {
      host: "127.0.0.1",
      port: new URL(origin).port,
      protocol: "http",
      httpClient: prefixedHttpClient(BUILT_IN_PROCESSOR_PATH),
    });
    await sdk.paymentIntents.update(intentId, { amount: 1196 });
    await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
    expect((await browser.postJson("/orders/record", { paymentIntentId: intentId })).status).toBe(409);
    return intentId;
  }

  it("lists a held payment with its amount and a Refund that asks first, then refunds it once", async () => {
    const intentId = await payTooLittle();
    const dashboard = await (await page("/admin")).text();
    expect(mainText(dashboard)).toContain("Needs attention 1");
    expect(dashboard).toContain('href="/admin/orders?show=attention&amp;mode=test"');

    const list = await page("/admin/orders?show=attention&mode=test");
    expect(list.status).toBe(200);
    const listed = mainText(await list.text());
    expect(listed).toContain("Payments held for review");
    expect(listed).toMatch(/\$11\.96 .* Refund/);

    const asked = await post("/admin/orders?show=attention&mode=test", {
      intent: "refund-held-payment",
      payment: intentId,
    });
    expect(asked.status).toBe(200);
    expect(mainText(await asked.text())).toContain("Refund $11.96 to the card it was paid with?");
    expect((await shop.services.checkout.listHeldPayments(null, 10)).count).toBe(1);

    const done = await post("/admin/orders?show=attention&mode=test", {
      intent: "refund-held-payment",
      payment: intentId,
      confirmed: "yes",
    });
    expect(done.status).toBe(200);
    const after = mainText(await done.text());
    expect(after).toContain("Refunded $11.96. The payment no longer needs attention.");
    expect(after).toContain("No payment is held.");
    expect(mainText(await (await page("/admin")).text())).toContain("Needs attention 0");

    const again = await post("/admin/orders?show=attention&mode=test", {
      intent: "refund-held-payment",
      payment: intentId,
      confirmed: "yes",
    });
    expect(again.status).toBe(409);
    expect(mainText(await again.text())).toContain("This payment is no longer held for review.");
  });

  it("refuses a form it does not understand, and a range it cannot show, with a sentence, changing nothing", async () => {
    const auditBefore = await getDatabase().db.selectFrom("audit_log").select("id").execute();
    const forms: Record<string, string>[] = [
      { intent: "refund-held-payment", payment: "not-a-payment" },
      { intent: "refund-held-payment", payment: "pi_x", extra: "1" },
    ];
    for (const fields of forms) {
      const refused = await post("/admin/orders?show=attention", fields);
      expect(refused.status).toBe(400);
      expect(mainText(await refused.text())).toContain("The form was not understood. Reload the page and try again.");
    }
    expect(await getDatabase().db.selectFrom("audit_log").select("id").execute()).toHaveLength(auditBefore.length);

    for (const [query, sentence] of [
      ["period=custom&from=2026-02-30&to=2026-03-01", "Enter the first date like 2026-03-08."],
      ["period=custom&from=2026-03-10&to=2026-03-01", "The last date must not be before the first."],
      ["period=custom&from=2024-01-01&to=2026-01-01", "A range is at most 366 days."],
      ["period=custom&from=2026-03-01", "Enter the last date like 2026-03-08."],
    ] as const) {
      const shown = await page(`/admin?${query}`);
      expect(shown.status, query).toBe(200);
      const text = mainText(await shown.text());
      expect(text, query).toContain(sentence);
      // Today's figures instead.
      expect(text, query).toContain("Gross sales");
    }
  });
});
