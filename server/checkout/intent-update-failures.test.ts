import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PROCESSOR_ERROR_SENTENCES } from "#server/payments/processor-errors";
import {
  freePort,
  SEPARATE_PROCESSOR_KEYS as KEYS,
  startProcessorProcess,
  stopProcessorProcess,
} from "#server/testing/processor-process";
import { describeEachDatabase } from "#server/testing/test-database";
import { addDeliveryAddress, createHttpBrowser, createTestShop } from "#server/testing/test-app";

const ECHO = "23445930"; // $98.99

/** What the network between the shop and its processor does to an intent's update: pass it, fail it, or swallow it. */
type UpdateFault = "none" | "answer 500" | "no answer";

/**
 * A proxy in front of the processor (run as its own process), standing for the network and a processor in trouble:
 * every call passes, except updates of an intent (POST /v1/payment_intents/{id}) while a fault is set.
 */
async function startFaultyNetwork(
  processorOrigin: string,
): Promise<{ server: Server; origin: string; setFault: (fault: UpdateFault) => void; updatesSeen: () => number }> {
  let fault: UpdateFault = "none";
  let updates = 0;
  const held: ServerResponse[] = [];
  const server = createServer((incoming: IncomingMessage, answer: ServerResponse) => {
    const isUpdate = incoming.method === "POST" && /^\/v1\/payment_intents\/[A-Za-z0-9_]+$/.test(incoming.url ?? "");
    if (isUpdate) updates++;
    if (isUpdate && fault === "answer 500") {
      incoming.resume();
      answer.writeHead(500, { "content-type": "application/json" });
      answer.end(JSON.stringify({ error: { type: "api_error", message: "An unknown error occurred" } }));
      return;
    }
    if (isUpdate && fault === "no answer") {
      incoming.resume();
      held.push(answer);
      return;
    }
    const outgoing = forward(
      new URL(incoming.url ?? "/", processorOrigin),
      { method: incoming.method, headers: incoming.headers },
      (reply) => {
        answer.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(answer);
      },
    );
    incoming.pipe(outgoing);
  });
  server.on("close", () => held.forEach((answer) => answer.destroy()));
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${port}`, setFault: (next) => (fault = next), updatesSeen: () => updates };
}

describeEachDatabase("an open payment whose update the processor does not confirm", (getDatabase) => {
  const dataDir = mkdtempSync(join(tmpdir(), "storefront-processor-"));
  let processor: ChildProcess | undefined;
  let processorOrigin = "";
  let network: Awaited<ReturnType<typeof startFaultyNetwork>>;
  let shopOrigin = "";
  let closeShop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    processorOrigin = `http://127.0.0.1:${await freePort()}`;
    network = await startFaultyNetwork(processorOrigin);
    // A call the processor never answers is given up after 300 ms (and two retries) instead of the usual 20 s.
    const shop = await createTestShop(getDatabase(), {
      stripe: KEYS,
      processorUrl: network.origin,
      processorTimeoutMs: 300,
    });
    const running = await shop.listen(0);
    shopOrigin = `http://127.0.0.1:${running.port}`;
    closeShop = running.close;
    processor = await startProcessorProcess(
      Number(new URL(processorOrigin).port),
      `${shopOrigin}/webhooks/stripe`,
      dataDir,
    );
  });
  afterAll(async () => {
    await closeShop();
    await new Promise((resolve) => network.server.close(resolve));
    await stopProcessorProcess(processor);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The intent as the processor holds it, asked directly with the secret key. */
  async function intentAtProcessor(id: string): Promise<{ status: string; amount: number }> {
    const response = await fetch(`${processorOrigin}/v1/payment_intents/${id}`, {
      headers: { authorization: `Bearer ${KEYS.secretKey}` },
    });
    return (await response.json()) as { status: string; amount: number };
  }

  it.each<UpdateFault>(["answer 500", "no answer"])(
    "when it should %s, the shopper is told to try again, the intent is neither cancelled nor replaced, and the retry updates it",
    async (fault) => {
      network.setFault("none");
      const browser = createHttpBrowser(shopOrigin);
      expect((await browser.postJson("/basket/add", { productId: ECHO })).status).toBe(201);
      await addDeliveryAddress(browser);
      const first = await browser.send("/payments/create?total=9899", { method: "POST" });
      expect(first.status).toBe(201);
      const { clientSecret } = (await first.json()) as { clientSecret: string };
      const intentId = clientSecret.split("_secret_")[0] ?? "";

      // The basket grows, so the open intent must be re-priced, and the processor fails the update.
      expect((await browser.postJson("/basket/add", { productId: ECHO })).status).toBe(201);
      network.setFault(fault);
      const updatesBefore = network.updatesSeen();
      const refused = await browser.send("/payments/create?total=19798", { method: "POST" });
      expect(network.updatesSeen()).toBeGreaterThan(updatesBefore);
      expect(refused.status).toBe(502);
      const sentence =
        fault === "answer 500" ? PROCESSOR_ERROR_SENTENCES.processorFault : PROCESSOR_ERROR_SENTENCES.unreachable;
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(sentence);

      // Nothing was given up on: the shopper's one payment is still open, on the same intent, which is not cancelled.
      const { db } = getDatabase();
      const payments = await db
        .selectFrom("checkout_payments")
        .select(["payment_intent_id", "status"])
        .where(
          "session_id",
          "=",
          db.selectFrom("checkout_payments").select("session_id").where("payment_intent_id", "=", intentId),
        )
        .execute();
      expect(payments).toEqual([{ payment_intent_id: intentId, status: "open" }]);
      expect(await intentAtProcessor(intentId)).toMatchObject({ status: "requires_payment_method", amount: 9899 });

      // The processor is back: the same intent is re-priced, not a second one opened beside it.
      network.setFault("none");
      const retried = await browser.send("/payments/create?total=19798", { method: "POST" });
      expect(retried.status).toBe(201);
      expect(((await retried.json()) as { clientSecret: string }).clientSecret).toBe(clientSecret);
      expect(await intentAtProcessor(intentId)).toMatchObject({ status: "requires_payment_method", amount: 19798 });
    },
  );
});
