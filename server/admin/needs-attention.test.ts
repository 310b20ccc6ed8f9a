import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BUILT_IN_PROCESSOR_PATH, prefixedHttpClient } from "#server/payments/payment-provider";
import {
  addDeliveryAddress,
  confirmCard,
  createHttpBrowser,
  createTestShop,
  TEST_DELIVERY_ADDRESS,
} from "#server/testing/test-app";
import { startSmtpCatcher } from "#server/testing/smtp-catcher";
import { describeEachDatabase } from "#server/testing/test-database";
import { webhooksDelivered } from "#server/testing/processor-webhooks";

const BOOK = "12321341"; // $11.96
const OPERATOR = { id: null, email: "owner@console.test" };

/**
 * "Needs attention" and the dashboard on a shop paid through the real checkout (the SDK, the built-in processor, the
 * card over HTTP): an oversold order until it ships, a payment held for review until the console refunds it, and
 * the dashboard's figures and counts following each order and refund as they are recorded.
 */
describeEachDatabase("needs attention, and the dashboard after real payments", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;

  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    shop = await createTestShop(getDatabase(), { smtp: { url: catcher.url, from: "orders@shop.test" } });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  });
  afterAll(async () => {
    await close();
    await catcher.stop();
  });

  const processorSdk = () =>
    new Stripe(shop.processorKeys!.secretKey, {
      host: "127.0.0.1",
      port: new URL(origin).port,
      protocol: "http",
      httpClient: prefixedHttpClient(BUILT_IN_PROCESSOR_PATH),
    });

  /** A guest buys two books ($23.92); `paidAmountCents` other than that is a payment the shop holds for review. */
  async function buyTwoBooks({ paidAmountCents }: { paidAmountCents?: number } = {}): Promise<string> {
    const browser = createHttpBrowser(origin);
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    expect((await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 2 })).status).toBeLessThan(300);
    await addDeliveryAddress(browser);
    const { clientSecret } = (await (await browser.send("/payments/create?total=2392", { method: "POST" })).json()) as {
      clientSecret: string;
    };
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    // What a crash between the processor call and the row write leaves: the processor re-priced, the row not.
    if (paidAmountCents) await processorSdk().paymentIntents.update(intentId, { amount: paidAmountCents });
    expect(
      (await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242")).body.status,
    ).toBe("succeeded");
    await browser.postJson("/orders/record", { paymentIntentId: intentId });
    return intentId;
  }

  const numberOf = async (orderId: string) => (await shop.services.orders.findOrderNumber(orderId)) ?? "";
  const attentionList = async () =>
    (await shop.services.adminOrders.listOrders({ needsAttention: true })).orders.map((order) => order.number);
  const today = () => shop.services.salesDashboard.getDashboard({ period: "today" });

  it("counts each order and refund on today's dashboard as it is recorded, in the shop's test mode", async () => {
    const before = await today();
    expect(before.isTest).toBe(true);
    const orderId = await buyTwoBooks();
    const afterSale = await today();
    expect(afterSale.figures.orders - before.figures.orders).toBe(1);
    expect(afterSale.figures.grossCents - before.figures.grossCents).toBe(2392);
    expect(afterSale.figures.itemsSold - before.figures.itemsSold).toBe(2);
    expect(afterSale.counts.toShip - before.counts.toShip).toBe(1);
    await shop.services.adminOrders.refund(OPERATOR, await numberOf(orderId), {
      amountCents: 500,
      idempotencyKey: `dash-${Date.now()}`,
    });
    // The processor's refund webhooks arrive too: the refund is still counted once.
    await webhooksDelivered(getDatabase().db);
    const afterRefund = await today();
    expect(afterRefund.figures.refundCents - afterSale.figures.refundCents).toBe(500);
    expect(afterRefund.figures.netCents - afterSale.figures.netCents).toBe(-500);
    expect(afterRefund.topProducts.find((product) => product.productId === BOOK)?.netCents).toBe(
      afterRefund.figures.netCents,
    );
  });

  it("lists an oversold order under Needs attention, and counts it, until it is shipped", async () => {
    const orderId = await buyTwoBooks();
    const number = await numberOf(orderId);
    const before = (await today()).counts.needsAttention;
    // How a payment made after its hold lapsed is marked (server/inventory's sale, stock-reservations.test.ts).
    await getDatabase().db.updateTable("orders").set({ oversold: true }).where("id", "=", orderId).execute();
    expect(await attentionList()).toContain(number);
    expect(
      (await shop.services.adminOrders.listOrders({ needsAttention: true })).orders.find(
        (order) => order.number === number,
      ),
    ).toMatchObject({ isOversold: true, isTest: true });
    expect((await shop.services.adminOrders.listOrders({ needsAttention: true, livemode: true })).orders).toEqual([]);
    expect((await today()).counts.needsAttention).toBe(before + 1);
    await shop.services.adminOrders.markShipped(OPERATOR, number, { carrier: "UPS", trackingNumber: "1Z999" });
    expect(await attentionList()).not.toContain(number);
    expect((await today()).counts.needsAttention).toBe(before);
  });

  it("lists a payment held for review with its amount; its Refund gives it all back once, and it leaves the list", async () => {
    const before = (await today()).counts.needsAttention;
    const intentId = await buyTwoBooks({ paidAmountCents: 1196 });
    const held = await shop.services.checkout.listHeldPayments(false, 50);
    expect(held.payments).toContainEqual(
      expect.objectContaining({ paymentIntentId: intentId, paidAmountCents: 1196, isTest: true }),
    );
    expect((await shop.services.checkout.listHeldPayments(true, 50)).count).toBe(0);
    expect((await today()).counts.needsAttention).toBe(before + 1);

    expect(await shop.services.heldPayments.refund(OPERATOR, intentId)).toEqual({
      amountCents: 1196,
      isPending: false,
    });
    expect(
      (await processorSdk().refunds.list({ payment_intent: intentId })).data.map((refund) => refund.amount),
    ).toEqual([1196]);
    expect(
      (await shop.services.checkout.listHeldPayments(null, 50)).payments.map((payment) => payment.paymentIntentId),
    ).not.toContain(intentId);
    expect((await today()).counts.needsAttention).toBe(before);
    const audit = await getDatabase()
      .db.selectFrom("audit_log")
      .select(["action", "operator_email"])
      .where("subject", "=", intentId)
      .execute();
    expect(audit).toEqual([{ action: "payment.refund", operator_email: OPERATOR.email }]);
    // The shopper is told at the receipt address the payment was made with.
    const refundNotices = async () => {
      await shop.emailSender.deliverDue();
      return catcher
        .to(TEST_DELIVERY_ADDRESS.email)
        .filter((message) => message.subject === "Your Storefront payment of $11.96 has been refunded");
    };
    const [notice] = await refundNotices();
    expect(notice?.body).toContain("it did not match your basket, so no order was placed");
    expect(notice?.links.map((link) => new URL(link).pathname)).toContain("/orders");

    // Again (a second tab, a second operator): refused with a sentence, and nothing more is refunded.
    await expect(shop.services.heldPayments.refund(OPERATOR, intentId)).rejects.toMatchObject({
      message: "This payment is no longer held for review.",
    });
    expect((await processorSdk().refunds.list({ payment_intent: intentId })).data).toHaveLength(1);
    expect(await refundNotices()).toHaveLength(1);
    // Never an order, and no sales: the shopper's page still says no order was placed.
    expect(await shop.services.checkout.recordOrder(intentId, null)).toMatchObject({ kind: "needs-review" });
  });
});
