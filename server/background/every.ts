// How the server's sweeps run: one at a time per process, again after each run ends, logging what they decided and any
// failure, stopped cleanly at shutdown.

import type { Logger } from "#server/logger";

/**
 * Runs a sweep at start and then `intervalMs` after each run ends (never two at once in one process), logging what
 * each run decided when it decided anything, and any failure; `stop()` waits for a run in progress. Instances each run
 * their own: the sweeps it serves decide each row once in the database, whoever gets there first.
 */
export function every(
  intervalMs: number,
  run: () => Promise<{ sent: number; skipped: number }>,
  { logger, name }: { logger: Logger; name: string },
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;

  function tick() {
    running = run()
      .then((counts) => {
        if (counts.sent + counts.skipped > 0) logger.info(counts, `${name}: decided`);
      })
      .catch((error: unknown) => logger.error({ err: error }, `${name}: sweep failed`))
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, intervalMs);
        timer.unref?.();
      });
  }

  return {
    start() {
      stopped = false;
      timer = setTimeout(tick, 0);
      timer.unref?.();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
