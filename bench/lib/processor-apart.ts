import { deferCleanup } from "./cleanup.ts";
import { createTemporaryDatabase } from "./postgres.ts";
import {
  freePort,
  makeProcessorKeys,
  processorKeysEnv,
  startProcessorServer,
  startShopServer,
  type ChildServer,
  type DatabaseChoice,
  type RunningServer,
} from "./server.ts";
import { projectRoot, type Settings } from "./settings.ts";

/** The built-in processor as its own process, and a shop that pays through it. */
export interface ProcessorApart {
  processor: ChildServer;
  shop: RunningServer;
  /** Where the processor keeps its intents, for reports. */
  processorDatabase: string;
}

/**
 * Runs `run` with the processor as its own process (`npm run processor`) and a second shop on `server`'s database
 * pointed at it with PROCESSOR_URL and the same three keys, as an operator would run them; both stop afterwards
 * (`run` may stop them first, for their stop information) and the processor's database is dropped.
 */
export async function withProcessorApart<T>(
  server: RunningServer,
  settings: Pick<Settings, "startTimeoutS" | "postgresAdminUrl">,
  log: (message: string) => void,
  run: (apart: ProcessorApart) => Promise<T>,
): Promise<T> {
  const keys = makeProcessorKeys();
  const startTimeoutMs = settings.startTimeoutS * 1000;
  // Each needs the other's address before either starts: the shop's port is chosen first, the processor's after.
  const shopPort = await freePort();

  // The processor's tables go in a database of the same kind as the mounted processor's, but never in the shop's
  // own: the mounted processor of the shop still running there would deliver the new one's events itself.
  let processorDatabaseUrl: string | undefined;
  let processorDatabase = "PGlite (its own DATA_DIR)";
  let dropProcessorDatabase = async () => {};
  if (server.database === "postgres") {
    const database = await createTemporaryDatabase(settings.postgresAdminUrl);
    dropProcessorDatabase = deferCleanup(`drop database ${database.name}`, () => database.drop());
    processorDatabaseUrl = database.url;
    processorDatabase = `PostgreSQL (${database.name})`;
  }
  const shopDatabase: DatabaseChoice =
    server.databaseUrl === undefined
      ? { kind: "pglite" }
      : { kind: "postgres", url: server.databaseUrl, name: new URL(server.databaseUrl).pathname.slice(1) };

  try {
    log(`starting the processor on its own (${processorDatabase})...`);
    const processor = await startProcessorServer(projectRoot, {
      keys,
      webhookUrl: `http://127.0.0.1:${shopPort}/webhooks/stripe`,
      databaseUrl: processorDatabaseUrl,
      startTimeoutMs,
    });
    try {
      log(`processor ready at ${processor.baseUrl}; starting a shop on ${shopDatabase.kind} that pays through it...`);
      const shop = await startShopServer(projectRoot, shopDatabase, {
        startTimeoutMs,
        port: shopPort,
        env: { PROCESSOR_URL: processor.baseUrl, ...processorKeysEnv(keys) },
      });
      try {
        return await run({ processor, shop, processorDatabase });
      } finally {
        await shop.stop();
      }
    } finally {
      await processor.stop();
    }
  } finally {
    await dropProcessorDatabase();
  }
}
