import { afterAll, beforeAll, expect, it } from "vitest";
import { credentialsSchema } from "#shared/account";
import { createLogger } from "#server/logger";
import { createSmtpTransport } from "./email-transport";
import { createEmailSender } from "./email-sender";
import { describeEachDatabase } from "#server/testing/test-database";
import { startTwoInstances } from "#server/testing/two-instances";
import { startSmtpCatcher } from "#server/testing/smtp-catcher";
import {
  addDeliveryAddress,
  confirmCard,
  createHttpBrowser,
  createTestShop,
  TEST_DELIVERY_ADDRESS,
} from "#server/testing/test-app";
import { webhooksDelivered } from "#server/testing/processor-webhooks";

const BOOK = "12321341"; // $11.96
const FAST_SENDER = { pollIntervalMs: 50, retryBaseMs: 200, leaseMs: 2_000 };
let counter = 0;
const uniqueEmail = () => `buyer${Date.now()}${++counter}@example.com`;

describeEachDatabase("e-mail through a real SMTP server", (getDatabase) => {
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  const logLines: string[] = [];

  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    const logger = createLogger("info", { write: (line: string) => void logLines.push(line) });
    shop = await createTestShop(getDatabase(), {
      logger,
      smtp: { url: catcher.url, from: "Storefront <orders@shop.test>" },
      emailSender: FAST_SENDER,
    });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  });
  afterAll(async () => {
    await close();
    await catcher.stop();
  });

  /** A registered shopper's browser, signed in over HTTP. */
  const signedInShopper = async () => {
    const email = uniqueEmail();
    const { token } = await shop.services.signInFlow.signIn(
      credentialsSchema.parse({ intent: "register", email, password: "correct horse battery" }),
      {
        ip: "10.9.0.1",
        current: null,
      },
    );
    return { email, browser: createHttpBrowser(origin, `sf_session=${token}`) };
  };

  /** Pays for the basket through the real checkout: the Stripe SDK, the built-in processor, the card confirmed over HTTP. */
  const pay = async (browser: ReturnType<typeof createHttpBrowser>, totalCents: number) => {
    await addDeliveryAddress(browser, { isSignedIn: true });
    const created = await browser.send(`/payments/create?total=${totalCents}`, { method: "POST" });
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const confirmed = await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
    const paymentIntentId = confirmed.body.id ?? "";
    expect((await browser.postJson("/orders/record", { paymentIntentId })).status).toBeLessThan(300);
    return paymentIntentId;
  };

  it("sends a welcome e-mail with a confirmation link on registration, in plain text and HTML, from MAIL_FROM", async () => {
    const { email } = await signedInShopper();
    await expect.poll(() => catcher.to(email).length).toBe(1);
    const [welcome] = catcher.to(email);
    expect(welcome?.subject).toBe("Welcome to Storefront: please confirm your e-mail");
    expect(welcome?.body).toMatch(/^From: Storefront <orders@shop\.test>$/m);
    expect(welcome?.body).toContain("Content-Type: text/plain");
    expect(welcome?.body).toContain("Content-Type: text/html");
    expect(welcome?.links.some((link) => /^http:\/\/localhost:\d+\/verify-email\?token=[\w-]{43}$/.test(link))).toBe(
      true,
    );
    // Delivered, the outbox keeps no copy of the link.
    const { db } = getDatabase();
    await expect
      .poll(
        async () =>
          (
            await db
              .selectFrom("email_outbox")
              .select("text_body")
              .where("recipient", "=", email)
              .executeTakeFirstOrThrow()
          ).text_body,
      )
      .not.toContain("token=");
  });

  it("confirms a paid order once, with its items, total and a link to the order, however often it is recorded", async () => {
    const { email, browser } = await signedInShopper();
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    expect((await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 2 })).status).toBeLessThan(300);
    const orderId = await pay(browser, 2 * 1196);
    // The page asks again, and the processor's webhook arrives too: still one order, one e-mail.
    await browser.postJson("/orders/record", { paymentIntentId: orderId });
    await expect
      .poll(() => catcher.to(email).filter((message) => message.subject.startsWith("Your Storefront order")).length)
      .toBe(1);
    // Once the webhook has been answered, a second confirmation would be in the outbox: a pass sends what is there.
    await webhooksDelivered(getDatabase().db);
    await shop.emailSender.deliverDue();
    const confirmations = catcher.to(email).filter((message) => message.subject.startsWith("Your Storefront order"));
    expect(confirmations).toHaveLength(1);
    const { db } = getDatabase();
    const { number } = await db
      .selectFrom("orders")
      .select("number")
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
    expect(confirmations[0]?.subject).toBe(`Your Storefront order ${number}: $23.92`);
    expect(confirmations[0]?.body).toContain("2 × ");
    expect(confirmations[0]?.body).toContain("Delivering to");
    expect(confirmations[0]?.links).toContain(`http://localhost:${new URL(origin).port}/orders/${number}`);

    // The operator console's notices for the same order, written in its own transactions, once each.
    await db.transaction().execute(async (trx) => {
      expect(
        await shop.services.email.enqueueOrderShipped(trx, {
          orderId,
          carrier: "UPS",
          trackingNumber: "1Z999AA10123456784",
        }),
      ).toBe(true);
      expect(
        await shop.services.email.enqueueOrderShipped(trx, {
          orderId,
          carrier: "UPS",
          trackingNumber: "1Z999AA10123456784",
        }),
      ).toBe(false);
      expect(
        await shop.services.email.enqueueOrderRefunded(trx, { orderId, refundId: "re_1", amountCents: 1196 }),
      ).toBe(true);
    });
    await expect
      .poll(() => catcher.to(email).map((message) => message.subject))
      .toEqual(
        expect.arrayContaining([
          `Your Storefront order ${number} has shipped`,
          `Your Storefront refund for order ${number}: $11.96`,
        ]),
      );
    const shipped = catcher
      .to(email)
      .find((message) => message.subject === `Your Storefront order ${number} has shipped`);
    expect(shipped?.body).toContain("Carrier: UPS");
    expect(shipped?.body).toContain("Tracking number: 1Z999AA10123456784");
  });

  it("sends a guest's confirmation to the receipt e-mail given with the delivery address", async () => {
    const guest = createHttpBrowser(origin);
    const receipt = uniqueEmail();
    expect((await guest.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    expect((await guest.postJson("/checkout/address", { ...TEST_DELIVERY_ADDRESS, email: receipt })).status).toBe(200);
    const created = await guest.send("/payments/create?total=1196", { method: "POST" });
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const confirmed = await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
    expect((await guest.postJson("/orders/record", { paymentIntentId: confirmed.body.id })).status).toBeLessThan(300);
    await expect.poll(() => catcher.to(receipt).length).toBe(1);
    expect(catcher.to(receipt)[0]?.subject).toMatch(/^Your Storefront order SF-\d{4}-[2-9A-Z]{4}: \$11\.96$/);
    expect(catcher.to(receipt)[0]?.body).toContain("Ada Lovelace");
  });

  it("keeps an order's confirmation through an SMTP outage and delivers exactly one when the server is back", async () => {
    const { email, browser } = await signedInShopper();
    await expect.poll(() => catcher.to(email).length).toBe(1); // the welcome
    await catcher.stop();
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    const orderId = await pay(browser, 1196);
    const { db } = getDatabase();
    const row = () =>
      db
        .selectFrom("email_outbox")
        .select(["status", "attempts", "last_error"])
        .where("dedupe_key", "=", `order-confirmation:${orderId}`)
        .executeTakeFirstOrThrow();
    // Refused connections: the e-mail waits, with the reason, and is tried again later.
    await expect.poll(async () => (await row()).attempts, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(await row()).toMatchObject({
      status: "pending",
      last_error: expect.stringMatching(/ECONNREFUSED|connect/i),
    });
    await catcher.start();
    await expect.poll(async () => (await row()).status, { timeout: 20_000 }).toBe("sent");
    // Another pass finds nothing more to send.
    await shop.emailSender.deliverDue();
    expect(catcher.to(email).filter((message) => message.subject.startsWith("Your Storefront order"))).toHaveLength(1);
  });

  it("records a permanent refusal once and does not retry it", async () => {
    const { db } = getDatabase();
    catcher.options.refuseRecipients = true;
    try {
      const email = uniqueEmail();
      await shop.services.email.enqueuePasswordChanged(db, email);
      const row = () =>
        db
          .selectFrom("email_outbox")
          .select(["status", "attempts", "last_error"])
          .where("recipient", "=", email)
          .executeTakeFirstOrThrow();
      await expect.poll(async () => (await row()).status).toBe("failed");
      // Another pass leaves it alone.
      await shop.emailSender.deliverDue();
      expect(await row()).toMatchObject({ status: "failed", attempts: 1, last_error: expect.stringMatching(/550/) });
    } finally {
      catcher.options.refuseRecipients = false;
    }
  });

  it("sends again with the same Message-ID when a sender died mid-send, so the repeat is recognisable", async () => {
    const { db } = getDatabase();
    await shop.emailSender.stop();
    try {
      const email = uniqueEmail();
      await shop.services.email.enqueuePasswordChanged(db, email);
      // A sender that hands the message to the server and dies before writing down that it did.
      const smtp = createSmtpTransport(catcher.url, "orders@shop.test");
      const dying = createEmailSender({
        db,
        logger: createLogger("silent"),
        leaseMs: 500,
        transport: {
          kind: "smtp",
          close: () => smtp.close(),
          send: async (message) => (await smtp.send(message), new Promise<never>(() => {})),
        },
      });
      void dying.deliverDue();
      await expect.poll(() => catcher.to(email).length).toBe(1);
      const survivor = createEmailSender({
        db,
        logger: createLogger("silent"),
        transport: createSmtpTransport(catcher.url, "orders@shop.test"),
      });
      // Once the dying sender's lease has run out, the survivor's pass sends it again.
      await expect
        .poll(async () => {
          await survivor.deliverDue();
          return catcher.to(email).length;
        })
        .toBe(2);
      const copies = catcher.to(email);
      expect(copies).toHaveLength(2);
      expect(copies[0]?.messageId).toMatch(/^<[0-9a-f-]{36}@localhost>$/);
      expect(copies[1]?.messageId).toBe(copies[0]?.messageId);
      const row = await db
        .selectFrom("email_outbox")
        .select("status")
        .where("recipient", "=", email)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe("sent");
    } finally {
      shop.emailSender.start();
    }
  });

  it("logs a sent e-mail by its Message-ID and kind only: no address, no link, no token", async () => {
    const { email } = await signedInShopper();
    await expect.poll(() => catcher.to(email).length).toBe(1);
    const token =
      new URL(catcher.to(email)[0]?.links.find((link) => link.includes("token=")) ?? "http://x/").searchParams.get(
        "token",
      ) ?? "missing";
    await expect.poll(() => logLines.some((line) => line.includes('"msg":"email: sent"'))).toBe(true);
    expect(logLines.filter((line) => line.includes(token) || line.includes(email))).toEqual([]);
  });

  it("lists the outbox newest first by state, a page at a time, and reports the backlog", async () => {
    const { email: outbox } = shop.services;
    const first = await outbox.listOutbox({ limit: 2 });
    expect(first.entries).toHaveLength(2);
    expect(first.next).not.toBeNull();
    const second = await outbox.listOutbox({ limit: 2, before: first.next });
    expect((second.entries[0]?.createdAt ?? "") <= (first.entries[1]?.createdAt ?? "")).toBe(true);
    expect(new Set([...first.entries, ...second.entries].map((entry) => entry.id)).size).toBe(4);
    const failed = await outbox.listOutbox({ status: "failed" });
    expect(failed.entries.length).toBeGreaterThanOrEqual(1);
    expect(failed.entries.every((entry) => entry.status === "failed")).toBe(true);
    const backlog = await outbox.backlog();
    expect(backlog.pending).toBeGreaterThanOrEqual(0);
    expect(backlog.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(0);
  });
});

describeEachDatabase("e-mail without SMTP", (getDatabase) => {
  it("keeps every e-mail and logs it as one line with its links, so a local trial can follow them", async () => {
    const lines: { msg: string; to?: string; subject?: string; links?: string[] }[] = [];
    const logger = createLogger("info", {
      write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]),
    });
    const shop = await createTestShop(getDatabase(), { logger, emailSender: FAST_SENDER });
    const running = await shop.listen(0);
    try {
      const email = uniqueEmail();
      await shop.services.signInFlow.signIn(
        credentialsSchema.parse({ intent: "register", email, password: "correct horse battery" }),
        { ip: "10.9.0.2", current: null },
      );
      await expect.poll(() => lines.filter((line) => line.to === email)).toHaveLength(1);
      const line = lines.find((candidate) => candidate.to === email);
      expect(line).toMatchObject({
        msg: "email: not sent (no SMTP_URL), logged",
        subject: "Welcome to Storefront: please confirm your e-mail",
      });
      expect(line?.links?.some((link) => link.startsWith(`http://localhost:${running.port}/verify-email?token=`))).toBe(
        true,
      );
      // Only links to follow: no bare shop address, none with the sentence's full stop.
      expect(line?.links?.filter((link) => /[.,]$/.test(link) || new URL(link).pathname === "/")).toEqual([]);
      const row = () =>
        getDatabase()
          .db.selectFrom("email_outbox")
          .select(["status", "text_body"])
          .where("recipient", "=", email)
          .executeTakeFirstOrThrow();
      // The line is written as the e-mail is handed over; the row's state follows.
      await expect.poll(async () => (await row()).status).toBe("logged");
      expect((await row()).text_body).toContain("/verify-email?token=");
    } finally {
      await running.close();
    }
  });
});

it.runIf(process.env.TEST_DATABASE_URL)(
  "two instances on PostgreSQL sharing one outbox send each e-mail once",
  async () => {
    const catcher = await startSmtpCatcher();
    const instances = await startTwoInstances("mail", {
      smtp: { url: catcher.url, from: "orders@shop.test" },
      emailSender: { pollIntervalMs: 10 },
    });
    try {
      const recipients = Array.from({ length: 40 }, () => uniqueEmail());
      // Written through both instances' outboxes, while both senders are claiming.
      await Promise.all(
        recipients.map((email, index) =>
          instances.shops[index % 2]!.services.email.enqueuePasswordChanged(instances.db, email),
        ),
      );
      await expect.poll(() => catcher.received.length, { timeout: 20_000 }).toBe(recipients.length);
      // Both senders stopped, with any send in flight finished: nothing more can arrive.
      await Promise.all(instances.shops.map((each) => each.emailSender.stop()));
      expect(catcher.received).toHaveLength(recipients.length);
      for (const email of recipients) expect(catcher.to(email)).toHaveLength(1);
    } finally {
      await instances.close();
      await catcher.stop();
    }
  },
);
