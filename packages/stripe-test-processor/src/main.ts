/**
 * The processor as its own process (`npm run processor`): the same API and webhook delivery a shop can mount, served
 * alone on its own port over its own database (PGlite in DATA_DIR, or PostgreSQL at DATABASE_URL). Run directly by
 * Node's type stripping. Stops cleanly on SIGTERM or SIGINT.
 */
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { PGlite } from "@electric-sql/pglite";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import { pino } from "pino";
import { createStripeTestProcessor, migrateProcessor } from "./index.ts";
import type { ProcessorTables } from "./processor-tables.ts";
import { parseStandaloneConfig, type StandaloneConfig } from "./standalone-config.ts";

const WEBHOOK_RETRY_INTERVAL_MS = 1_000;

function readConfig(): StandaloneConfig {
  try {
    return parseStandaloneConfig(process.env);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
const config = readConfig();
const logger = pino({ level: config.LOG_LEVEL, base: undefined });

function openDatabase(): Kysely<ProcessorTables> {
  if (config.DATABASE_URL) {
    const pool = new pg.Pool({
      connectionString: config.DATABASE_URL,
      max: 10,
      statement_timeout: 10_000,
      connectionTimeoutMillis: 5_000,
    });
    // A lost connection reaches its query as an error; without this listener node-postgres would crash the process.
    pool.on("error", () => {});
    return new Kysely({ dialect: new PostgresDialect({ pool }) });
  }
  mkdirSync(config.DATA_DIR, { recursive: true });
  return new Kysely({ dialect: new PGliteDialect({ pglite: new PGlite({ dataDir: config.DATA_DIR }) }) });
}

const db = openDatabase();
await migrateProcessor(db);
const webhookUrl = config.WEBHOOK_URL;
const processor = await createStripeTestProcessor({
  db,
  logger,
  webhookUrl: () => webhookUrl,
  webhookRetryTimeScale: config.WEBHOOK_RETRY_TIME_SCALE,
  keys: {
    secretKey: config.STRIPE_SECRET_KEY,
    publishableKey: config.STRIPE_PUBLISHABLE_KEY,
    webhookSecret: config.STRIPE_WEBHOOK_SECRET,
  },
});

const app = new Hono();
// A shop's payment page confirms cards from its own origin, with the publishable key and no cookies, as Stripe.js
// does against api.stripe.com (which answers any origin).
app.use(
  "/v1/*",
  cors({
    origin: "*",
    allowMethods: ["GET", "POST"],
    allowHeaders: ["authorization", "content-type", "idempotency-key", "stripe-version"],
  }),
);
app.route("/", processor.app);

const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, (info: AddressInfo) => {
  const url = `http://${info.address.includes(":") ? `[${info.address}]` : info.address}:${info.port}`;
  logger.info(
    { url, database: config.DATABASE_URL ? "postgres" : "pglite", webhookUrl },
    `Stripe test processor is ready at ${url}`,
  );
});
processor.start(WEBHOOK_RETRY_INTERVAL_MS);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    void (async () => {
      await processor.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.destroy();
      logger.info("stopped");
      process.exit(0);
    })();
  });
}
