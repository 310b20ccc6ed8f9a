// The composition root: one shop instance from its options (database, processor, services, the HTTP app), used by
// main.ts and by tests alike.

import type { GiftCardNumberLimits } from "./gift-cards/gift-card-service";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { getRequestListener } from "@hono/node-server";
import type { RequestHandler } from "react-router";
import type { DatabaseHandle } from "./db/client";
import { createApp } from "./http/app";
import { DEFAULT_MAX_CONNECTIONS, limitConnections, serverOptions } from "./http/connection-limits";
import { createReadiness } from "./http/readiness";
import type { Logger } from "./logger";
import { createStripeTestProcessor, migrateProcessor } from "@storefront/stripe-test-processor";
import { createPaymentProvider, inProcessFetch, type PaymentProvider } from "./payments/payment-provider";
import type { PaymentLimits } from "./checkout/payment-rate-limits";
import type { HoldLimits } from "./holds/hold-claims";
import { createRetentionSweep } from "./retention/retention-sweep";
import { createEmailSender, createLogTransport, type EmailSenderOptions } from "./email/email-sender";
import { createSmtpTransport, displayNameOf } from "./email/email-transport";
import { createServices, prepareDatabase } from "./services";

type NodeMiddleware = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

export interface ShopOptions {
  database: DatabaseHandle;
  logger: Logger;
  /** The shop's public origin, when set: its scheme decides Secure cookies and HSTS. */
  publicUrl?: URL;
  /** Stripe keys; without them the built-in test-mode processor is mounted and used. */
  stripe?: { secretKey: string; publishableKey: string; webhookSecret: string };
  /** The built-in processor run as its own process at this URL: `stripe` then holds its keys, and nothing is mounted. */
  processorUrl?: string;
  /** Stripe mode with its API calls sent to a test processor on the shop's own host (TEST_ONLY_STRIPE_API_URL; tests only). */
  testOnlyStripeApiUrl?: string;
  /** How long one processor call may take (the SDK's timeout; 20 s): tests of a processor that never answers shorten it. */
  processorTimeoutMs?: number;
  handlePageRequest?: RequestHandler;
  /** The pages without the operator console, for everybody who is not an operator (http/page-handlers.ts). */
  handlePublicPageRequest?: RequestHandler;
  clientBuildDir?: string;
  devMiddleware?: NodeMiddleware;
  /** Reverse proxies in front of the shop (TRUST_PROXY): client addresses are read from X-Forwarded-For. */
  trustedProxyHops?: number;
  authAttemptsPerIp?: number;
  /** Connections this process holds open at once; those over it are answered 503 (connection-limits.ts). */
  maxConnections?: number;
  newSessionsPerIp?: number;
  /** Outgoing e-mail (SMTP_URL and MAIL_FROM); without it every e-mail is logged instead. */
  smtp?: { url: string; from: string };
  /** The outbox sender's pace (tests shorten it); see email-sender.ts for the defaults. */
  emailSender?: Pick<EmailSenderOptions, "pollIntervalMs" | "retryBaseMs" | "leaseMs" | "maxAttempts">;
  /** Requests worked on at once; more are answered 503 with Retry-After (readiness.ts). */
  maxRequestsInFlight?: number;
  /** After a stop is asked for, how long /readyz answers 503 while requests are still served (for a load balancer). */
  shutdownDelayMs?: number;
  /** Who may read /metrics. */
  metricsAllow?: readonly string[];
  /** Without PUBLIC_URL: host names answered besides IP literals and localhost (ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  /** Payment attempts per session and client address (defaults in checkout/payment-rate-limits.ts; tests lower them). */
  paymentLimits?: PaymentLimits;
  /** The clock a one-process shop (PGlite) counts its rate limits by (tests move it on; Date.now). */
  rateLimitClock?: () => number;
  /** Wrong gift card numbers allowed per hour, per session and per address (tests lower them). */
  giftCardNumberLimits?: GiftCardNumberLimits;
  /** REVIEW_REQUEST_DAYS: days after an order is marked shipped that its review request is e-mailed. */
  reviewRequestDays?: number;
  /** DELIVERY_DAYS: days an order takes to arrive after shipping; the EU withdrawal period ends 14 days after that. */
  deliveryDays?: number;
  /** How long a payment holds the basket's tracked stock (RESERVATION_MINUTES; 15). */
  reservationMinutes?: number;
  /** Units one session may hold of a variant, one client address in all (HOLD_UNITS_PER_SESSION 10, HOLD_UNITS_PER_ADDRESS 50). */
  holdLimits?: HoldLimits;
  /** SHOP_TIME_ZONE: where the sales dashboard's days start (UTC). */
  shopTimeZone?: string;
  /** RECOVERY_HOURS and TEST_ONLY_RECOVERY_SECONDS: when a basket reminder is due (server/recovery). */
  recoveryHours?: number;
  testOnlyRecoverySeconds?: number;
  /** How often expired reservations are released (inventory-service.ts; tests shorten it). */
  reservationSweepMs?: number;
  /** OPERATOR_EMAIL and its password: the account is made an operator at start (server/admin/operator-service.ts). */
  operator?: { email: string; password: string };
  /** OPERATOR_RESET_TWO_STEP: that operator's two-step verification is turned off at start (a lost phone). */
  resetOperatorTwoStep?: boolean;
  /** TEST_ONLY_ALLOW_LOOPBACK_PICTURES: a CSV import may fetch pictures from the shop's own loopback (tests only). */
  allowLoopbackPictures?: boolean;
}

/** How long a stop waits for in-flight requests before closing their connections. */
const DRAIN_TIMEOUT_MS = 10_000;
/**
 * How often the built-in processor looks for webhook events left to deliver (retries, and another instance's): an
 * event is delivered at once by the instance that records it (deliverSoon), so this is only the safety net.
 */
const WEBHOOK_DELIVERY_INTERVAL_MS = 5_000;

/**
 * Assembles one shop instance from a database: prepare the schema, choose the card processor, build the services
 * and the HTTP app. `listen` starts serving (and, with the built-in processor, its webhook deliveries); the
 * returned `close` drains in-flight requests and stops everything it started. The process entry (main.ts)
 * and the integration tests assemble the shop the same way.
 */
export async function createShop(options: ShopOptions) {
  const { database, logger } = options;
  const startup = database.openForStartup?.();
  try {
    await prepareDatabase(startup?.db ?? database.db, options.stripe ? undefined : migrateProcessor);
  } finally {
    await startup?.close();
  }

  // Known once listening: the built-in processor's address is this server's own.
  let selfOrigin: URL | undefined;
  // The built-in processor and the shop answer each other's requests in this process, through the shop's handler
  // (its middleware included) but without a socket back to ourselves: the SDK's calls and the webhooks alike.
  const assembled: { app?: ReturnType<typeof createApp> } = {};
  const serveInProcess = (request: Request) => {
    if (!assembled.app) throw new Error("The shop is not assembled yet");
    return assembled.app.fetch(request);
  };
  const builtIn = options.stripe
    ? null
    : await createStripeTestProcessor({
        db: database.db,
        logger,
        webhookUrl: () => selfOrigin && new URL("/webhooks/stripe", selfOrigin).toString(),
        webhookFetch: inProcessFetch(serveInProcess),
      });
  const provider: PaymentProvider = builtIn
    ? createPaymentProvider({
        mode: "built-in",
        ...builtIn.keys,
        logger,
        selfOrigin: () => {
          if (!selfOrigin) throw new Error("The shop is not listening yet");
          return selfOrigin;
        },
        serveInProcess,
      })
    : createPaymentProvider({
        mode: options.processorUrl ? "built-in" : "stripe",
        ...(options.stripe as NonNullable<ShopOptions["stripe"]>),
        processorUrl: options.processorUrl,
        testOnlyStripeApiUrl: options.testOnlyStripeApiUrl,
        timeoutMs: options.processorTimeoutMs,
        logger,
      });
  // Links in e-mails: PUBLIC_URL, else this server's own port on localhost (a local trial's address).
  const publicOrigin = () => options.publicUrl ?? new URL(`http://localhost:${selfOrigin?.port || 3000}/`);
  const services = createServices(database, logger, {
    provider,
    authAttemptsPerIp: options.authAttemptsPerIp,
    newSessionsPerIp: options.newSessionsPerIp,
    publicOrigin,
    paymentLimits: options.paymentLimits,
    rateLimitClock: options.rateLimitClock,
    giftCardNumberLimits: options.giftCardNumberLimits,
    reviewRequestDays: options.reviewRequestDays,
    deliveryDays: options.deliveryDays,
    reservationMinutes: options.reservationMinutes,
    holdLimits: options.holdLimits,
    allowLoopbackPictures: options.allowLoopbackPictures,
    shopTimeZone: options.shopTimeZone,
    recoveryHours: options.recoveryHours,
    testOnlyRecoverySeconds: options.testOnlyRecoverySeconds,
    mailFromName: options.smtp ? displayNameOf(options.smtp.from) : null,
  });
  const retention = createRetentionSweep({ db: database.db, logger });
  const emailSender = createEmailSender({
    db: database.db,
    logger,
    transport: options.smtp ? createSmtpTransport(options.smtp.url, options.smtp.from) : createLogTransport(),
    sender: async () => {
      const { emailFromName, supportEmail } = await services.settings.current();
      return { fromName: emailFromName, replyTo: supportEmail };
    },
    ...options.emailSender,
  });
  const readiness = createReadiness();
  if (builtIn) {
    services.metrics.registerGauge({
      name: "storefront_webhook_deliveries_pending",
      help: "Webhook events of the built-in processor not yet delivered.",
      collect: () => builtIn.countPendingDeliveries(),
    });
  }
  if (options.operator) {
    const result = await services.operators.bootstrapOperator(options.operator.email, options.operator.password);
    // The e-mail address, never the password.
    logger.info({ operator: options.operator.email, result }, "operator from OPERATOR_EMAIL is ready");
    if (options.resetOperatorTwoStep) {
      const wasOn = await services.twoStep.resetAtStartup(options.operator.email);
      logger.warn(
        { operator: options.operator.email, reset: wasOn },
        wasOn
          ? "OPERATOR_RESET_TWO_STEP: two-step verification of the operator is off; remove the variable once it is set up again"
          : "OPERATOR_RESET_TWO_STEP: the operator had no two-step verification to reset; remove the variable",
      );
    }
  }

  const app = createApp({
    services,
    publicUrl: options.publicUrl,
    trustedProxyHops: options.trustedProxyHops,
    clientBuildDir: options.clientBuildDir,
    handlePageRequest: options.handlePageRequest,
    handlePublicPageRequest: options.handlePublicPageRequest,
    processor: builtIn ? { app: builtIn.app, isSecretKeyCall: builtIn.isSecretKeyCall } : undefined,
    readiness,
    maxRequestsInFlight: options.maxRequestsInFlight,
    metricsAllow: options.metricsAllow,
    allowedHosts: options.allowedHosts,
  });
  assembled.app = app;

  async function listen(port: number, host = "127.0.0.1") {
    const listener = getRequestListener(app.fetch);
    const devMiddleware = options.devMiddleware;
    const server = createServer(
      serverOptions,
      devMiddleware
        ? (request, response) => devMiddleware(request, response, () => listener(request, response))
        : listener,
    );
    limitConnections(server, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
    await new Promise<void>((resolve, reject) => {
      // A port in use or a host that is not the shop's own: the caller says which variable is wrong.
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const loopback = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
    selfOrigin = new URL(`http://${loopback.includes(":") ? `[${loopback}]` : loopback}:${address.port}/`);
    builtIn?.start(WEBHOOK_DELIVERY_INTERVAL_MS);
    retention.start();
    emailSender.start();
    const stopWaking = services.email.onEnqueued(() => emailSender.wake());
    services.reviewRequests.start();
    services.basketReminders.start();
    services.giftCardSweep.start();
    // Pictures a CSV import named elsewhere, left pending by an instance that stopped, and every import's after it.
    services.pictureFetcher.start();
    // Reservations past their time go back on sale (and guest pages hear of it when that changes what they say).
    const reservationSweep = services.inventory.startSweep(options.reservationSweepMs);
    // Balances held by payments past their time come back to their shoppers, at a third of that beat: a lapsed hold
    // only keeps its own shopper's balance, and an idle instance keeps under a statement a second in all.
    const balanceSweep = services.balances.startSweep((options.reservationSweepMs ?? 5_000) * 3, (error) =>
      logger.warn({ err: error }, "balances: releasing lapsed holds failed"),
    );
    // Payments that succeeded while no server was up to record them (a crash after the charge) get their orders.
    void services.checkout
      .recordMissedOrders()
      .catch((error: unknown) => logger.error({ err: error }, "checkout: sweep for missed orders failed"));

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        // Out of the load balancer's rotation first, still serving what it sends until it has noticed.
        readiness.isDraining = true;
        if (options.shutdownDelayMs) await sleep(options.shutdownDelayMs);
        await builtIn?.stop();
        await retention.stop();
        await services.reviewRequests.stop();
        await services.basketReminders.stop();
        await services.giftCardSweep.stop();
        stopWaking();
        await emailSender.stop();
        await reservationSweep.stop();
        await balanceSweep.stop();
        await services.pictureFetcher.stop();
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
        await drained;
        clearTimeout(timer);
      })());
    return { port: address.port, url: `http://localhost:${address.port}`, server, close };
  }

  // Tests play the outside world's part (a browser confirming a card, a forged webhook) with the built-in processor's keys.
  return { app, services, retention, emailSender, readiness, listen, processorKeys: builtIn?.keys };
}
