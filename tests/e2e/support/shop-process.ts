import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** A production server of our own, as a separate process, for tests that kill and restart it. */
export interface ShopProcess {
  origin: string;
  child: ChildProcess;
  log: () => string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** `startTimeoutMs`: how long a start may take (a fresh embedded database on a busy machine takes most of a minute). */
export async function startShopProcess(
  env: Record<string, string>,
  port: number,
  startTimeoutMs = 60_000,
): Promise<ShopProcess> {
  const child = spawn(process.execPath, ["scripts/start.js"], {
    // Stories pay with test cards: allowed on PostgreSQL too, should DATABASE_URL be set.
    env: {
      ...process.env,
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      ALLOW_TEST_PAYMENTS: "true",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // "localhost", not 127.0.0.1: browsers treat it as a secure context, so the production server's Secure cookies stick.
  const origin = `http://localhost:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`shop exited early (${child.exitCode}):\n${output}`);
    const healthy = await fetch(`${origin}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { origin, child, log: () => output };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`shop did not become healthy:\n${output}`);
}

export async function killShop(shop: ShopProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (shop.child.exitCode !== null || shop.child.signalCode !== null) return;
  const exited = new Promise((resolve) => shop.child.once("exit", resolve));
  shop.child.kill(signal);
  await exited;
}
