import type { DatabaseHandle, DB } from "./db/client";
import { migrateToLatest } from "./db/migrate";
import { withStartupLock } from "./db/startup-lock";
import type { Logger } from "./logger";
import { createMetrics } from "./metrics/metrics";
import { createAccountService } from "./accounts/account-service";
import { createRateLimiter } from "./accounts/rate-limiter";
import { createSignInFlow } from "./accounts/sign-in-flow";
import { createBasketService } from "./basket/basket-service";
import { createCatalogueService, seedCatalogue } from "./catalogue/catalogue-service";
import { createCheckoutService } from "./checkout/checkout-service";
import { createWebhookHandler } from "./checkout/webhook-handler";
import { createOrderService } from "./orders/order-service";
import type { PaymentProvider } from "./payments/payment-provider";
import { createSessionService } from "./sessions/session-service";

/**
 * Everything a request handler may use, built once per process from one database handle.
 * Routes get it from the request context; nothing imports a database singleton.
 */
export interface ServiceOptions {
  /** The card processor behind the Stripe SDK: Stripe, or the built-in test-mode processor. */
  provider: PaymentProvider;
  /** Sign-in and registration attempts allowed per client address per 15 minutes. */
  authAttemptsPerIp?: number;
  /** Guest sessions one client address may start per hour. */
  newSessionsPerIp?: number;
}

export function createServices(database: DatabaseHandle, logger: Logger, options: ServiceOptions) {
  const { db } = database;
  const catalogue = createCatalogueService(db);
  const rateLimiter = createRateLimiter(db);
  const sessions = createSessionService(db, { rateLimiter, newSessionsPerIp: options.newSessionsPerIp });
  const basket = createBasketService(db, catalogue, logger);
  const accounts = createAccountService(db, rateLimiter, { attemptsPerIp: options.authAttemptsPerIp });
  const orders = createOrderService(db);
  const checkout = createCheckoutService(db, basket, options.provider, logger);
  const metrics = createMetrics();
  database.observeQueries(metrics.observeQuery);
  const poolStats = database.poolStats;
  if (poolStats) {
    metrics.registerGauge({ name: "storefront_db_pool_connections", help: "Connections the database pool holds open.", collect: () => poolStats().total });
    metrics.registerGauge({ name: "storefront_db_pool_idle", help: "Pooled connections idle right now.", collect: () => poolStats().idle });
    metrics.registerGauge({ name: "storefront_db_pool_waiting", help: "Queries waiting for a pooled connection.", collect: () => poolStats().waiting });
  }
  return {
    metrics,
    logger,
    database,
    catalogue,
    sessions,
    basket,
    accounts,
    orders,
    checkout,
    provider: options.provider,
    payments: createWebhookHandler(db, options.provider, checkout, logger),
    signInFlow: createSignInFlow(accounts, sessions, basket, orders),
  };
}

export type Services = ReturnType<typeof createServices>;

/**
 * What start-up does to a database before serving: bring the schema up to date, seed the catalogue, and whatever
 * else must happen once per database (`alsoOnce`: the built-in processor's tables), all under the start-up lock,
 * so that instances started together do each step once and wait for it.
 */
export async function prepareDatabase(db: DB, alsoOnce?: (db: DB) => Promise<void>): Promise<void> {
  await withStartupLock(db, async (locked) => {
    await migrateToLatest(locked);
    await seedCatalogue(locked);
    await alsoOnce?.(locked);
  });
}
