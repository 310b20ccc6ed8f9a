import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GIFT_CARD_REFUSALS } from "#shared/gift-cards";
import type { BasketOwner } from "#server/basket/basket-owner";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { giftCardCodeHash, normaliseGiftCardCode } from "./gift-card-code";

const BOOK = "12321341"; // $11.96
const MONITOR = "4903850"; // $199.99
const OPERATOR = { id: null, email: "owner@console.test" };
const GROUPED_CODE = /\b([2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4})\b/;

describeEachDatabase("gift cards", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  const db = () => getDatabase().db;

  beforeAll(async () => {
    shop = await createTestShop(getDatabase(), { giftCardNumberLimits: { perSession: 3, perAddress: 5 } });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  });
  afterAll(() => close());

  /** The gift card e-mails sent to `recipient`, with the number each carries. */
  const mailTo = async (recipient: string) => {
    const rows = await db()
      .selectFrom("email_outbox")
      .select(["id", "subject", "text_body"])
      .where("kind", "=", "gift-card")
      .where("recipient", "=", recipient)
      .orderBy("created_at")
      .execute();
    return rows.map((row) => ({ ...row, code: GROUPED_CODE.exec(row.text_body)?.[1] ?? null }));
  };
  let typers = 0;
  const someone = () => ({ sessionId: crypto.randomUUID(), ip: `10.0.${Math.floor(typers / 200)}.${typers++ % 200}` });

  it("issues a card by hand: e-mailed once with its number, which the shop keeps only as a hash and last four", async () => {
    const { giftCards } = shop.services;
    const issued = await giftCards.issueByHand(
      { email: "pat@example.com", amountCents: 2_000, note: "Sorry for the wait", expiresOn: "2099-12-31" },
      OPERATOR,
    );
    const [mail, ...more] = await mailTo("pat@example.com");
    expect(more).toEqual([]);
    expect(mail?.subject).toContain("$20.00 gift card");
    const code = mail!.code!;
    expect(code.replaceAll(" ", "").slice(-4)).toBe(issued.lastFour);

    const account = await db()
      .selectFrom("balance_accounts")
      .selectAll()
      .where("id", "=", issued.id)
      .executeTakeFirstOrThrow();
    expect(account.code_hash).toBe(giftCardCodeHash(normaliseGiftCardCode(code)!));
    expect(JSON.stringify(account)).not.toContain(code.replaceAll(" ", ""));
    // The console reads its e-mail with the number hidden.
    const shown = await shop.services.email.getOutboxEmail(mail!.id);
    expect(shown?.textBody).not.toContain(code);
    expect(shown?.textBody).toContain(`•••• •••• •••• ${issued.lastFour}`);

    // Typed in lower case with other spacing, it is found.
    const typed = code.toLowerCase().replaceAll(" ", "  ");
    const found = await giftCards.lookUp(typed, someone());
    expect(found).toMatchObject({ ok: true, card: { availableCents: 2_000, lastFour: issued.lastFour } });
    if (found.ok) expect(found.card.expiresAt?.toISOString().slice(0, 10)).toBe("2100-01-01");

    const listed = (await giftCards.list()).find((row) => row.id === issued.id);
    expect(listed).toMatchObject({
      initialCents: 2_000,
      balanceCents: 2_000,
      status: "active",
      note: "Sorry for the wait",
    });

    await giftCards.adjust(issued.id, -500, "Part of it was spent in the shop", OPERATOR);
    expect(await giftCards.balanceOf(code, someone())).toMatchObject({ ok: true, availableCents: 1_500 });
    await expect(giftCards.adjust(issued.id, -5_000, "Too much", OPERATOR)).rejects.toThrow(
      "That is more than the balance.",
    );

    await giftCards.disable(issued.id, OPERATOR);
    expect(await giftCards.lookUp(code, someone())).toMatchObject({ ok: false, message: GIFT_CARD_REFUSALS.disabled });
    expect((await giftCards.list()).find((row) => row.id === issued.id)?.status).toBe("disabled");
    const audit = await db().selectFrom("audit_log").select("action").where("subject", "=", issued.id).execute();
    expect(audit.map((entry) => entry.action).sort()).toEqual([
      "gift-card.adjust",
      "gift-card.disable",
      "gift-card.issue",
    ]);
  });

  it("refuses numbers in the shop's words, and a session past ten wrong numbers an hour with 429", async () => {
    const { giftCards, balances } = shop.services;
    const typer = someone();
    expect(await giftCards.lookUp("ABCD EFGH JKLM NPQR", typer)).toMatchObject({
      ok: false,
      message: "This gift card number is not valid.",
    });
    const emptyCode = "EMPT YCAR D234 5678".replaceAll(" ", "");
    await balances.openGiftCard(db(), { codeHash: giftCardCodeHash(emptyCode), lastFour: "5678" });
    expect(await giftCards.lookUp(emptyCode, typer)).toMatchObject({
      ok: false,
      message: "This gift card has no balance left.",
    });
    const expiredCode = "EXPR DCAR D234 5679".replaceAll(" ", "");
    const expired = await balances.openGiftCard(db(), {
      codeHash: giftCardCodeHash(expiredCode),
      lastFour: "5679",
      expiresAt: new Date(Date.now() - 1_000),
    });
    await balances.issue(db(), expired.id, 1_000);
    expect(await giftCards.lookUp(expiredCode, typer)).toMatchObject({
      ok: false,
      message: "This gift card has expired.",
    });
    // Real numbers do not use up the allowance: this session has tried one wrong number so far (limit 3 here).
    expect(await giftCards.lookUp("WRNG WRNG WRNG WRN2", typer)).toMatchObject({ ok: false });
    expect(await giftCards.lookUp("WRNG WRNG WRNG WRN3", typer)).toMatchObject({ ok: false });
    await expect(giftCards.lookUp("WRNG WRNG WRNG WRN4", typer)).rejects.toMatchObject({
      code: "TOO_MANY_ATTEMPTS",
      status: 429,
    });
    // Then even a real number is not looked up for it.
    await expect(giftCards.lookUp(emptyCode, typer)).rejects.toMatchObject({ status: 429 });
    // The address's own limit counts across sessions.
    const ip = "10.9.9.9";
    for (let attempt = 0; attempt < 5; attempt++)
      await giftCards.lookUp("WRNG WRNG WRNG WRN5", { sessionId: crypto.randomUUID(), ip });
    await expect(
      giftCards.balanceOf("WRNG WRNG WRNG WRN6", { sessionId: crypto.randomUUID(), ip }),
    ).rejects.toMatchObject({ status: 429 });
  });

  it("sends each card an order buys once, at payment or on its send-on day, and a refund takes back what is left", async () => {
    const { giftCards, catalogue, basket, sessions } = shop.services;
    await catalogue.updateProduct(BOOK, { giftCard: "denominations" });
    await catalogue.updateProduct(MONITOR, { giftCard: "any_amount" });
    try {
      const browser = createHttpBrowser(origin);
      expect((await browser.postJson("/basket/empty", {})).status).toBe(200);
      const session = await sessions.findSession(decodeURIComponent((browser.cookie ?? "").split("=")[1] ?? ""));
      const owner: BasketOwner = { sessionId: session!.id };
      // A gift card is not added without its recipient.
      await expect(basket.addItem(owner, BOOK)).rejects.toMatchObject({ status: 400 });
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
      // The same card to someone else needs its own purchase.
      await expect(
        basket.addGiftCard(owner, BOOK, undefined, {
          recipientEmail: "lee@example.com",
          senderName: "Alex",
          message: "",
          sendOn: null,
          amountCents: null,
        }),
      ).rejects.toMatchObject({ code: "GIFT_CARD_LINE_TAKEN" });
      await addDeliveryAddress(browser);
      const { pricing } = await shop.services.checkout.priceCheckout(owner);
      expect(pricing).toMatchObject({ itemsCents: 4_196, shippingCents: 0, taxCents: 0, totalCents: 4_196 });

      const created = await browser.send(`/payments/create?total=4196`, { method: "POST" });
      expect(created.status).toBe(201);
      const { clientSecret } = (await created.json()) as { clientSecret: string };
      const confirmed = await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
      const orderId = confirmed.body.id!;
      for (let record = 0; record < 2; record++)
        expect([200, 201]).toContain((await browser.postJson("/orders/record", { paymentIntentId: orderId })).status);

      const [sent, ...again] = await mailTo("sam@example.com");
      expect(again).toEqual([]);
      expect(sent?.text_body).toContain("Happy birthday!");
      expect(sent?.subject).toBe("Alex sent you a $11.96 gift card");
      expect(await mailTo("kim@example.com")).toEqual([]);
      const deliveries = await giftCards.deliveriesOf(orderId);
      expect(deliveries).toMatchObject([
        { lineIndex: 0, recipient: "sam@example.com", sendOn: null },
        { lineIndex: 1, recipient: "kim@example.com", sendOn: "2099-01-01", deliveredAt: null },
      ]);
      expect(deliveries[0]!.deliveredAt).not.toBeNull();

      // Its day has not come: the sweep leaves it; once it has, the sweep sends it, once.
      expect(await giftCards.deliverDue()).toEqual({ sent: 0, skipped: 0 });
      await sql`update gift_card_sales set send_on = '2000-01-01' where order_id = ${orderId} and line_index = 1`.execute(
        db(),
      );
      expect((await giftCards.deliverDue()).sent).toBe(1);
      expect((await giftCards.deliverDue()).sent).toBe(0);
      const [kims] = await mailTo("kim@example.com");
      const kimsCode = kims!.code!;
      expect(await giftCards.lookUp(kimsCode, someone())).toMatchObject({ ok: true, card: { availableCents: 3_000 } });

      // The card spent in part, then its purchase refunded: only what is left comes back, and the card is disabled.
      const kimsCard = (await shop.services.balances.findGiftCard(giftCardCodeHash(normaliseGiftCardCode(kimsCode)!)))!;
      await shop.services.balances.adjust(db(), {
        accountId: kimsCard.id,
        amountCents: -1_000,
        actor: "test",
        note: "stands for a purchase",
      });
      expect(await giftCards.refundableOf(orderId, 1, 1)).toBe(2_000);
      const refunded = await db()
        .transaction()
        .execute((trx) => giftCards.takeBack(trx, orderId, 1, 1));
      expect(refunded).toBe(2_000);
      expect(await giftCards.lookUp(kimsCode, someone())).toMatchObject({ ok: false, refusal: "disabled" });
      expect((await shop.services.balances.figures(kimsCard.id)).balanceCents).toBe(0);
      // Taken back once: a second refund of it gives nothing.
      expect(await giftCards.refundableOf(orderId, 1, 1)).toBe(0);
    } finally {
      await catalogue.updateProduct(BOOK, { giftCard: null });
      await catalogue.updateProduct(MONITOR, { giftCard: null });
    }
  });
});
