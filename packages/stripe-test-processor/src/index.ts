/**
 * The processor's server side: its HTTP API as a Hono app (routes /v1/…), its webhook delivery loop, its keys and
 * its migrations. A host mounts the app where it likes (the shop: at /_processor) or serves it alone
 * (main.ts, `npm run processor`).
 */
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { getProcessorKeys, presentedKey, sameSecret, setProcessorKeys, type ProcessorKeys } from "./processor-keys.ts";
import { createProcessorApp } from "./processor-routes.ts";
import type { ProcessorDB } from "./processor-tables.ts";
import { createWebhookDelivery } from "./webhook-delivery.ts";

export { migrateProcessor } from "./migrate.ts";
export type { ProcessorKeys } from "./processor-keys.ts";

export interface StripeTestProcessorOptions {
  /** Any Kysely database on which migrateProcessor has run; the processor uses only its own `processor_*` tables. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the host's schema type is not the processor's business
  db: Kysely<any>;
  logger: Logger;
  /** Where webhook events are POSTed; a function, as a host may learn its own address only once it listens. */
  webhookUrl: () => string | undefined;
  /** How webhook events are sent (fetch): a host that mounts the processor may hand them to its own handler. */
  webhookFetch?: typeof fetch;
  /** Keys to use; without them the processor makes its own on first use and keeps them in the database. */
  keys?: ProcessorKeys;
  /** Compresses Stripe's webhook retry schedule (tests); 1, the default, is Stripe's test-mode schedule itself. */
  webhookRetryTimeScale?: number;
}

/**
 * One processor over one database: `app` answers the API, `start` begins retrying webhook deliveries (every change
 * also triggers an immediate attempt), `stop` ends the loop and waits for a round in flight.
 */
export async function createStripeTestProcessor({
  db,
  logger,
  webhookUrl,
  webhookFetch,
  keys: givenKeys,
  webhookRetryTimeScale,
}: StripeTestProcessorOptions) {
  const processorDb = db as ProcessorDB;
  if (givenKeys) await setProcessorKeys(processorDb, givenKeys);
  const keys: ProcessorKeys = await getProcessorKeys(processorDb);
  const delivery = createWebhookDelivery({
    db: processorDb,
    logger,
    webhookUrl,
    fetch: webhookFetch,
    retryTimeScale: webhookRetryTimeScale,
  });
  return {
    app: createProcessorApp({ db: processorDb, logger, delivery }),
    keys,
    /** Whether a request's Authorization header presents this processor's secret key, read as the API reads it. */
    isSecretKeyCall: (authorization: string | undefined) =>
      authorization !== undefined && sameSecret(presentedKey(authorization, undefined) ?? "", keys.secretKey),
    start: (intervalMs?: number) => delivery.start(intervalMs),
    stop: () => delivery.stop(),
    /** Attempts every due webhook now; resolves with how many were attempted. */
    deliverDue: () => delivery.deliverDue(),
    /** Webhook events not yet delivered and not given up on (a host's metrics). */
    async countPendingDeliveries(): Promise<number> {
      const row = await processorDb
        .selectFrom("processor_events")
        .select((eb) => eb.fn.countAll<string>().as("pending"))
        .where("delivered_at", "is", null)
        .where("gave_up_at", "is", null)
        .executeTakeFirstOrThrow();
      return Number(row.pending);
    },
  };
}

export type StripeTestProcessor = Awaited<ReturnType<typeof createStripeTestProcessor>>;
