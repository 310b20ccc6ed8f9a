import type { DatabaseHandle, DB } from "./db/client";
import { migrateToLatest } from "./db/migrate";
import type { Logger } from "./logger";
import { createAccountService } from "./accounts/account-service";
import { createRateLimiter } from "./accounts/rate-limiter";
import { createSignInFlow } from "./accounts/sign-in-flow";
import { createBasketService } from "./basket/basket-service";
import { createAdminProducts } from "./admin/admin-products";
import { createAuditLog } from "./admin/audit-log";
import { createOperatorService } from "./admin/operator-service";
import { createPictureStore } from "./admin/picture-store";
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
  const pictures = createPictureStore(db);
  return {
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
    // The operator console (/admin).
    pictures,
    operators: createOperatorService(db),
    auditLog: createAuditLog(db),
    adminProducts: createAdminProducts(db, catalogue, pictures),
  };
}

export type Services = ReturnType<typeof createServices>;

/** What start-up does to a database before serving: bring the schema up to date, then seed the catalogue. */
export async function prepareDatabase(db: DB): Promise<void> {
  await migrateToLatest(db);
  await seedCatalogue(db);
}
