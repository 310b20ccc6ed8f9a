// Building the services once per process from one database handle (routes reach them through the request context), and
// preparing the database: migrations and seeds.

import { createReturnsService } from "#server/returns/returns-service";
import type { DatabaseHandle, DB } from "./db/client";
import { migrateToLatest } from "./db/migrate";
import { withStartupLock } from "./db/startup-lock";
import type { Logger } from "./logger";
import { createMetrics } from "./metrics/metrics";
import { createAccountFlows } from "./accounts/account-flows";
import { createAccountService, DEFAULT_ATTEMPTS_PER_IP } from "./accounts/account-service";
import { createAddressService } from "./addresses/address-service";
import { createRateLimiter, databaseCounters, memoryCounters } from "#server/rate-limits/rate-limiter";
import { createSignInFlow } from "./accounts/sign-in-flow";
import { createBasketService } from "./basket/basket-service";
import { createAdminProducts } from "./admin/admin-products";
import { createAdminOrders } from "#server/admin/console-orders";
import { createAuditLog } from "#server/audit/audit-log";
import { createOperatorService } from "./admin/operator-service";
import { createPictureStore } from "#server/pictures/picture-store";
import { createHeldPaymentRefunds } from "#server/refunds/held-payments";
import { createSalesDashboard } from "#server/sales/sales-dashboard";
import { createGiftCardFigures } from "#server/gift-cards/gift-card-figures";
import { createCatalogueService, seedCatalogue } from "./catalogue/catalogue-service";
import { createDepartmentService } from "./departments/department-service";
import { seedDepartments } from "./departments/department-seed";
import { createCheckoutService } from "./checkout/checkout-service";
import { createBalanceLedger } from "./balances/balance-ledger";
import { createStoreCredit } from "./balances/store-credit";
import { createCheckoutBalances } from "./balances/checkout-balances";
import { balanceHold } from "./checkout/balance-hold";
import { createWebhookHandler } from "./checkout/webhook-handler";
import { createEmailOutbox } from "./email/email-outbox";
import { createEmailPreferences } from "./email/email-preferences";
import { createReviewRequests } from "./reviews/review-requests";
import { createBasketReminders } from "./recovery/basket-reminders";
import { createRecoveryReport } from "./recovery/recovery-report";
import { createRecoverySettings } from "./recovery/recovery-settings";
import { createReminderConsent } from "./recovery/reminder-consent";
import { createPaymentRateLimits, type PaymentLimits } from "./checkout/payment-rate-limits";
import { createPaymentReturn } from "./checkout/payment-return";
import { createOrderService } from "./orders/order-service";
import { createGuestOrderFinder } from "./orders/find-order";
import { createInventoryService, DEFAULT_RESERVATION_MINUTES } from "./inventory/inventory-service";
import { createHoldClaims, type HoldLimits } from "./holds/hold-claims";
import { createCheckoutHold } from "./checkout/checkout-hold";
import { defaultHoldAdapters } from "./checkout/hold-adapters";
import { createPromotionService } from "./promotions/promotion-service";
import type { PaymentProvider } from "./payments/payment-provider";
import { createReviewService } from "./reviews/review-service";
import { createSessionService } from "./sessions/session-service";
import { createTwoStepService } from "./two-step/two-step-service";
import { createShippingService } from "./shipping/shipping-service";
import { createStockAlertService } from "./stock-alerts/stock-alert-service";
import { createPictureFetcher } from "./imports/picture-fetcher";
import { createProductCsvImport } from "./imports/product-csv-import";
import { createCsvExports } from "./imports/csv-exports";
import { createShopSettingsService } from "./settings/shop-settings-service";
import { createWithdrawalService } from "./withdrawals/withdrawal-service";
import { openReturn } from "./returns/open-return";
import { createGiftCardService, type GiftCardNumberLimits } from "./gift-cards/gift-card-service";
import { every } from "./background/every";

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
  /** The shop's public origin for links in e-mails (PUBLIC_URL, else http://localhost:PORT). */
  publicOrigin?: () => URL;
  /** Payment attempts per session and client address (tests lower them). */
  paymentLimits?: PaymentLimits;
  /** The clock a one-process shop's rate limits are counted by, in its memory (tests move it on; Date.now). */
  rateLimitClock?: () => number;
  /** REVIEW_REQUEST_DAYS: days after shipping that the review request is sent (default 7). */
  reviewRequestDays?: number;
  /** DELIVERY_DAYS: days an order takes to arrive after shipping; the EU withdrawal period ends 14 days after (7). */
  deliveryDays?: number;
  /** How long a payment holds the basket's tracked stock (RESERVATION_MINUTES; 15). */
  reservationMinutes?: number;
  /** Units one session may hold of a variant, and one client address in all (HOLD_UNITS_PER_SESSION, HOLD_UNITS_PER_ADDRESS). */
  holdLimits?: HoldLimits;
  /** TEST_ONLY_ALLOW_LOOPBACK_PICTURES: a CSV import may fetch pictures from the shop's own loopback (tests' picture servers). */
  allowLoopbackPictures?: boolean;
  /** SHOP_TIME_ZONE: the shop's time zone until the console saves one (UTC). */
  shopTimeZone?: string;
  /** RECOVERY_HOURS: hours after a basket's last change that its reminder is due, until the console saves its own (4). */
  recoveryHours?: number;
  /** TEST_ONLY_RECOVERY_SECONDS: basket reminders after seconds instead of hours (tests). */
  testOnlyRecoverySeconds?: number;
  /** MAIL_FROM's display name: the e-mails' sender name until the console saves one. */
  mailFromName?: string | null;
  /** Wrong gift card numbers allowed per hour, per session and per address (tests lower them). */
  giftCardNumberLimits?: GiftCardNumberLimits;
}

/** How often a shop looks for gift cards whose "Send on" day has come. */
const GIFT_CARD_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export const DEFAULT_REVIEW_REQUEST_DAYS = 7;

export function createServices(database: DatabaseHandle, logger: Logger, options: ServiceOptions) {
  const { db } = database;
  const catalogue = createCatalogueService(db);
  const departments = createDepartmentService(db, catalogue);
  const pictures = createPictureStore(db);
  const settings = createShopSettingsService(db, {
    catalogue,
    pictures,
    defaults: { timeZone: options.shopTimeZone, emailFromName: options.mailFromName },
  });
  // A shop on PGlite is one process (one per DATA_DIR), so its attempt counters live in its memory; instances sharing
  // PostgreSQL share theirs in the database.
  const rateLimiter = createRateLimiter(
    database.kind === "pglite" ? memoryCounters({ now: options.rateLimitClock }) : databaseCounters(db),
  );
  const sessions = createSessionService(db, { rateLimiter, newSessionsPerIp: options.newSessionsPerIp });
  const basket = createBasketService(db, catalogue, logger);
  const email = createEmailOutbox(db, {
    publicOrigin: options.publicOrigin ?? (() => new URL("http://localhost:3000/")),
    settings,
  });
  const accounts = createAccountService(db, rateLimiter, email, { attemptsPerIp: options.authAttemptsPerIp });
  const orders = createOrderService(db);
  // Store credit and gift cards: one ledger, held with the payment, spent with the order, given back by refunds.
  const balances = createBalanceLedger(db);
  const addresses = createAddressService(db);
  const shipping = createShippingService(db, { catalogue });
  const emailPreferences = createEmailPreferences(db);
  // A back-in-stock alert is written in the transaction of the stock change that brings its variant back: once.
  const holdClaims = createHoldClaims(db, {
    reservationMinutes: options.reservationMinutes ?? DEFAULT_RESERVATION_MINUTES,
    limits: options.holdLimits,
  });
  const inventory = createInventoryService(db, logger, {
    reservationMinutes: options.reservationMinutes,
    claims: holdClaims,
    onBackInStock: (trx, variantIds) => stockAlerts.notifyBackInStock(trx, variantIds),
    onCatalogueChanged: () => catalogue.noteCatalogueWrite(),
  });
  const stockAlerts = createStockAlertService(db, { email, preferences: emailPreferences, rateLimiter, inventory });
  // The order confirmation is written in the transaction that records the order: exactly once, whoever records it.
  const promotions = createPromotionService(db, {
    reservationMinutes: inventory.reservationMinutes,
    claims: holdClaims,
  });
  // A gift card bought is issued and e-mailed in the order's transaction (or on its "Send on" day by the sweep).
  const giftCards = createGiftCardService({
    db,
    ledger: balances,
    rateLimiter,
    email,
    // Read in the caller's transaction when there is one (on PGlite's one connection a read beside it would wait).
    timeZone: async (writer) => (writer ? (await settings.readWith(writer)).timeZone : settings.timeZone()),
    limits: options.giftCardNumberLimits,
  });
  const giftCardSweep = every(GIFT_CARD_SWEEP_INTERVAL_MS, () => giftCards.deliverDue(), {
    logger,
    name: "gift cards: send-on days",
  });
  const checkoutBalances = createCheckoutBalances(db, balances, {
    reservationMinutes: inventory.reservationMinutes,
    logger,
  });
  const checkout = createCheckoutService({
    db,
    basket,
    addresses,
    shipping,
    provider: options.provider,
    logger,
    orders,
    inventory,
    promotions,
    // What a payment holds while it is paid for, reserved, released and settled together: one adapter per kind.
    // Balances (store credit, gift cards) after stock and codes: one more adapter.
    holds: createCheckoutHold([
      ...defaultHoldAdapters({ inventory, promotions, logger }),
      balanceHold(checkoutBalances),
    ]),
    balances: checkoutBalances,
    onOrderRecorded: async (trx, orderId, items) => {
      await email.enqueueOrderConfirmation(trx, orderId);
      await giftCards.recordSales(trx, orderId, items);
    },
  });
  const twoStep = createTwoStepService({
    db,
    email,
    livemode: options.provider.identity.livemode,
    shopName: async () => (await settings.identity()).name,
  });
  const signInFlow = createSignInFlow(accounts, sessions, basket, orders, checkout, addresses, twoStep);
  const metrics = createMetrics(logger);
  database.observeQueries(metrics.observeQuery);
  const poolStats = database.poolStats;
  if (poolStats) {
    metrics.registerGauge({
      name: "storefront_db_pool_connections",
      help: "Connections the database pool holds open.",
      collect: () => poolStats().total,
    });
    metrics.registerGauge({
      name: "storefront_db_pool_idle",
      help: "Pooled connections idle right now.",
      collect: () => poolStats().idle,
    });
    metrics.registerGauge({
      name: "storefront_db_pool_waiting",
      help: "Queries waiting for a pooled connection.",
      collect: () => poolStats().waiting,
    });
  }
  metrics.registerGauge({
    name: "storefront_email_outbox_pending",
    help: "E-mails written and not yet sent.",
    collect: async () => (await email.backlog()).pending,
  });
  metrics.registerGauge({
    name: "storefront_email_outbox_oldest_pending_seconds",
    help: "Age of the oldest e-mail not yet sent (0 when none waits).",
    collect: async () => (await email.backlog()).oldestPendingAgeSeconds,
  });
  const paymentLimits = createPaymentRateLimits(rateLimiter, options.paymentLimits, holdClaims.liveHolds);
  const adminOrders = createAdminOrders(db, orders, options.provider, email, logger, inventory, balances, giftCards);
  const adminProducts = createAdminProducts(db, catalogue, pictures, departments, inventory);
  const recoveryReport = createRecoveryReport(db, { livemode: options.provider.identity.livemode });
  // The dashboard counts the orders of the mode the shop takes payments in: test orders while it takes test cards.
  const storeCredit = createStoreCredit(db, balances, () => settings.timeZone());
  const salesDashboard = createSalesDashboard(db, {
    timeZone: () => settings.timeZone(),
    livemode: options.provider.identity.livemode,
    countLowStock: () => adminProducts.countLowStock(),
    countHeldPayments: async (livemode) => (await checkout.listHeldPayments(livemode, 0)).count,
    recoveryFigures: (start, end) => recoveryReport.figures(start, end),
    storeCreditFigures: (start, end) => storeCredit.figures(start, end),
    giftCardFigures: createGiftCardFigures(db, options.provider.identity.livemode),
  });
  const reviews = createReviewService(db, { onCatalogueChanged: () => catalogue.noteCatalogueWrite() });
  const pictureFetcher = createPictureFetcher({
    db,
    pictures,
    catalogue,
    logger,
    allowLoopback: options.allowLoopbackPictures,
  });
  const reviewRequests = createReviewRequests({
    db,
    email,
    preferences: emailPreferences,
    logger,
    days: options.reviewRequestDays ?? DEFAULT_REVIEW_REQUEST_DAYS,
  });
  const recoverySettings = createRecoverySettings(db, { defaultDelayHours: options.recoveryHours ?? 4 });
  const basketReminders = createBasketReminders({
    db,
    basket,
    email,
    preferences: emailPreferences,
    settings: recoverySettings,
    logger,
    testOnlySeconds: options.testOnlyRecoverySeconds,
  });
  return {
    /** SHOP_TIME_ZONE: the zone every page and the console state an order's times in. */
    shopTimeZone: options.shopTimeZone ?? "UTC",
    metrics,
    logger,
    database,
    catalogue,
    departments,
    settings,
    inventory,
    promotions,
    balances,
    checkoutBalances,
    storeCredit,
    sessions,
    basket,
    accounts,
    orders,
    addresses,
    shipping,
    checkout,
    paymentLimits,
    paymentReturn: createPaymentReturn(checkout, paymentLimits),
    provider: options.provider,
    /** The processor's webhook events (POST /webhooks/stripe), turned into the shop's few actions. */
    webhooks: createWebhookHandler(db, options.provider, checkout, orders, logger, adminOrders),
    signInFlow,
    twoStep,
    email,
    reviews,
    emailPreferences,
    reviewRequests,
    stockAlerts,
    // "Withdraw from contract here" (EU and EEA orders): its acknowledgement through the outbox, its return.
    withdrawals: createWithdrawalService(db, {
      email,
      timeZone: () => settings.timeZone(),
      deliveryDays: options.deliveryDays,
      // A withdrawal's return: no reason, no fee, refunded; with the delivery charge when every unit is withdrawn.
      openReturn: async (trx, request) =>
        (
          await openReturn(trx, email, {
            orderId: request.orderId,
            kind: "withdrawal",
            lines: request.lines.map((line) => ({ ...line, reason: null, resolution: "refund" })),
            requestedBy: "shopper",
            requestKey: `withdrawal:${request.withdrawalId}`,
            returnFeeCents: 0,
            includeShipping: request.includeShipping,
          })
        ).returnId,
    }),
    giftCards,
    giftCardSweep,
    // Basket reminders: consent where it is asked, the sweep and its link back, the console's settings and figures.
    reminderConsent: createReminderConsent(db, { accounts, preferences: emailPreferences }),
    basketReminders,
    recoverySettings,
    recoveryReport,
    accountFlows: createAccountFlows({
      db,
      accounts,
      sessions,
      signInFlow,
      orders,
      checkout,
      email,
      rateLimiter,
      attemptsPerIp: options.authAttemptsPerIp ?? DEFAULT_ATTEMPTS_PER_IP,
    }),
    // The operator console (/admin).
    pictures,
    operators: createOperatorService(db, email),
    auditLog: createAuditLog(db),
    adminProducts,
    adminOrders,
    // Returns and replacements: the shopper's request (and the EU withdrawal's openReturn), the console's steps.
    returns: createReturnsService({ db, email, orders, refunds: adminOrders, inventory, settings }),
    // "Find an order" on /returns: wrong tries limited per session and address, like gift card numbers.
    findOrder: createGuestOrderFinder(orders, rateLimiter),
    pictureFetcher,
    productCsv: createProductCsvImport({
      db,
      catalogue,
      departments,
      inventory,
      onPicturesQueued: () => pictureFetcher.wake(),
    }),
    csvExports: createCsvExports(db),
    heldPayments: createHeldPaymentRefunds(db, checkout, options.provider, email, logger),
    salesDashboard,
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
    await seedDepartments(locked);
    await alsoOnce?.(locked);
  });
}
