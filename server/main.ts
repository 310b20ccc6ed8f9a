import { createRequestHandler, type ServerBuild } from "react-router";
import { parseConfig } from "./config";
import { openDatabase } from "./db/client";
import { createLogger } from "./logger";
import { createShop } from "./shop";

type NodeMiddleware = NonNullable<Parameters<typeof createShop>[0]["devMiddleware"]>;

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
  const config = parseConfig(process.env);
  const logger = createLogger(config.LOG_LEVEL);
  const database = config.DATABASE_URL
    ? openDatabase({ kind: "postgres", url: config.DATABASE_URL })
    : openDatabase({ kind: "pglite", dataDir: config.DATA_DIR });
  const isProduction = config.NODE_ENV === "production";

  const shop = await createShop({
    database,
    logger,
    isProduction,
    stripe: config.STRIPE_SECRET_KEY
      ? { secretKey: config.STRIPE_SECRET_KEY, publishableKey: config.STRIPE_PUBLISHABLE_KEY ?? "", webhookSecret: config.STRIPE_WEBHOOK_SECRET ?? "" }
      : undefined,
    processorUrl: config.PROCESSOR_URL,
    trustProxy: config.TRUST_PROXY,
    authAttemptsPerIp: config.AUTH_ATTEMPTS_PER_IP,
    clientBuildDir,
    devMiddleware,
    handlePageRequest: createRequestHandler(
      // A function, so that in development every request sees the latest route modules.
      () => import("virtual:react-router/server-build") as Promise<ServerBuild>,
      isProduction ? "production" : "development",
    ),
  });
  const { url, close } = await shop.listen(config.PORT, config.HOST);
  logger.info({ url, database: database.kind, payments: shop.services.provider.mode }, `Storefront is ready at ${url}`);

  const stop = async () => {
    logger.info("shutting down: draining in-flight requests");
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
