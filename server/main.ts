// The process's entry: configuration, the data directory's lock, the database and its migrations, the seed, listening,
// and draining on SIGTERM.

import type { ServerBuild } from "react-router";
import { readFileSync } from "node:fs";
import { ConfigError, loadEnvFile, operatorCredentials, parseConfig } from "./config";
import { lockDataDir } from "./data-dir-lock";
import { createPageHandlers } from "./http/page-handlers";
import { openDatabase } from "./db/client";
import { createLogDestination, createLogger } from "./logger";
import { createShop } from "./shop";
import { DEFAULT_PAYMENT_LIMITS } from "./checkout/payment-rate-limits";
import { applyDemoCatalogue } from "./imports/demo-catalogue";
import { prepareDatabase } from "./services";

type NodeMiddleware = NonNullable<Parameters<typeof createShop>[0]["devMiddleware"]>;

/** The ready line's second half: where the console is and, while nobody can sign in to it, how to make somebody. */
async function consoleDirections(url: string, operators: { hasOperators(): Promise<boolean> }): Promise<string> {
  const where = `the operator console is at ${url}/admin`;
  if (await operators.hasOperators()) return where;
  return `${where}, with no operator account yet: set OPERATOR_EMAIL and OPERATOR_PASSWORD (in .env or the environment) and start again`;
}

/** After the shutdown delay: the drain's own 10 s for in-flight requests, then closing the database. */
const SHUTDOWN_LIMIT_MS = 15_000;

export interface StartOptions {
  /** The production client build (hashed assets); omitted in development, where Vite serves them. */
  clientBuildDir?: string;
  /** Vite's dev middleware, which answers module and asset requests before the app sees them. */
  devMiddleware?: NodeMiddleware;
}

/**
 * The process entry: parse the environment, open the database, assemble the shop, listen. SIGTERM and SIGINT stop
 * accepting connections, let in-flight requests finish, close the database, then exit.
 */
export async function startServer({ clientBuildDir, devMiddleware }: StartOptions = {}) {
  loadEnvFile();
  const config = parseConfig(process.env);
  const logger = createLogger(config.LOG_LEVEL, createLogDestination());
  // One process per embedded database: a second one would silently lose one side's writes.
  if (!config.DATABASE_URL) lockDataDir(config.DATA_DIR);
  const database = config.DATABASE_URL
    ? openDatabase({ kind: "postgres", url: config.DATABASE_URL, migrationUrl: config.DATABASE_MIGRATION_URL })
    : openDatabase({ kind: "pglite", dataDir: config.DATA_DIR });
  const isProduction = config.NODE_ENV === "production";
  // In production the build never changes, so it is imported once: import() asks the module loader again at every
  // call (a resolution and a lookup on every page). In development each call sees the latest route modules.
  let productionBuild: Promise<ServerBuild> | undefined;
  const loadBuild = isProduction ? () => (productionBuild ??= loadPageBuild()) : loadPageBuild;
  const operator = operatorCredentials(config, (path) => readFileSync(path, "utf8"));

  const shop = await createShop({
    database,
    logger,
    stripe: config.STRIPE_SECRET_KEY
      ? {
          secretKey: config.STRIPE_SECRET_KEY,
          publishableKey: config.STRIPE_PUBLISHABLE_KEY ?? "",
          webhookSecret: config.STRIPE_WEBHOOK_SECRET ?? "",
        }
      : undefined,
    trustedProxyHops: config.TRUST_PROXY,
    publicUrl: config.PUBLIC_URL,
    processorUrl: config.PROCESSOR_URL,
    testOnlyStripeApiUrl: config.TEST_ONLY_STRIPE_API_URL,
    authAttemptsPerIp: config.AUTH_ATTEMPTS_PER_IP,
    maxConnections: config.MAX_CONNECTIONS,
    newSessionsPerIp: config.NEW_SESSIONS_PER_IP,
    reservationMinutes: config.RESERVATION_MINUTES,
    holdLimits: { unitsPerSession: config.HOLD_UNITS_PER_SESSION, unitsPerAddress: config.HOLD_UNITS_PER_ADDRESS },
    shopTimeZone: config.SHOP_TIME_ZONE,
    paymentLimits: {
      ...DEFAULT_PAYMENT_LIMITS,
      createsPerIp: config.PAYMENT_ATTEMPTS_PER_IP,
      recordsPerIp: config.PAYMENT_ATTEMPTS_PER_IP,
    },
    reviewRequestDays: config.REVIEW_REQUEST_DAYS,
    deliveryDays: config.DELIVERY_DAYS,
    recoveryHours: config.RECOVERY_HOURS,
    testOnlyRecoverySeconds: config.TEST_ONLY_RECOVERY_SECONDS,
    smtp: config.SMTP_URL && config.MAIL_FROM ? { url: config.SMTP_URL, from: config.MAIL_FROM } : undefined,
    maxRequestsInFlight: config.MAX_REQUESTS_IN_FLIGHT,
    shutdownDelayMs: config.SHUTDOWN_DELAY_MS,
    metricsAllow: config.METRICS_ALLOW,
    allowedHosts: config.ALLOWED_HOSTS,
    operator,
    resetOperatorTwoStep: config.OPERATOR_RESET_TWO_STEP,
    allowLoopbackPictures: config.TEST_ONLY_ALLOW_LOOPBACK_PICTURES,
    clientBuildDir,
    devMiddleware,
    ...createPageHandlers(loadBuild, isProduction ? "production" : "development"),
  });
  const { url, close } = await shop.listen(config.PORT, config.HOST).catch((error: unknown) => {
    throw listenFailure(error, config.PORT, config.HOST);
  });
  logger.info(
    { url, database: database.kind, payments: shop.services.provider.mode },
    `Storefront is ready at ${url}; ${await consoleDirections(url, shop.services.operators)}`,
  );
  if (!config.SMTP_URL)
    logger.warn(
      "E-mail: no SMTP_URL, so e-mails are not sent: each is kept in the database and logged with its links (docs/email.md)",
    );
  if (config.TEST_ONLY_STRIPE_API_URL) {
    logger.warn(
      { apiUrl: config.TEST_ONLY_STRIPE_API_URL },
      "Stripe mode for tests: the server's Stripe calls go to a test processor (TEST_ONLY_STRIPE_API_URL), not to Stripe",
    );
  }
  if (config.TEST_ONLY_ALLOW_LOOPBACK_PICTURES) {
    logger.warn(
      "Pictures for tests: a CSV import may fetch pictures from this machine's loopback addresses (TEST_ONLY_ALLOW_LOOPBACK_PICTURES)",
    );
  }
  if (shop.services.provider.mode === "built-in") {
    logger.warn(
      "Test mode: no real payments. The built-in processor takes test cards only; set the STRIPE_* keys to take payments (docs/stripe.md)",
    );
  }

  const stop = async () => {
    logger.info("shutting down: draining in-flight requests");
    // Whatever hangs (a database that stopped answering mid-close), the process is gone within a bounded time.
    setTimeout(() => {
      logger.error("shutdown took too long: exiting with requests unfinished");
      process.exit(1);
    }, config.SHUTDOWN_DELAY_MS + SHUTDOWN_LIMIT_MS).unref();
    await close();
    await database.close();
    logger.info("stopped");
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      void stop().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
    });
  }
  return { url, close: stop };
}

/** A listen error as one line naming the variable to change; anything unexpected goes on as it is. */
function listenFailure(error: unknown, port: number, host: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE")
    return new ConfigError(`PORT ${port} is already in use on HOST ${host}: stop what holds it, or set another PORT`);
  if (code === "EACCES")
    return new ConfigError(`PORT ${port} needs privileges this process lacks (EACCES): set a PORT above 1023`);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EADDRNOTAVAIL" || code === "EAI_NONAME") {
    return new ConfigError(
      `HOST ${host} is not an address of this machine (${code}): set HOST to one of its addresses, or 0.0.0.0 for all`,
    );
  }
  return error;
}

/**
 * The pages alone: the server's own (startServer), and the benchmark's floor's (bench/floor/server.ts), with the context
 * key its loaders read, so the floor renders the same markup with none of the shop around it.
 */
export const loadPageBuild = () => import("virtual:react-router/server-build") as Promise<ServerBuild>;
export { requestContext } from "./http/request-context";

/**
 * `npm run demo-catalogue [-- --remove]` (scripts/demo-catalogue.js): the same configuration and database as the
 * server (with PGlite, while no server holds DATA_DIR), brought up to date, then the demo catalogue added or removed.
 */
export async function runDemoCatalogue({
  remove,
  picturesDir,
}: {
  remove: boolean;
  picturesDir: string;
}): Promise<string> {
  loadEnvFile();
  const config = parseConfig(process.env);
  if (!config.DATABASE_URL) lockDataDir(config.DATA_DIR);
  const database = config.DATABASE_URL
    ? openDatabase({ kind: "postgres", url: config.DATABASE_URL })
    : openDatabase({ kind: "pglite", dataDir: config.DATA_DIR });
  try {
    await prepareDatabase(database.db);
    return await applyDemoCatalogue(database.db, { remove, picturesDir });
  } finally {
    await database.close();
  }
}
