import { spawn, type ChildProcess } from "node:child_process";

/** The built-in test processor as its own process (`npm run processor`), for stories of a shop that reaches it over HTTP. */
export interface ProcessorProcess {
  origin: string;
  child: ChildProcess;
  log: () => string;
}

/** Starts packages/stripe-test-processor/src/main.ts with `env` (its keys, WEBHOOK_URL, DATA_DIR) and waits until it is ready. */
export async function startProcessorProcess(env: Record<string, string>, port: number): Promise<ProcessorProcess> {
  const child = spawn(process.execPath, ["packages/stripe-test-processor/src/main.ts"], {
    env: { ...process.env, LOG_LEVEL: "info", HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const origin = `http://127.0.0.1:${port}`;
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`processor exited early (${child.exitCode}):\n${output}`);
    if (output.includes(`Stripe test processor is ready at ${origin}`)) return { origin, child, log: () => output };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`processor did not become ready:\n${output}`);
}

export async function stopProcessorProcess(processor: ProcessorProcess): Promise<void> {
  if (processor.child.exitCode !== null || processor.child.signalCode !== null) return;
  const exited = new Promise((resolve) => processor.child.once("exit", resolve));
  processor.child.kill("SIGTERM");
  await exited;
}
