import pg from "pg";

/**
 * What PostgreSQL's sessions on one database were waiting for while load ran, sampled from pg_stat_activity.
 * A soak's p99 on PostgreSQL is set by its slowest 1 %: this says whether those waited on the server's disk (a commit
 * cannot answer before its WAL is flushed) rather than on the shop.
 */
export interface PostgresWaits {
  intervalMs: number;
  samples: number;
  /** Samples in which at least one session of the database was waiting on each wait event ("type/name"), most first. */
  events: { event: string; samples: number }[];
  /**
   * Stretches in which some session's commit waited for the WAL to reach the disk (IO/WALSync, or LWLock/WALWrite
   * behind the one that syncs) in consecutive samples: how many lasted at least STALL_MS, the longest, and their total.
   */
  walFlushStalls: { atLeastMs: number; count: number; longestMs: number; totalMs: number };
}

const WAL_FLUSH_WAITS = new Set(["IO/WALSync", "IO/WALWrite", "LWLock/WALWrite"]);
const STALL_MS = 100;

/**
 * Polls pg_stat_activity every `intervalMs` for the sessions on `databaseUrl`'s database (other than its own) until
 * stopped. One connection, one small query a poll: a few percent of one core.
 */
export async function watchPostgresWaits(
  databaseUrl: string,
  intervalMs = 50,
): Promise<{ stop(): Promise<PostgresWaits> }> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  const eventSamples = new Map<string, number>();
  const stalls: number[] = [];
  let samples = 0;
  let stallStartedAt: number | undefined;
  let running = true;

  const loop = (async () => {
    while (running) {
      const sampledAt = performance.now();
      try {
        const { rows } = await client.query<{ event: string }>(
          `select wait_event_type || '/' || wait_event as event from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and wait_event is not null`,
        );
        samples += 1;
        const events = new Set(rows.map((row) => row.event));
        for (const event of events) eventSamples.set(event, (eventSamples.get(event) ?? 0) + 1);
        const flushing = [...events].some((event) => WAL_FLUSH_WAITS.has(event));
        if (flushing) stallStartedAt ??= sampledAt;
        else if (stallStartedAt !== undefined) {
          stalls.push(sampledAt - stallStartedAt);
          stallStartedAt = undefined;
        }
      } catch {
        // The server is being stopped or restarted: the figures cover what was sampled.
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (performance.now() - sampledAt))));
    }
  })();

  return {
    async stop() {
      running = false;
      await loop;
      if (stallStartedAt !== undefined) stalls.push(performance.now() - stallStartedAt);
      await client.end().catch(() => {});
      const long = stalls.filter((ms) => ms >= STALL_MS);
      return {
        intervalMs,
        samples,
        events: [...eventSamples]
          .map(([event, count]) => ({ event, samples: count }))
          .sort((a, b) => b.samples - a.samples),
        walFlushStalls: {
          atLeastMs: STALL_MS,
          count: long.length,
          longestMs: Math.round(Math.max(0, ...long)),
          totalMs: Math.round(long.reduce((sum, ms) => sum + ms, 0)),
        },
      };
    },
  };
}
