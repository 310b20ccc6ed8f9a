import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { RequestHandler } from "react-router";
import type { DatabaseHandle } from "./db/client";
import { createApp } from "./http/app";
import { DEFAULT_MAX_CONNECTIONS, limitConnections, serverOptions } from "./http/connection-limits";
import type { Logger } from "./logger";
import { createStripeTestProcessor, migrateProcessor } from "@storefront/stripe-test-processor";
import { createPaymentProvider, type PaymentProvider } from "./payments/payment-provider";
import { createRetentionSweep } from "./retention/retention-sweep";
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
  handlePageRequest?: RequestHandler;
  /** The pages without the operator console, for everybody who is not an operator (http/admin-guard.ts). */
  handlePublicPageRequest?: RequestHandler;
  clientBuildDir?: string;
  devMiddleware?: NodeMiddleware;
  /** Reverse proxies in front of the shop (TRUST_PROXY): client addresses are read from X-Forwarded-For. */
  trustedProxyHops?: number;
  authAttemptsPerIp?: number;
  /** Connections this process holds open at once; those over it are answered 503 (connection-limits.ts). */
  maxConnections?: number;
  newSessionsPerIp?: number;
  /** OPERATOR_EMAIL and its password: the account is made an operator at start (server/admin/operator-service.ts). */
  operator?: { email: string; password: string };
}

/** How long a stop waits for in-flight requests before closing their connections. */
const DRAIN_TIMEOUT_MS = 10_000;
const WEBHOOK_DELIVERY_INTERVAL_MS = 1_000;

/**
 * Assembles one shop instance from a database: prepare the schema, choose the card processor, build the services
 * and the HTTP app. `listen` starts serving (and, with the built-in processor, its webhook deliveries); the
 * returned `close` drains in-flight requests and stops everything it started. The process entry (main.ts)
 * and the integration tests assemble the shop the same way.
 */
export async function createShop(options: ShopOptions) {
  const { database, logger } = options;
  await prepareDatabase(database.db);

  // Known once listening: the built-in processor is reached over HTTP at this server's own address.
  let selfOrigin: URL | undefined;
  if (!options.stripe) await migrateProcessor(database.db);
  const builtIn = options.stripe
    ? null
    : await createStripeTestProcessor({ db: database.db, logger, webhookUrl: () => selfOrigin && new URL("/webhooks/stripe", selfOrigin).toString() });
  const provider: PaymentProvider = builtIn
    ? createPaymentProvider({
        mode: "built-in",
        ...builtIn.keys,
        selfOrigin: () => {
          if (!selfOrigin) throw new Error("The shop is not listening yet");
          return selfOrigin;
        },
      })
    : createPaymentProvider({
        mode: options.processorUrl ? "built-in" : "stripe",
        ...(options.stripe as NonNullable<ShopOptions["stripe"]>),
        processorUrl: options.processorUrl,
      });
  const services = createServices(database, logger, { provider, authAttemptsPerIp: options.authAttemptsPerIp, newSessionsPerIp: options.newSessionsPerIp });
  const retention = createRetentionSweep({ db: database.db, logger });
  if (options.operator) {
    const result = await services.operators.bootstrapOperator(options.operator.email, options.operator.password);
    // The e-mail address, never the password.
    logger.info({ operator: options.operator.email, result }, "operator from OPERATOR_EMAIL is ready");
  }

  const app = createApp({
    services,
    publicUrl: options.publicUrl,
    trustedProxyHops: options.trustedProxyHops,
    clientBuildDir: options.clientBuildDir,
    handlePageRequest: options.handlePageRequest,
    handlePublicPageRequest: options.handlePublicPageRequest,
    processor: builtIn?.app,
  });

  async function listen(port: number, host = "127.0.0.1") {
    const listener = getRequestListener(app.fetch);
    const devMiddleware = options.devMiddleware;
    const server = createServer(serverOptions, devMiddleware ? (request, response) => devMiddleware(request, response, () => listener(request, response)) : listener);
    limitConnections(server, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
    await new Promise<void>((resolve, reject) => {
      // A port in use or a host that is not this machine's: the caller says which variable is wrong.
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
    // Payments that succeeded while no server was up to record them (a crash after the charge) get their orders.
    void services.checkout.recordMissedOrders().catch((error: unknown) => logger.error({ err: error }, "checkout: sweep for missed orders failed"));

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        await builtIn?.stop();
        await retention.stop();
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
        await drained;
        clearTimeout(timer);
      })());
    return { port: address.port, url: `http://localhost:${address.port}`, server, close };
  }

  // Tests play the outside world's part (a browser confirming a card, a forged webhook) with the built-in processor's keys.
  return { app, services, retention, listen, processorKeys: builtIn?.keys };
}
