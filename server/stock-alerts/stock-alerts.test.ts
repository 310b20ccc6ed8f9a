import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSmtpCatcher } from "#server/testing/smtp-catcher";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { STOCK_ALERT_LIMITS } from "./stock-alert-service";
import { webhooksDelivered } from "#server/testing/processor-webhooks";

const BOOK = "12321341";
const OPERATOR = { id: null, email: "owner@console.test" };
const SLOW = { timeout: 120_000 };
let counter = 0;
const unique = (label: string) => `${label}${Date.now()}${++counter}`;
const uniqueEmail = () => `${unique("alert")}@example.com`;

/**
 * "Notify me when available" on a variant, at the service and through what brings stock back: the console's edit,
 * a released or expired reservation, a payment the processor cancelled (its webhook), a refund that puts the items back.
 * E-mails are read from a real SMTP server; payments go through the built-in processor over HTTP.
 */
describeEachDatabase("back-in-stock alerts", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    // The reservation sweep is the test's to run.
    shop = await createTestShop(getDatabase(), {
      smtp: { url: catcher.url, from: "orders@shop.test" },
      reservationSweepMs: 3_600_000,
    });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  }, SLOW.timeout);
  afterAll(async () => {
    await close();
    await catcher.stop();
  });

  const db = () => getDatabase().db;
  const alerts = () => shop.services.stockAlerts;
  const inventory = () => shop.services.inventory;
  /** The console's edit of one variant's stock, in a transaction of its own as the product form's. */
  const setStock = (variantId: string, onHand: number) =>
    db()
      .transaction()
      .execute((trx) =>
        inventory().setStock(trx, variantId, { tracksStock: true, continueSelling: false, onHand }, OPERATOR.email),
      );
  /** What reached the address once everything written to it has been delivered (by this call or the shop's own sender). */
  const mailTo = async (address: string) => {
    await shop.emailSender.deliverDue();
    const waiting = () =>
      db()
        .selectFrom("email_outbox")
        .select("id")
        .where("recipient", "=", address)
        .where("status", "=", "pending")
        .execute();
    await expect.poll(async () => (await waiting()).length, { timeout: 10_000 }).toBe(0);
    const sent = await db()
      .selectFrom("email_outbox")
      .select("id")
      .where("recipient", "=", address)
      .where("status", "=", "sent")
      .execute();
    await expect.poll(() => catcher.to(address).length, { timeout: 10_000 }).toBe(sent.length);
    return catcher.to(address);
  };
  const alertsTo = async (address: string) =>
    (await mailTo(address)).filter((mail) => mail.subject.startsWith("Back in stock"));
  /** A signed-in shopper with a confirmed address asks: subscribed at once. */
  const subscribeConfirmed = async (variantId: string, address = uniqueEmail()) => {
    expect(
      await alerts().subscribe({ variantId, address, user: { email: address, isEmailVerified: true }, ip: "10.9.0.1" }),
    ).toBe("subscribed");
    return address;
  };

  /** "Classic Tee" in S and M (Black), $20.00, each variant tracking stock with none on hand. */
  async function createTee() {
    const id = unique("tee-");
    await db()
      .insertInto("products")
      .values({
        id,
        slug: id,
        title: "Classic Tee",
        price_cents: 2000,
        rating: 4,
        image: "/images/products/12321341.webp",
        image_width: 400,
        image_height: 400,
        featured_position: null,
      })
      .execute();
    await db()
      .insertInto("product_options")
      .values([
        { product_id: id, position: 1, name: "Size", values: JSON.stringify(["S", "M"]) },
        { product_id: id, position: 2, name: "Colour", values: JSON.stringify(["Black"]) },
      ])
      .execute();
    await db().deleteFrom("product_variants").where("product_id", "=", id).execute();
    const variant = (size: string, position: number) => ({
      id: `${id}-${size.toLowerCase()}`,
      product_id: id,
      position,
      option_values: JSON.stringify([size, "Black"]),
      price_cents: 2000,
      sku: null,
      compare_at_cents: null,
      image: null,
      image_width: null,
      image_height: null,
      image_srcset: null,
    });
    await db()
      .insertInto("product_variants")
      .values([variant("S", 1), variant("M", 2)])
      .execute();
    await setStock(`${id}-s`, 0);
    await setStock(`${id}-m`, 0);
    return { id, slug: id, small: `${id}-s`, medium: `${id}-m` };
  }

  /** A guest buys `variantId` through the real checkout; answers the order's id (its intent's). */
  async function buy(productId: string, variantId: string): Promise<string> {
    const browser = createHttpBrowser(origin);
    expect((await browser.postJson("/basket/add", { productId, variantId })).status).toBe(201);
    await addDeliveryAddress(browser);
    const created = await browser.send("/payments/create?total=2000", { method: "POST" });
    expect(created.status).toBe(201);
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const confirmed = await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
    const paymentIntentId = confirmed.body.id ?? "";
    expect((await browser.postJson("/orders/record", { paymentIntentId })).status).toBeLessThan(300);
    return paymentIntentId;
  }

  it(
    "asks anybody but a signed-in, confirmed owner of the address to confirm; only a confirmed alert is used",
    SLOW,
    async () => {
      const tee = await createTee();
      const address = uniqueEmail();
      expect(
        await alerts().subscribe({
          variantId: tee.medium,
          address: ` ${address.toUpperCase()} `,
          user: null,
          ip: "10.1.0.1",
        }),
      ).toBe("check-email");
      // Signed in as somebody else, or with an address not yet confirmed: confirmed by e-mail too.
      expect(
        await alerts().subscribe({
          variantId: tee.medium,
          address,
          user: { email: "someone.else@example.com", isEmailVerified: true },
          ip: "10.1.0.1",
        }),
      ).toBe("check-email");
      const unconfirmedOwner = uniqueEmail();
      expect(
        await alerts().subscribe({
          variantId: tee.medium,
          address: unconfirmedOwner,
          user: { email: unconfirmedOwner, isEmailVerified: false },
          ip: "10.1.0.1",
        }),
      ).toBe("check-email");
      // One confirmation waits per mailbox and day: asking again sends no second one.
      const messages = await mailTo(address);
      expect(messages.map((message) => message.subject)).toEqual(["Confirm your alert"]);
      expect(messages[0]!.body).toContain("Classic Tee (M, Black)");
      const token = new URL(
        messages[0]!.links.find((link) => link.includes("/stock-alerts/confirm"))!,
      ).searchParams.get("token")!;
      expect(await alerts().confirm(token)).toBe(true);
      expect(await alerts().confirm("x".repeat(43))).toBe(false);
      expect(
        await db()
          .selectFrom("stock_alerts")
          .select(["variant_id", "confirmed_at"])
          .where("email", "=", address)
          .execute(),
      ).toEqual([{ variant_id: tee.medium, confirmed_at: expect.any(Date) }]);

      const owner = uniqueEmail();
      expect(
        await alerts().subscribe({
          variantId: tee.medium,
          address: owner,
          user: { email: owner, isEmailVerified: true },
          ip: "10.1.0.2",
        }),
      ).toBe("subscribed");
      expect(
        await alerts().subscribe({
          variantId: tee.medium,
          address: owner,
          user: { email: owner, isEmailVerified: true },
          ip: "10.1.0.2",
        }),
      ).toBe("subscribed");
      expect(await mailTo(owner)).toEqual([]);

      // Back in stock: the two confirmed alerts are sent, the unconfirmed one is not.
      await setStock(tee.medium, 4);
      expect((await alertsTo(address)).map((mail) => mail.subject)).toEqual(["Back in stock: Classic Tee (M, Black)"]);
      expect(await alertsTo(owner)).toHaveLength(1);
      expect(await alertsTo(unconfirmedOwner)).toEqual([]);
      // Its link confirmed after the variant came back: the alert is confirmed and sent at once.
      const lateToken = new URL(
        (await mailTo(unconfirmedOwner))[0]!.links.find((link) => link.includes("/stock-alerts/confirm"))!,
      ).searchParams.get("token")!;
      expect(await alerts().confirm(lateToken)).toBe(true);
      expect(await alertsTo(unconfirmedOwner)).toHaveLength(1);
      expect(await alerts().confirm(lateToken)).toBe(true);
      expect(await alertsTo(unconfirmedOwner)).toHaveLength(1);
    },
  );

  it(
    "refuses a malformed or too long address, an unknown variant and one in stock, writing nothing",
    SLOW,
    async () => {
      const tee = await createTee();
      const address = uniqueEmail();
      const ask = (variantId: string, asked = address) =>
        alerts().subscribe({ variantId, address: asked, user: null, ip: "10.4.0.1" });
      await expect(ask(tee.medium, "not an address")).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: "Enter a valid e-mail address, like name@example.com.",
      });
      await expect(ask(tee.medium, `${"a".repeat(250)}@example.com`)).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: "An e-mail address is at most 254 characters.",
      });
      await expect(ask("no-such-variant")).rejects.toMatchObject({
        code: "NOT_FOUND",
        message: "This item is not sold here. Please choose it again on its page.",
      });
      await setStock(tee.small, 2);
      await expect(ask(tee.small)).rejects.toMatchObject({
        code: "ALREADY_IN_STOCK",
        message: "It's back in stock: you can add it to your basket now.",
      });
      // A product whose variant does not track stock is never out of stock.
      await expect(ask(BOOK)).rejects.toMatchObject({ code: "ALREADY_IN_STOCK" });
      await db().updateTable("products").set({ status: "archived" }).where("id", "=", tee.id).execute();
      await expect(ask(tee.medium)).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(await db().selectFrom("stock_alerts").select("id").where("email", "=", address).execute()).toEqual([]);
      expect(await mailTo(address)).toEqual([]);
    },
  );

  it(
    "the console's edit sends one e-mail per subscriber of that variant with a link to it, none while it stays at 0, none twice",
    SLOW,
    async () => {
      const tee = await createTee();
      const first = await subscribeConfirmed(tee.medium);
      const second = await subscribeConfirmed(tee.medium);
      const otherSize = await subscribeConfirmed(tee.small);

      // 0 to 0, and -3 to 0: still out of stock.
      await setStock(tee.medium, 0);
      await setStock(tee.medium, -3);
      await setStock(tee.medium, 0);
      expect(await alertsTo(first)).toEqual([]);

      await setStock(tee.medium, 3);
      for (const address of [first, second]) {
        const [mail, ...more] = await alertsTo(address);
        expect(more).toEqual([]);
        expect(mail!.subject).toBe("Back in stock: Classic Tee (M, Black)");
        expect(mail!.links.map((link) => new URL(link)).map((url) => url.pathname + url.search)).toContain(
          `/products/${tee.slug}?variant=${tee.medium}`,
        );
      }
      expect(await alertsTo(otherSize)).toEqual([]);

      // Out and back again: each alert was used once.
      await setStock(tee.medium, 0);
      await setStock(tee.medium, 5);
      expect(await alertsTo(first)).toHaveLength(1);
      expect(await alertsTo(second)).toHaveLength(1);
      expect(
        await db().selectFrom("stock_alerts").select("notified_at").where("variant_id", "=", tee.medium).execute(),
      ).toEqual([{ notified_at: expect.any(Date) }, { notified_at: expect.any(Date) }]);
    },
  );

  it(
    "the same comeback made by several transactions at once writes each alert once, with a one-click unsubscribe from stock alerts only",
    SLOW,
    async () => {
      const tee = await createTee();
      const owner = await subscribeConfirmed(tee.medium);
      await Promise.all([setStock(tee.medium, 2), setStock(tee.medium, 3), setStock(tee.medium, 4)]);
      // Even told directly, as two instances each bringing it back would: one e-mail.
      await subscribeConfirmed(tee.small, owner);
      const told = await Promise.all(
        [1, 2, 3].map(() =>
          db()
            .transaction()
            .execute((trx) => alerts().notifyBackInStock(trx, [tee.small])),
        ),
      );
      expect(told.reduce((sum, count) => sum + count, 0)).toBe(1);
      const mails = await alertsTo(owner);
      expect(mails.map((mail) => mail.subject).toSorted()).toEqual([
        "Back in stock: Classic Tee (M, Black)",
        "Back in stock: Classic Tee (S, Black)",
      ]);
      const [mail] = mails;
      expect(mail!.header("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
      const token = new URL(/^<([^>]+)>$/.exec(mail!.header("List-Unsubscribe"))![1]!).searchParams.get("token")!;
      expect(await shop.services.emailPreferences.unsubscribe(token)).toEqual({
        email: owner,
        purpose: "stock-alerts",
      });

      // A new alert of that address is used without an e-mail; its review requests are not affected.
      await setStock(tee.medium, 0);
      await subscribeConfirmed(tee.medium, owner);
      await setStock(tee.medium, 1);
      expect(await alertsTo(owner)).toHaveLength(2);
      expect(
        await db()
          .selectFrom("stock_alerts")
          .select("notified_at")
          .where("email", "=", owner)
          .where("notified_at", "is", null)
          .execute(),
      ).toEqual([]);
      expect(await db().selectFrom("email_opt_outs").select("purpose").where("email", "=", owner).execute()).toEqual([
        { purpose: "stock-alerts" },
      ]);
    },
  );

  it(
    "a reservation given back (released, or expired and swept) brings the last unit back to its subscribers",
    SLOW,
    async () => {
      const tee = await createTee();
      await setStock(tee.medium, 1);
      await inventory().reserve("hold-released", [{ variantId: tee.medium, quantity: 1 }]);
      const released = await subscribeConfirmed(tee.medium);
      await inventory().release("hold-released");
      expect(await alertsTo(released)).toHaveLength(1);

      await inventory().reserve("hold-expired", [{ variantId: tee.medium, quantity: 1 }]);
      const expired = await subscribeConfirmed(tee.medium);
      await db()
        .updateTable("stock_reservations")
        .set({ expires_at: sql<Date>`now() - interval '1 second'` })
        .where("hold", "=", "hold-expired")
        .execute();
      expect(await inventory().releaseExpired()).toBeGreaterThanOrEqual(1);
      expect(await alertsTo(expired)).toHaveLength(1);
      expect(await alertsTo(released)).toHaveLength(1);
    },
  );

  it(
    "a payment the processor reports cancelled gives its stock back at once, and the subscribers hear of it",
    SLOW,
    async () => {
      const tee = await createTee();
      await setStock(tee.medium, 1);
      const browser = createHttpBrowser(origin);
      expect((await browser.postJson("/basket/add", { productId: tee.id, variantId: tee.medium })).status).toBe(201);
      await addDeliveryAddress(browser);
      const created = await browser.send("/payments/create?total=2000", { method: "POST" });
      expect(created.status).toBe(201);
      const intentId = ((await created.json()) as { clientSecret: string }).clientSecret.split("_secret_")[0]!;
      expect((await inventory().getLevels([tee.medium])).get(tee.medium)?.available).toBe(0);
      const address = await subscribeConfirmed(tee.medium);

      // Cancelled at the processor (its dashboard, say): payment_intent.canceled comes back as a webhook.
      await shop.services.provider.cancelIntent(intentId);
      await expect
        .poll(async () => (await inventory().getLevels([tee.medium])).get(tee.medium)?.available, { timeout: 15_000 })
        .toBe(1);
      expect(await db().selectFrom("stock_reservations").select("id").where("hold", "=", intentId).execute()).toEqual(
        [],
      );
      expect(
        await db()
          .selectFrom("stock_ledger")
          .select(["reason", "actor"])
          .where("reference", "=", intentId)
          .where("reason", "=", "release")
          .execute(),
      ).toEqual([{ reason: "release", actor: "processor" }]);
      expect(await alertsTo(address)).toHaveLength(1);
    },
  );

  it(
    "a refund that puts the items back restocks once, in the refund's own record, and sends the alerts",
    SLOW,
    async () => {
      const tee = await createTee();
      await setStock(tee.medium, 1);
      const orderId = await buy(tee.id, tee.medium);
      expect((await inventory().getLevels([tee.medium])).get(tee.medium)).toMatchObject({ onHand: 0, available: 0 });
      const address = await subscribeConfirmed(tee.medium);
      const number = (await shop.services.orders.findOrderNumber(orderId)) ?? "";

      // The same form sent three times at once: one refund, one restock.
      const key = unique("restock-");
      const sent = await Promise.allSettled(
        [1, 2, 3].map(() =>
          shop.services.adminOrders.refund(OPERATOR, number, {
            amountCents: null,
            idempotencyKey: key,
            lines: [{ index: 0, quantity: 1, restock: true }],
          }),
        ),
      );
      expect(sent.some((outcome) => outcome.status === "fulfilled")).toBe(true);
      // The processor's refund webhooks arrive too; they record nothing more.
      await webhooksDelivered(db());
      expect((await inventory().getLevels([tee.medium])).get(tee.medium)).toMatchObject({ onHand: 1, available: 1 });
      expect(
        await db()
          .selectFrom("stock_ledger")
          .select(["quantity_before", "quantity_after", "actor"])
          .where("variant_id", "=", tee.medium)
          .where("reason", "=", "restock")
          .execute(),
      ).toEqual([{ quantity_before: 0, quantity_after: 1, actor: OPERATOR.email }]);
      expect(await alertsTo(address)).toHaveLength(1);

      // A refund without "Put the items back in stock" leaves the stock alone.
      const second = await buy(tee.id, tee.medium);
      await shop.services.adminOrders.refund(OPERATOR, (await shop.services.orders.findOrderNumber(second)) ?? "", {
        amountCents: null,
        idempotencyKey: unique("no-restock-"),
      });
      expect((await inventory().getLevels([tee.medium])).get(tee.medium)).toMatchObject({ onHand: 0 });
    },
  );

  it("refuses the 11th alert for one address in an hour and the 31st from one client address", SLOW, async () => {
    const tee = await createTee();
    const address = uniqueEmail();
    for (let i = 0; i < STOCK_ALERT_LIMITS.perEmail.limit; i++)
      await alerts().subscribe({ variantId: tee.medium, address, user: null, ip: `10.3.0.${i}` });
    await expect(
      alerts().subscribe({ variantId: tee.small, address, user: null, ip: "10.3.1.1" }),
    ).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    expect(await db().selectFrom("stock_alerts").select("variant_id").where("email", "=", address).execute()).toEqual([
      { variant_id: tee.medium },
    ]);

    for (let i = 0; i < STOCK_ALERT_LIMITS.perIp.limit; i++)
      await alerts().subscribe({ variantId: tee.small, address: uniqueEmail(), user: null, ip: "10.3.2.1" });
    const refused = uniqueEmail();
    await expect(
      alerts().subscribe({ variantId: tee.small, address: refused, user: null, ip: "10.3.2.1" }),
    ).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    expect(await db().selectFrom("stock_alerts").select("id").where("email", "=", refused).execute()).toEqual([]);
  });

  it(
    'sends no confirmation to an address that opted out of stock e-mails, at most one a day per mailbox (+tags removed), and each carries "Don\'t e-mail me about stock again"',
    SLOW,
    async () => {
      const tee = await createTee();
      const name = unique("stranger");
      const address = `${name}@example.com`;
      const ask = (asked: string, ip = "10.4.0.1") =>
        alerts().subscribe({ variantId: tee.medium, address: asked, user: null, ip });
      expect(await ask(address)).toBe("check-email");
      // The same mailbox under +tags and in capitals, and the other size: no second e-mail the same day.
      expect(await ask(`${name}+1@example.com`, "10.4.0.2")).toBe("check-email");
      expect(await ask(`${name.toUpperCase()}+2@EXAMPLE.COM`, "10.4.0.3")).toBe("check-email");
      await expect(alerts().subscribe({ variantId: tee.small, address, user: null, ip: "10.4.0.4" })).resolves.toBe(
        "check-email",
      );
      const messages = await mailTo(address);
      expect(messages.map((message) => message.subject)).toEqual(["Confirm your alert"]);
      expect(await mailTo(`${name}+1@example.com`)).toEqual([]);
      expect(await mailTo(`${name}+2@example.com`)).toEqual([]);

      // The e-mail says how to stop them, in its body and in its headers (one click, RFC 8058).
      const confirmation = messages[0]!;
      expect(confirmation.body).toContain("Don't e-mail me about stock again");
      const stopLink = confirmation.links.find((link) => link.includes("/unsubscribe?token="))!;
      expect(stopLink).toBeTruthy();
      const sent = await db()
        .selectFrom("email_outbox")
        .select("headers")
        .where("recipient", "=", address)
        .where("kind", "=", "stock-alert-confirmation")
        .executeTakeFirstOrThrow();
      expect(sent.headers).toEqual({
        "List-Unsubscribe": `<${stopLink}>`,
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      });

      // One click (the unsubscribe page's action, as the mail client's POST reaches it): no confirmation is sent
      // again to the mailbox, under any +tag, a day later or not, and the answer stays the same.
      const stopped = await shop.services.emailPreferences.unsubscribe(new URL(stopLink).searchParams.get("token")!);
      expect(stopped).toEqual({ email: address, purpose: "stock-alerts" });
      await db()
        .updateTable("stock_alerts")
        .set({ confirmation_sent_at: sql<Date>`now() - interval '2 days'` })
        .where("mailbox", "=", address)
        .execute();
      expect(await ask(`${name}+3@example.com`, "10.4.0.5")).toBe("check-email");
      expect(await ask(address, "10.4.0.6")).toBe("check-email");
      expect(await mailTo(address)).toHaveLength(1);
      expect(await mailTo(`${name}+3@example.com`)).toEqual([]);
    },
  );
});
