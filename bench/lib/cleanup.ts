/**
 * Everything the bench must undo (child servers, temporary databases and directories), run last-in first-out
 * on normal completion, on failure, on Ctrl-C / SIGTERM and when the overall time limit is reached.
 */
type CleanupFn = () => Promise<void> | void;

const pending: { label: string; fn: CleanupFn }[] = [];
/** Synchronous last resorts for `process.on("exit")`, e.g. SIGKILL a child that is still alive. */
const onExitSync = new Set<() => void>();
let shuttingDown = false;

/** True once a signal or the time limit has started the final clean-up: start nothing new. */
export function isShuttingDown(): boolean {
  return shuttingDown;
}

/** Registers an undo step; returns a function that runs it now (once) and unregisters it. */
export function deferCleanup(label: string, fn: CleanupFn): () => Promise<void> {
  const entry = { label, fn };
  pending.push(entry);
  return async () => {
    const index = pending.indexOf(entry);
    if (index === -1) return;
    pending.splice(index, 1);
    await entry.fn();
  };
}

export function onExitSyncCleanup(fn: () => void): () => void {
  onExitSync.add(fn);
  return () => onExitSync.delete(fn);
}

/** Runs every pending undo step, newest first. A failing step is reported and does not stop the others. */
export async function runAllCleanups({ final = false } = {}): Promise<void> {
  if (final) shuttingDown = true;
  while (pending.length > 0) {
    const entry = pending.pop()!;
    try {
      await withTimeout(Promise.resolve().then(entry.fn), 30_000, `cleanup "${entry.label}"`);
    } catch (error) {
      console.error(`bench: cleanup "${entry.label}" failed: ${error instanceof Error ? error.message : error}`);
    }
  }
}

let installed = false;

/** Ctrl-C, SIGTERM and process exit all clean up before the bench goes away. */
export function installCleanupHandlers(): void {
  if (installed) return;
  installed = true;
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.once(signal, () => {
      shuttingDown = true;
      console.error(`\nbench: ${signal} received, stopping servers and dropping temporary databases...`);
      void runAllCleanups({ final: true }).finally(() => process.exit(code));
    });
  }
  process.on("exit", () => {
    for (const fn of onExitSync) {
      try {
        fn();
      } catch {
        // Best effort only: the process is going away.
      }
    }
  });
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
