import { sql } from "kysely";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { describeEachDatabase } from "../testing/test-database.ts";
import { TEST_CARD_OUTCOMES } from "./card-outcomes.ts";
import { getProcessorKeys } from "./processor-keys.ts";
import { cardFields, startProcessorTestServer, type ProcessorTestServer } from "../testing/processor-test-server.ts";
import { createProcessorApp } from "./processor-routes.ts";
import { createWebhookDelivery, RETRY_SCHEDULES, retryDelaySeconds } from "./webhook-delivery.ts";

describe("the webhook retry schedule", () => {
  it("is Stripe's test-mode one by default: three retries over a few hours, then none", () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelaySeconds(attempts))).toEqual([1800, 3600, 7200, null]);
  });

  it("is Stripe's live one on request: backoff up to every 12 hours, given up after three days", () => {
    const delays = Array.from({ length: 12 }, (_, index) => retryDelaySeconds(index + 1, "live"));
    expect(delays.slice(0, 8)).toEqual([300, 1800, 3600, 7200, 18000, 36000, 36000, 43200]);
    expect(delays.slice(8)).toEqual([43200, 43200, 43200, 43200]);
    expect(RETRY_SCHEDULES.live.giveUpAfterSeconds).toBe(3 * 24 * 3600);
  });

  it("is compressed by the time scale, for tests", () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelaySeconds(attempts, "test", 1 / 1800))).toEqual([1, 2, 4, null]);
  });
});

describeEachDatabase("the test-mode processor's webhooks, keys and card data", (getDatabase) => {
  let processor: ProcessorTestServer;
  beforeAll(async () => {
    processor = await startProcessorTestServer(getDatabase().db);
  });
  afterAll(async () => {
    await processor?.close();
  });

  const db = () => getDatabase().db;
  const createIntent = () =>
    processor.stripe.paymentIntents.create({ amount: 4200, currency: "usd", metadata: { basket: "b_hooks" } });
  const confirm = (intent: Stripe.PaymentIntent, number: string, headers: Record<string, string> = {}) =>
    processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(intent.client_secret ?? "", number),
      headers,
    );
  const authenticate = (intent: Stripe.PaymentIntent, outcome: "complete" | "fail") =>
    processor.browserPost(`/v1/payment_intents/${intent.id}/authenticate`, {
      client_secret: intent.client_secret ?? "",
      outcome,
    });
  const deliveriesOf = (intentId: string) =>
    processor.received.filter(({ event }) => (event.data.object as { id?: string }).id === intentId);
  const eventsOf = (intentId: string) =>
    db()
      .selectFrom("processor_events")
      .select([
        "id",
        "type",
        "attempts",
        "delivered_at",
        "gave_up_at",
        "last_error",
        "claim_token",
        sql<number>`extract(epoch from (next_attempt_at - now()))::float8`.as("due_in_seconds"),
      ])
      .where("payload", "like", `%"id":"${intentId}"%`)
      .orderBy("created_at")
      .execute();
  /** Waits until the intent's events are recorded as delivered, and returns them. */
  const delivered = (intentId: string, count = 1) =>
    processor.waitFor(async () => {
      const events = await eventsOf(intentId);
      return events.length === count && events.every((event) => event.delivered_at) ? events : undefined;
    });

  it("sends payment_intent.succeeded at once, signed so that the SDK's constructEvent accepts it", async () => {
    const intent = await createIntent();
    const idempotencyKey = crypto.randomUUID();
    expect((await confirm(intent, "4242424242424242", { "idempotency-key": idempotencyKey })).status).toBe(200);
    const [delivery] = await processor.waitFor(() =>
      deliveriesOf(intent.id).length > 0 ? deliveriesOf(intent.id) : undefined,
    );
    expect(delivery?.event).toEqual({
      id: expect.stringMatching(/^evt_[A-Za-z0-9]{24}$/),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: expect.any(Number),
      data: {
        object: expect.objectContaining({
          id: intent.id,
          object: "payment_intent",
          status: "succeeded",
          amount_received: 4200,
          metadata: { basket: "b_hooks" },
        }),
      },
      livemode: false,
      pending_webhooks: 1,
      request: { id: expect.stringMatching(/^req_/), idempotency_key: idempotencyKey },
      type: "payment_intent.succeeded",
    });
    expect(processor.rejectedSignatures).toEqual([]);

    const [stored] = await delivered(intent.id);
    expect(stored).toMatchObject({
      id: delivery?.event.id,
      type: "payment_intent.succeeded",
      attempts: 1,
      last_error: null,
      claim_token: null,
      gave_up_at: null,
    });
    expect(await processor.delivery.deliverDue()).toBe(0);
    expect(deliveriesOf(intent.id)).toHaveLength(1);
  });

  it("sends payment_intent.payment_failed for a decline, with the reason in last_payment_error", async () => {
    const intent = await createIntent();
    expect((await confirm(intent, "4000000000009995")).status).toBe(402);
    const [delivery] = await processor.waitFor(() =>
      deliveriesOf(intent.id).length > 0 ? deliveriesOf(intent.id) : undefined,
    );
    expect(delivery?.event).toMatchObject({
      type: "payment_intent.payment_failed",
      data: {
        object: {
          id: intent.id,
          status: "requires_payment_method",
          last_payment_error: { code: "card_declined", decline_code: "insufficient_funds" },
        },
      },
    });
  });

  it("reports 3-D Secure: nothing while it is pending, payment_failed when it fails, succeeded when a later card pays", async () => {
    const intent = await createIntent();
    expect((await confirm(intent, "4000002760003184")).status).toBe(200);
    expect(await eventsOf(intent.id)).toEqual([]);
    expect((await authenticate(intent, "fail")).status).toBe(402);
    expect((await confirm(intent, "4000002760003184")).status).toBe(200);
    expect((await authenticate(intent, "complete")).status).toBe(200);
    await delivered(intent.id, 2);
    expect(deliveriesOf(intent.id).map(({ event }) => event.type)).toEqual([
      "payment_intent.payment_failed",
      "payment_intent.succeeded",
    ]);
    expect(deliveriesOf(intent.id)[0]?.event.data.object).toMatchObject({
      last_payment_error: { code: "payment_intent_authentication_failure" },
    });
  });

  it("sends no event for a card refused before any charge (wrong number, expiry or CVC)", async () => {
    const intent = await createIntent();
    expect((await confirm(intent, "4242424242424241")).status).toBe(402);
    expect(await eventsOf(intent.id)).toEqual([]);
  });

  it("retries with exponential backoff while the receiver answers 500, then stops at the first 2xx", async () => {
    processor.receiverAnswers.push(500, 500);
    const intent = await createIntent();
    await confirm(intent, "4242424242424242");

    // The immediate attempt fails: the next is due in a second.
    await processor.waitFor(() => deliveriesOf(intent.id)[0]);
    const afterFirst = await processor.waitFor(async () =>
      (await eventsOf(intent.id)).find((event) => event.attempts === 1 && event.claim_token === null),
    );
    expect(afterFirst).toMatchObject({ last_error: "HTTP 500", delivered_at: null });
    expect(afterFirst.due_in_seconds).toBeGreaterThan(0.5);
    expect(afterFirst.due_in_seconds).toBeLessThanOrEqual(1);
    expect(await processor.delivery.deliverDue()).toBe(0);

    // The second attempt, a second later, fails too: the next is due in two.
    await processor.waitFor(async () => ((await processor.delivery.deliverDue()) > 0 ? true : undefined));
    const afterSecond = (await eventsOf(intent.id))[0];
    expect(afterSecond).toMatchObject({ attempts: 2, last_error: "HTTP 500", delivered_at: null });
    expect(afterSecond?.due_in_seconds).toBeGreaterThan(1.5);
    expect(afterSecond?.due_in_seconds).toBeLessThanOrEqual(2);

    // The third is answered 200: delivered, and never sent again.
    await processor.waitFor(async () => ((await processor.delivery.deliverDue()) > 0 ? true : undefined));
    const [final] = await delivered(intent.id);
    expect(final).toMatchObject({ attempts: 3, last_error: null });
    const attempts = deliveriesOf(intent.id);
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200]);
    expect(new Set(attempts.map((attempt) => attempt.event.id)).size).toBe(1);
    const [first, second, third] = attempts.map((attempt) => attempt.receivedAt) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(900);
    expect(third - second).toBeGreaterThanOrEqual(1900);
    expect(await processor.delivery.deliverDue()).toBe(0);
  }, 15_000);

  it("gives up on an event past its schedule's last retry", async () => {
    processor.receiverAnswers.push(500);
    const intent = await createIntent();
    const delivery = createWebhookDelivery({
      db: db(),
      logger: pino({ level: "silent" }),
      webhookUrl: () => undefined,
    });
    expect(await delivery.deliverDue()).toBe(0); // no URL yet: nothing is claimed
    await confirm(intent, "4242424242424242");
    await processor.waitFor(() => deliveriesOf(intent.id)[0]);
    const [event] = await processor.waitFor(async () => {
      const events = await eventsOf(intent.id);
      return events[0]?.claim_token === null ? events : undefined;
    });
    await db()
      .updateTable("processor_events")
      .set({ created_at: sql`now() - interval '4 hours'`, next_attempt_at: sql`now()` })
      .where("id", "=", event?.id ?? "")
      .execute();
    processor.receiverAnswers.push(500);
    expect(await processor.delivery.deliverDue()).toBe(1);
    expect((await eventsOf(intent.id))[0]).toMatchObject({
      attempts: 2,
      delivered_at: null,
      gave_up_at: expect.any(Date),
      last_error: "HTTP 500",
    });
    expect(await processor.delivery.deliverDue()).toBe(0);
  });

  it("lets several instances share the work: each due event is sent once, and a dead instance's claim is taken over", async () => {
    const intents = await Promise.all(Array.from({ length: 6 }, () => createIntent()));
    processor.receiverAnswers.push(...intents.map(() => 500));
    for (const intent of intents) await confirm(intent, "4242424242424242");
    // Every immediate attempt failed; all six are due again after a backoff.
    await processor.waitFor(async () => {
      const events = await Promise.all(intents.map((intent) => eventsOf(intent.id)));
      return events.every(([event]) => event?.attempts === 1 && event.claim_token === null) ? true : undefined;
    });

    // Their retry time comes now rather than in a second: no waiting on the clock.
    await db()
      .updateTable("processor_events")
      .set({ next_attempt_at: sql`now() - interval '1 second'` })
      .where("delivered_at", "is", null)
      .execute();

    // An instance that claimed one and died: its lease has not run out, so nobody else may send it yet.
    const abandoned = (await eventsOf(intents[0]?.id ?? ""))[0];
    await db()
      .updateTable("processor_events")
      .set({ claim_token: "dead-instance", claimed_until: sql`now() + interval '1 hour'` })
      .where("id", "=", abandoned?.id ?? "")
      .execute();

    const logger = pino({ level: "silent" });
    const webhookUrl = () => `${processor.origin}/webhooks/stripe`;
    const instances = [
      processor.delivery,
      createWebhookDelivery({ db: db(), logger, webhookUrl }),
      createWebhookDelivery({ db: db(), logger, webhookUrl, batchSize: 2 }),
    ];
    const attempted = await Promise.all(instances.map((instance) => instance.deliverDue()));
    expect(attempted.reduce((sum, count) => sum + count, 0)).toBe(5);
    for (const intent of intents.slice(1)) {
      expect(deliveriesOf(intent.id).map((attempt) => attempt.status)).toEqual([500, 200]);
    }
    expect(deliveriesOf(intents[0]?.id ?? "")).toHaveLength(1);

    // Once the lease has run out, the event is due again and delivered.
    await db()
      .updateTable("processor_events")
      .set({ claimed_until: sql`now() - interval '1 second'` })
      .where("id", "=", abandoned?.id ?? "")
      .execute();
    expect(await instances[1]?.deliverDue()).toBe(1);
    expect(deliveriesOf(intents[0]?.id ?? "").map((attempt) => attempt.status)).toEqual([500, 200]);
  }, 15_000);

  it("records a confirm's event already claimed by the instance that sends it; unsent, it is due once that claim ends", async () => {
    const logger = pino({ level: "silent" });
    const webhookUrl = () => `${processor.origin}/webhooks/stripe`;
    const delivery = createWebhookDelivery({ db: db(), logger, webhookUrl });
    // An instance that records the event and dies before sending it.
    const dying = createProcessorApp({ db: db(), logger, delivery: { ...delivery, deliverClaimed: () => {} } });
    const intent = await createIntent();
    const confirmed = await dying.request(`/v1/payment_intents/${intent.id}/confirm`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${processor.keys.publishableKey}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams(cardFields(intent.client_secret ?? "", "4242424242424242")),
    });
    expect(confirmed.status).toBe(200);
    const [claimed] = await eventsOf(intent.id);
    expect(claimed).toMatchObject({ type: "payment_intent.succeeded", attempts: 1, delivered_at: null });
    expect(claimed?.claim_token).not.toBeNull();

    // Nobody else sends it while the claim lasts...
    const other = createWebhookDelivery({ db: db(), logger, webhookUrl });
    expect(await other.deliverDue()).toBe(0);
    expect(deliveriesOf(intent.id)).toHaveLength(0);
    // ...and once it has run out, it is due like any other, and sent once.
    await db()
      .updateTable("processor_events")
      .set({ claimed_until: sql`now() - interval '1 second'` })
      .where("id", "=", claimed?.id ?? "")
      .execute();
    expect(await other.deliverDue()).toBe(1);
    expect(deliveriesOf(intent.id).map((attempt) => attempt.status)).toEqual([200]);
    expect((await eventsOf(intent.id))[0]).toMatchObject({ attempts: 2, claim_token: null });
  });

  it("sends a confirm's event from the instance that recorded it, with no claim of its own", async () => {
    const intent = await createIntent();
    expect((await confirm(intent, "4242424242424242")).status).toBe(200);
    const [event] = await delivered(intent.id);
    expect(event).toMatchObject({ type: "payment_intent.succeeded", attempts: 1, claim_token: null });
    expect(deliveriesOf(intent.id).map((attempt) => attempt.status)).toEqual([200]);
  });

  it("creates its keys once, in the database, for every instance", async () => {
    const keys = await getProcessorKeys(db());
    expect(keys).toEqual({
      secretKey: expect.stringMatching(/^sk_test_[A-Za-z0-9]{48}$/),
      publishableKey: expect.stringMatching(/^pk_test_[A-Za-z0-9]{48}$/),
      webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/),
    });
    expect(await db().selectFrom("processor_keys").selectAll().execute()).toEqual([
      expect.objectContaining({
        id: 1,
        secret_key: keys.secretKey,
        publishable_key: keys.publishableKey,
        webhook_secret: keys.webhookSecret,
      }),
    ]);
    expect(keys).toEqual(processor.keys);
  });

  it("never stores or logs a card number or CVC", async () => {
    const numbers = [...TEST_CARD_OUTCOMES.keys(), "4111111111111111", "4242424242424241", "6011111111111117"];
    for (const number of numbers) {
      const intent = await createIntent();
      await confirm(intent, number, { "idempotency-key": crypto.randomUUID() });
      if (number.startsWith("40000") && number.endsWith("84")) await authenticate(intent, "complete");
      if (number.endsWith("3178")) await authenticate(intent, "fail");
    }
    // An unknown card field sent alongside: refused without repeating the value.
    const intent = await createIntent();
    const refused = await processor.browserPost(`/v1/payment_intents/${intent.id}/confirm`, {
      ...cardFields(intent.client_secret ?? "", "4242424242424242", { cvc: "987" }),
      "payment_method_data[card][numbr]": "5555555555554444",
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).not.toContain("5555555555554444");
    await processor.waitFor(async () => ((await processor.delivery.deliverDue()) === 0 ? true : undefined));

    const tables = [
      "processor_keys",
      "processor_payment_intents",
      "processor_idempotency_keys",
      "processor_events",
    ] as const;
    const dump = (
      await Promise.all(
        tables.map((table) =>
          sql<{ row: string }>`select to_jsonb(t)::text as row from ${sql.table(table)} t`.execute(db()),
        ),
      )
    ).flatMap((result) => result.rows.map((row) => row.row));
    expect(dump.length).toBeGreaterThan(numbers.length);
    const everything = [...dump, ...processor.logLines].join("\n");
    expect(everything).toContain("4242"); // last four digits are kept, which is what makes the search meaningful
    for (const number of [...numbers, "5555555555554444"]) {
      expect(everything, `card ${number}`).not.toContain(number);
      expect(everything, `card ${number} without its last four`).not.toContain(number.slice(0, -4));
    }
    expect(everything).not.toContain('"987"');
    expect(everything).not.toMatch(/"cvc"/);
  }, 30_000);
});
