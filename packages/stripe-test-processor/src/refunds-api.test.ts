import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "../testing/test-database.ts";
import { startProcessorTestServer, stripeFailure, type ProcessorTestServer } from "../testing/processor-test-server.ts";

describeEachDatabase("the test-mode processor's Refunds API, through the Stripe SDK", (getDatabase) => {
  let processor: ProcessorTestServer;
  beforeAll(async () => {
    processor = await startProcessorTestServer(getDatabase().db);
  });
  afterAll(async () => {
    await processor?.close();
  });

  const failure = stripeFailure;
  const paidIntent = async (amount = 5000) => {
    const intent = await processor.stripe.paymentIntents.create({
      amount,
      currency: "usd",
      allowed_payment_method_types: ["card"],
    });
    return processor.stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
  };
  const refundedOf = async (intent: Stripe.PaymentIntent) =>
    (await processor.stripe.charges.retrieve(String(intent.latest_charge))).amount_refunded;
  const eventsAbout = (id: string) =>
    processor.received.filter(({ event }) => {
      const object = event.data.object as { id?: string; payment_intent?: string };
      return object.id === id || object.payment_intent === id;
    });

  it("refunds in full by default: the refund, the charge's amount_refunded, and signed events", async () => {
    const intent = await paidIntent();
    const refund = await processor.stripe.refunds.create({
      payment_intent: intent.id,
      reason: "requested_by_customer",
      metadata: { order: "o_1" },
    });
    expect(refund).toEqual({
      id: expect.stringMatching(/^re_[A-Za-z0-9]{24}$/),
      object: "refund",
      amount: 5000,
      charge: intent.latest_charge,
      created: expect.any(Number),
      currency: "usd",
      metadata: { order: "o_1" },
      payment_intent: intent.id,
      reason: "requested_by_customer",
      status: "succeeded",
    });
    expect(await processor.stripe.refunds.retrieve(refund.id)).toEqual(refund);
    const charge = await processor.stripe.charges.retrieve(String(intent.latest_charge));
    expect(charge).toMatchObject({ amount: 5000, amount_refunded: 5000, refunded: true, payment_intent: intent.id });

    const events = await processor.waitFor(() =>
      eventsAbout(intent.id).length >= 4 ? eventsAbout(intent.id) : undefined,
    );
    // Stripe does not promise an order between events, and neither does the processor (a round sends them at once).
    expect(events.map(({ event }) => event.type).sort()).toEqual([
      "charge.refunded",
      "payment_intent.succeeded",
      "refund.created",
      "refund.updated",
    ]);
    const chargeEvent = events.find(({ event }) => event.type === "charge.refunded");
    expect(chargeEvent?.event.data.object).toMatchObject({ object: "charge", amount_refunded: 5000, refunded: true });
    expect(processor.rejectedSignatures).toEqual([]);
  });

  it("refunds part, then the rest, and lists them by payment intent, newest first", async () => {
    const intent = await paidIntent();
    const first = await processor.stripe.refunds.create({ payment_intent: intent.id, amount: 1500 });
    expect(await refundedOf(intent)).toBe(1500);
    const second = await processor.stripe.refunds.create({ charge: String(intent.latest_charge), amount: 3500 });
    expect((await processor.stripe.charges.retrieve(String(intent.latest_charge))).refunded).toBe(true);
    const list = await processor.stripe.refunds.list({ payment_intent: intent.id });
    expect(list.data.map((refund) => [refund.id, refund.amount])).toEqual([
      [second.id, 3500],
      [first.id, 1500],
    ]);
    expect(list.has_more).toBe(false);
    const page = await processor.stripe.refunds.list({ payment_intent: intent.id, limit: 1 });
    expect(page).toMatchObject({ has_more: true, data: [{ id: second.id }] });
  });

  it("refuses more than is left, a second full refund, and an unpaid intent", async () => {
    const intent = await paidIntent();
    await processor.stripe.refunds.create({ payment_intent: intent.id, amount: 4000 });
    const over = await failure(processor.stripe.refunds.create({ payment_intent: intent.id, amount: 1001 }));
    expect(over).toMatchObject({
      statusCode: 400,
      param: "amount",
      message: "Refund amount ($10.01) is greater than unrefunded amount on charge ($10.00)",
    });
    await processor.stripe.refunds.create({ payment_intent: intent.id });
    expect(await failure(processor.stripe.refunds.create({ payment_intent: intent.id }))).toMatchObject({
      code: "charge_already_refunded",
    });
    expect(await refundedOf(intent)).toBe(5000);

    const unpaid = await processor.stripe.paymentIntents.create({ amount: 5000, currency: "usd" });
    expect(await failure(processor.stripe.refunds.create({ payment_intent: unpaid.id }))).toMatchObject({
      code: "charge_not_refundable",
    });
    expect(await failure(processor.stripe.refunds.create({ payment_intent: "pi_nonesuch" }))).toMatchObject({
      statusCode: 404,
      code: "resource_missing",
    });
    expect(await failure(processor.stripe.refunds.retrieve("re_nonesuch"))).toMatchObject({
      statusCode: 404,
      code: "resource_missing",
    });
    expect(await failure(processor.stripe.refunds.create({}))).toMatchObject({ statusCode: 400 });
  });

  it("refunds once for a repeated idempotency key, and refuses the key with other parameters", async () => {
    const intent = await paidIntent();
    const idempotencyKey = crypto.randomUUID();
    const first = await processor.stripe.refunds.create(
      { payment_intent: intent.id, amount: 1000 },
      { idempotencyKey },
    );
    const again = await processor.stripe.refunds.create(
      { payment_intent: intent.id, amount: 1000 },
      { idempotencyKey },
    );
    expect(again.id).toBe(first.id);
    expect(await refundedOf(intent)).toBe(1000);
    expect(
      await failure(processor.stripe.refunds.create({ payment_intent: intent.id, amount: 2000 }, { idempotencyKey })),
    ).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it("never refunds more than was paid, however many refunds run at once", async () => {
    const intent = await paidIntent(5000);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => processor.stripe.refunds.create({ payment_intent: intent.id, amount: 1000 })),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(5);
    expect(await refundedOf(intent)).toBe(5000);
    const rows = await getDatabase()
      .db.selectFrom("processor_refunds")
      .select("amount")
      .where("payment_intent_id", "=", intent.id)
      .execute();
    expect(rows.reduce((sum, row) => sum + row.amount, 0)).toBe(5000);
  });

  it("keeps refunds to the secret key", async () => {
    const intent = await paidIntent();
    const browser = processor.sdk(processor.keys.publishableKey);
    expect(await failure(browser.refunds.create({ payment_intent: intent.id }))).toMatchObject({ statusCode: 401 });
  });
});
