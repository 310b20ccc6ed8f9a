import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { pino } from "pino";
import Stripe from "stripe";
import type { ProcessorDB } from "../src/processor-tables.ts";
import { getProcessorKeys, type ProcessorKeys } from "../src/processor-keys.ts";
import { createProcessorApp } from "../src/processor-routes.ts";
import { createWebhookDelivery } from "../src/webhook-delivery.ts";

/**
 * A real HTTP server for the processor's integration tests: the processor mounted at /_processor as the shop mounts
 * it, a webhook receiver that verifies signatures with the SDK, and a Stripe SDK client pointed at it. Only the
 * outside is played by the test (the receiver's answers); everything of ours is the real thing.
 */

/** The SDK always requests /v1/…; the processor lives under /_processor, so every path gets that prefix. */
export class PrefixedHttpClient extends Stripe.HttpClient {
  private readonly inner = Stripe.createNodeHttpClient();
  private readonly prefix: string;
  constructor(prefix: string) {
    super();
    this.prefix = prefix;
  }
  override getClientName(): string {
    return this.inner.getClientName();
  }
  override makeRequest(...[host, port, path, ...rest]: Parameters<Stripe.HttpClient["makeRequest"]>) {
    return this.inner.makeRequest(host, port, `${this.prefix}${path}`, ...rest);
  }
}

export interface ReceivedWebhook {
  event: Stripe.Event;
  /** What the receiver answered. */
  status: number;
  receivedAt: number;
}

export const RETRY_TIME_SCALE = 1 / 1800;

export async function startProcessorTestServer(db: ProcessorDB) {
  const keys: ProcessorKeys = await getProcessorKeys(db);
  const logLines: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });

  const received: ReceivedWebhook[] = [];
  const rejectedSignatures: string[] = [];
  /** Statuses the receiver answers next, in order; then 200. */
  const receiverAnswers: number[] = [];

  let origin = "";
  // Stripe's test-mode schedule with half an hour as one second: 1 s, 2 s, 4 s, then given up.
  const delivery = createWebhookDelivery({
    db,
    logger,
    webhookUrl: () => `${origin}/webhooks/stripe`,
    retryTimeScale: RETRY_TIME_SCALE,
  });
  const app = new Hono();
  app.route("/_processor", createProcessorApp({ db, logger, delivery }));
  app.post("/webhooks/stripe", async (c) => {
    const rawBody = await c.req.text();
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, c.req.header("stripe-signature") ?? "", keys.webhookSecret);
    } catch (error) {
      rejectedSignatures.push(String(error));
      return c.json({ error: "bad signature" }, 400);
    }
    const status = receiverAnswers.shift() ?? 200;
    received.push({ event, status, receivedAt: Date.now() });
    return c.json({ received: status === 200 }, status as 200);
  });

  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  if (!server.listening) await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  const sdk = (key: string) =>
    new Stripe(key, {
      host: "127.0.0.1",
      port,
      protocol: "http",
      maxNetworkRetries: 0,
      timeout: 10_000,
      httpClient: new PrefixedHttpClient("/_processor"),
    });

  return {
    keys,
    origin,
    delivery,
    logLines,
    received,
    rejectedSignatures,
    receiverAnswers,
    /** The shop's server-side client: the secret key. */
    stripe: sdk(keys.secretKey),
    sdk,
    /** A Stripe.js-style call from the browser: form-encoded, with the publishable key. */
    browserPost(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
      return fetch(`${origin}/_processor${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${keys.publishableKey}`,
          "content-type": "application/x-www-form-urlencoded",
          ...headers,
        },
        body: new URLSearchParams(fields),
      });
    },
    /** Waits until `found` returns something, or fails after `timeoutMs`. */
    async waitFor<T>(found: () => T | undefined | Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await found();
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error("waitFor: timed out");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      await delivery.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
    },
  };
}

export type ProcessorTestServer = Awaited<ReturnType<typeof startProcessorTestServer>>;

/** The StripeError an SDK call threw (fails the test if it resolved or threw anything else). */
export async function stripeFailure(call: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof Stripe.errors.StripeError)) throw new Error(`expected a StripeError, got ${String(error)}`);
  return error;
}

/** The form fields Stripe.js sends to confirm a card payment. */
export function cardFields(
  clientSecret: string,
  number: string,
  card: { expMonth?: string; expYear?: string; cvc?: string; postalCode?: string } = {},
) {
  return {
    client_secret: clientSecret,
    // As Stripe.js sends it: the page handles any next action itself, so no return_url is needed.
    use_stripe_sdk: "true",
    "payment_method_data[type]": "card",
    "payment_method_data[card][number]": number,
    "payment_method_data[card][exp_month]": card.expMonth ?? "12",
    "payment_method_data[card][exp_year]": card.expYear ?? String(new Date().getUTCFullYear() + 3),
    "payment_method_data[card][cvc]": card.cvc ?? (number.startsWith("37") ? "1234" : "123"),
    "payment_method_data[billing_details][address][postal_code]": card.postalCode ?? "10001",
  };
}
