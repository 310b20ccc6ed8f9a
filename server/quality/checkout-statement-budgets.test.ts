import { AsyncLocalStorage } from "node:async_hooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "#server/testing/test-database";
import { addDeliveryAddress, confirmCard, createBrowser, createTestShop } from "#server/testing/test-app";

const BOOK = "12321341"; // $11.96, stock not tracked (as the bench's checkout buys it)
/** The catalogue's own version check (server/catalogue), made by whichever request comes first in a second. */
const VERSION_CHECK = /^select "version" from "catalogue_version"$/;
/** The built-in processor's own statements (its tables), run in this process since its calls are handed in process. */
const PROCESSOR_STATEMENT = /"processor_\w+"/;

type Step = "add (a new guest)" | "address" | "create" | "webhook" | "record";

/**
 * Each step of a guest's checkout, as the bench's checkout takes it (bench/README.md, "Server CPU per request"), and
 * the statements it may send, BEGIN and COMMIT included: every statement costs the server a round trip's CPU, and on
 * PGlite the database's own work too. Confirming the card is the processor's; its `payment_intent.succeeded` webhook,
 * handed to the shop at once, writes the order (`webhook`), and the page's call then finds it written (`record`). A
 * step that needs more fails here with what it sent: lower a budget when a step gets cheaper, raise one only with a
 * reason in the commit.
 */
const BUDGETS: Record<"untracked" | "tracked", Record<Step, number>> = {
  untracked: { "add (a new guest)": 4, address: 2, create: 8, webhook: 11, record: 2 },
  // A tracked variant is locked and counted, reserved (with the shopper's claims and the ledger), moved to the intent,
  // then sold.
  tracked: { "add (a new guest)": 4, address: 2, create: 25, webhook: 16, record: 2 },
};

/**
 * The statements each step of a checkout sends to the database, counted at the driver (Kysely's log) for the request
 * alone, on both databases: the shop's requests run in this process, and so does the webhook's recording, started
 * by the card's confirmation (the processor's own statements are not counted).
 */
describeEachDatabase("statement budgets of a checkout", (getDatabase) => {
  const requests = new AsyncLocalStorage<string[]>();
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  let stopObserving: () => void = () => {};

  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
    stopObserving = getDatabase().observeQueries((_milliseconds, _isError, sql) => {
      if (!VERSION_CHECK.test(sql) && !PROCESSOR_STATEMENT.test(sql)) requests.getStore()?.push(sql);
    });
  }, 60_000);
  afterAll(async () => {
    stopObserving();
    await close();
  });

  /** One whole checkout by a new guest, and what each step sent. */
  async function checkout(productId: string, totalCents: number): Promise<Record<Step, string[]>> {
    const browser = createBrowser(shop.app);
    const sent = { "add (a new guest)": [], address: [], create: [], webhook: [], record: [] } as Record<
      Step,
      string[]
    >;
    const step = <T>(name: Step, run: () => Promise<T>) => requests.run(sent[name], run);
    const added = await step("add (a new guest)", () => browser.postJson("/basket/add", { productId }));
    expect(added.status).toBe(201);
    await step("address", () => addDeliveryAddress(browser));
    const created = await step("create", () =>
      browser.send(`/payments/create?total=${totalCents}`, { method: "POST" }),
    );
    expect(created.status).toBe(201);
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    // Confirmed in process, so that the webhook it sets off counts as its own step.
    const confirmed = await step("webhook", () =>
      confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242", (url, init) =>
        shop.app.request(url, init),
      ),
    );
    expect(confirmed.body.status).toBe("succeeded");
    const orderOf = getDatabase()
      .db.selectFrom("orders")
      .select("id")
      .where("id", "=", confirmed.body.id ?? "");
    await expect.poll(async () => (await orderOf.executeTakeFirst())?.id, { timeout: 10_000 }).toBe(confirmed.body.id);
    // What the webhook sent, before the e-mail it wrote wakes the outbox's sender in the same context.
    sent.webhook = [...sent.webhook];
    const recorded = await step("record", () =>
      browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id }),
    );
    expect(recorded.status).toBe(201);
    return sent;
  }

  it("keeps every step of a guest's checkout within its budget, stock tracked or not", async () => {
    // Another product of the catalogue, its stock counted (the seeded shop tracks none).
    const tracked = await getDatabase()
      .db.selectFrom("product_variants as v")
      .innerJoin("products as p", "p.id", "v.product_id")
      .select(["v.id", "v.product_id", "v.price_cents"])
      .where("v.product_id", "!=", BOOK)
      .where("p.gift_card", "is", null)
      .where("p.status", "=", "active")
      .orderBy("v.price_cents")
      .executeTakeFirstOrThrow();
    await getDatabase()
      .db.transaction()
      .execute((trx) =>
        shop.services.inventory.setStock(
          trx,
          tracked.id,
          { tracksStock: true, continueSelling: false, onHand: 100 },
          "test",
        ),
      );
    const over: string[] = [];
    for (const [kind, productId] of [
      ["untracked", BOOK],
      ["tracked", tracked.product_id],
    ] as const) {
      // Once to warm what is kept between requests, then the one measured.
      const total = kind === "untracked" ? 1196 : tracked.price_cents;
      await checkout(productId, total);
      const sent = await checkout(productId, total);
      for (const [name, statements] of Object.entries(sent) as [Step, string[]][]) {
        const budget = BUDGETS[kind][name];
        if (statements.length > budget)
          over.push(
            `${name} (${kind}): ${statements.length} statements, budget ${budget}:\n` +
              statements.map((sql) => `    ${sql.replace(/\s+/g, " ").slice(0, 160)}`).join("\n"),
          );
      }
    }
    expect(over, over.join("\n")).toEqual([]);
  }, 60_000);
});
