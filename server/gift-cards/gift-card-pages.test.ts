import { afterAll, beforeAll, expect, it } from "vitest";
import type { BasketOwner } from "#server/basket/basket-owner";
import { createPageShop } from "#server/testing/page-shop";
import { addDeliveryAddress, confirmCard, createHttpBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const BOOK = "12321341"; // $11.96
const MONITOR = "4903850"; // $199.99
const OPERATOR = "owner@gift-card-pages.test";
const PASSWORD = "violet tractor harbour pickle";
const GROUPED_CODE = /\b([2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4})\b/;

/**
 * Gift cards where people read them: the buyer's order page says whom each card was sent to (never its number), the
 * console's dashboard counts cards as money owed, and a tax rate says whether it is charged on gift cards.
 */
describeEachDatabase("gift cards on the order page, the dashboard and the tax rates", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  const db = () => getDatabase().db;

  beforeAll(async () => {
    shop = await createPageShop(getDatabase(), { operator: { email: OPERATOR, password: PASSWORD } });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = async () => {
      await running.close();
      await shop.close();
    };
  }, 120_000);
  afterAll(() => close());

  const page = async (browser: ReturnType<typeof createHttpBrowser>, path: string) => {
    const response = await browser.send(path, { headers: { accept: "text/html" } });
    expect(response.status, path).toBe(200);
    return response.text();
  };
  const operator = async () => {
    const browser = createHttpBrowser(origin);
    const signedIn = await browser.postForm(
      "/login",
      { intent: "sign-in", email: OPERATOR, password: PASSWORD },
      { accept: "text/html", origin },
    );
    expect(signedIn.status).toBe(302);
    return browser;
  };

  it("saves and shows whether a tax rate is charged on gift cards", async () => {
    const browser = await operator();
    const save = (fields: Record<string, string>) =>
      browser.postForm("/admin/taxes", fields, { accept: "text/html", origin });
    expect((await save({ intent: "add-rate", country: "US", state: "NY", rate: "4", taxGiftCards: "on" })).status).toBe(
      200,
    );
    const rate = await db().selectFrom("tax_rates").selectAll().where("state", "=", "NY").executeTakeFirstOrThrow();
    expect(rate.taxes_gift_cards).toBe(true);
    let shown = await page(browser, "/admin/taxes");
    expect(shown).toContain("Charge this tax on gift cards");
    expect(shown).toContain("gift cards taxed");
    expect(shown).toMatch(/name="taxGiftCards" checked=""/);

    // Saved again without the box: no longer charged on gift cards.
    const saved = await save({ intent: "save-rate", rateId: rate.id, country: "US", state: "NY", rate: "4" });
    expect(saved.status).toBe(200);
    const after = await db().selectFrom("tax_rates").selectAll().where("id", "=", rate.id).executeTakeFirstOrThrow();
    expect(after.taxes_gift_cards).toBe(false);
    shown = await page(browser, "/admin/taxes");
    expect(shown).not.toContain("gift cards taxed");
    expect(shown).not.toMatch(/name="taxGiftCards" checked=""/);
    expect((await save({ intent: "remove-rate", id: rate.id })).status).toBe(200);
  });

  it("tells the buyer whom each card was sent to, never its number, and counts cards as owed on the dashboard", async () => {
    const { catalogue, basket, sessions, giftCards } = shop.services;
    await catalogue.updateProduct(BOOK, { giftCard: "denominations" });
    await catalogue.updateProduct(MONITOR, { giftCard: "any_amount" });
    let orderNumber = "";
    const buyer = createHttpBrowser(origin);
    try {
      expect((await buyer.postJson("/basket/empty", {})).status).toBe(200);
      const session = await sessions.findSession(decodeURIComponent((buyer.cookie ?? "").split("=")[1] ?? ""));
      const owner: BasketOwner = { sessionId: session!.id };
      await basket.addGiftCard(owner, BOOK, undefined, {
        recipientEmail: "sam@example.com",
        senderName: "Alex",
        message: "Happy birthday!",
        sendOn: null,
        amountCents: null,
      });
      await basket.addGiftCard(owner, MONITOR, undefined, {
        recipientEmail: "kim@example.com",
        senderName: "Alex",
        message: "",
        sendOn: "2099-01-01",
        amountCents: 3_000,
      });
      await addDeliveryAddress(buyer);
      const created = await buyer.send(`/payments/create?total=4196`, { method: "POST" });
      expect(created.status, await created.clone().text()).toBe(201);
      const { clientSecret } = (await created.json()) as { clientSecret: string };
      const confirmed = await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
      const recorded = await buyer.postJson("/orders/record", { paymentIntentId: confirmed.body.id });
      orderNumber = ((await recorded.json()) as { orderNumber: string }).orderNumber;
    } finally {
      await catalogue.updateProduct(BOOK, { giftCard: null });
      await catalogue.updateProduct(MONITOR, { giftCard: null });
    }

    const mail = await db()
      .selectFrom("email_outbox")
      .select("text_body")
      .where("kind", "=", "gift-card")
      .where("recipient", "=", "sam@example.com")
      .executeTakeFirstOrThrow();
    const code = GROUPED_CODE.exec(mail.text_body)![1]!;
    const orderPage = await page(buyer, `/orders/${encodeURIComponent(orderNumber)}`);
    expect(orderPage).toContain("Sent to sam@example.com");
    expect(orderPage).toContain("Will be sent to kim@example.com on January 1st 2099");
    expect(orderPage).not.toContain(code);
    expect(orderPage).not.toContain(code.replaceAll(" ", ""));

    // Sold: $11.96 + $30.00. Owed: Sam's card, Kim's card not yet sent, and a card issued by hand.
    await giftCards.issueByHand(
      { email: "pat@example.com", amountCents: 2_000, note: "Sorry for the wait", expiresOn: null },
      { id: null, email: OPERATOR },
    );
    const dashboard = await page(await operator(), "/admin");
    const figures = /data-testid="dashboard-gift-cards">(.*?)<\/dl>/s.exec(dashboard)?.[1] ?? "";
    expect(figures).toContain("Gift cards sold");
    expect(figures).toContain("$41.96");
    expect(figures).toContain("Gift card balances owed");
    expect(figures).toContain("$61.96");
  });
});
