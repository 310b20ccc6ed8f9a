// The test processor as a process of its own, as an operator would run it, for stories that need it apart from the
// shop.

import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { createInterface } from "node:readline";

const PROCESSOR_ENTRY = new URL("../../packages/stripe-test-processor/src/main.ts", import.meta.url);

/** Made-up test keys, given to the processor and the shop as an operator would. */
export const SEPARATE_PROCESSOR_KEYS = {
  secretKey: "sk_test_SeparateProcessorSecret0001",
  publishableKey: "pk_test_SeparateProcessorPublic0001",
  webhookSecret: "whsec_SeparateProcessorHook0001",
};

/** A port nothing listens on now, for a process whose URL another must know before either starts. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `npm run processor`, as an operator starts it; resolves once it says it is ready. */
export async function startProcessorProcess(port: number, webhookUrl: string, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [PROCESSOR_ENTRY.pathname], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATA_DIR: dataDir,
      WEBHOOK_URL: webhookUrl,
      STRIPE_SECRET_KEY: SEPARATE_PROCESSOR_KEYS.secretKey,
      STRIPE_PUBLISHABLE_KEY: SEPARATE_PROCESSOR_KEYS.publishableKey,
      STRIPE_WEBHOOK_SECRET: SEPARATE_PROCESSOR_KEYS.webhookSecret,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line.includes("Stripe test processor is ready")) return child;
  }
  throw new Error(`the processor exited (${child.exitCode}) before it was ready`);
}

/** Stops a processor started above and waits for it to go. */
export async function stopProcessorProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}
