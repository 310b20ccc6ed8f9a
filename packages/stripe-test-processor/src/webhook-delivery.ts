import { preparedStatement } from "@storefront/kysely-prepared";
import { sql, type UpdateObject } from "kysely";
import Stripe from "stripe";
import type { ProcessorDB, ProcessorTables } from "./processor-tables.ts";
import type { Logger } from "pino";
import { purgeExpiredIdempotencyKeys } from "./idempotency.ts";
import { getProcessorKeys } from "./processor-keys.ts";

export interface WebhookDeliveryOptions {
  db: ProcessorDB;
  logger: Logger;
  /** Where the shop receives webhooks; a function because the port is known only once the server listens. No URL: nothing is sent. */
  webhookUrl: () => string | undefined;
  fetch?: typeof fetch;
  /** Events claimed per round. */
  batchSize?: number;
  /** How long one POST may take before it counts as failed. */
  requestTimeoutMs?: number;
  /** Stripe's test-mode schedule (the default: the processor takes test keys only) or its live one. */
  retrySchedule?: RetryScheduleName;
  /** Compresses the schedule for tests (0.001: an hour becomes 3.6 s); 1 is Stripe's own. */
  retryTimeScale?: number;
}

/**
 * Stripe's retry schedules (docs.stripe.com/webhooks#retries): in test mode three retries over a few hours; in live
 * mode, retries with exponential backoff for up to three days. Delays are after the first attempt (made at once).
 */
export const RETRY_SCHEDULES = {
  test: { delaysSeconds: [30 * 60, 60 * 60, 2 * 60 * 60], giveUpAfterSeconds: 4 * 60 * 60 },
  live: {
    delaysSeconds: [5 * 60, 30 * 60, 60 * 60, 2 * 60 * 60, 5 * 60 * 60, 10 * 60 * 60, 10 * 60 * 60, 12 * 60 * 60],
    // After the listed delays, every 12 hours, until three days have passed.
    giveUpAfterSeconds: 3 * 24 * 60 * 60,
  },
} as const;

export type RetryScheduleName = keyof typeof RETRY_SCHEDULES;

/**
 * The wait before the next attempt after `attempts` failed ones, or null when the schedule has none left. `timeScale`
 * compresses the schedule (tests: 1/1800 turns half an hour into a second); 1 is Stripe's own.
 */
export function retryDelaySeconds(
  attempts: number,
  schedule: RetryScheduleName = "test",
  timeScale = 1,
): number | null {
  const { delaysSeconds } = RETRY_SCHEDULES[schedule];
  const index = Math.max(0, attempts - 1);
  const delay =
    index < delaysSeconds.length
      ? delaysSeconds[index]
      : schedule === "live"
        ? delaysSeconds[delaysSeconds.length - 1]
        : undefined;
  return delay === undefined ? null : delay * timeScale;
}

/** Events an instance has claimed (by `claimDueEvents`, or as it recorded them): theirs to send until the lease ends. */
interface ClaimedEvent {
  id: string;
  type: string;
  payload: string;
  attempts: number;
  created_at: Date;
  claimToken: string;
}

/** A claim taken as events are recorded, by the instance that will send them at once (`newClaim`). */
export interface EventClaim {
  token: string;
  leaseSeconds: number;
}

const PURGE_EVERY_MS = 60_000;
const MAX_ROUNDS_PER_CALL = 10;
/** An endpoint's answer up to this long is read to its end rather than cancelled (see `post`). */
const SHORT_ANSWER_BYTES = 64 * 1024;

/**
 * Sends recorded events to the shop's webhook URL, signed as Stripe signs them, until a 2xx comes back.
 *
 * Several instances may share one PostgreSQL: each round claims due events with a lease in ONE auto-committed
 * statement (`update … where id in (select … for update skip locked) returning …`), so no two instances send the same
 * event at once and no transaction stays open during the HTTP call (PGlite has one connection, and the shop's webhook
 * handler needs it). A claim whose instance died expires after the lease, and the event is due again.
 */
export function createWebhookDelivery({
  db,
  logger,
  webhookUrl,
  fetch: send = fetch,
  batchSize = 20,
  requestTimeoutMs = 10_000,
  retrySchedule = "test",
  retryTimeScale = 1,
}: WebhookDeliveryOptions) {
  const giveUpAfterSeconds = RETRY_SCHEDULES[retrySchedule].giveUpAfterSeconds * retryTimeScale;
  /** Longer than one POST can take, so a live claim never expires mid-request. */
  const leaseSeconds = Math.ceil(requestTimeoutMs / 1000) * 3;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<number> | undefined;
  let runAgain = false;
  let lastPurge = 0;

  /** The shop's URL, or none yet (it is known once the server listens). */
  function currentWebhookUrl(): string | undefined {
    try {
      return webhookUrl() || undefined;
    } catch {
      return undefined;
    }
  }

  /** Every event delivered is marked so, if this instance's claim still holds: built and compiled once. */
  const markDelivered = preparedStatement(db, ["id", "claimToken"], (db, values: { id: string; claimToken: string }) =>
    db
      .updateTable("processor_events")
      .set({
        delivered_at: sql`now()`,
        last_error: sql.lit(null),
        claim_token: sql.lit(null),
        claimed_until: sql.lit(null),
      })
      .where("id", "=", values.id)
      .where("claim_token", "=", values.claimToken),
  );

  async function claimDueEvents() {
    const claimToken = crypto.randomUUID();
    const rows = await db
      .updateTable("processor_events")
      .set({
        claim_token: claimToken,
        claimed_until: sql`now() + make_interval(secs => ${leaseSeconds})`,
        attempts: sql`attempts + 1`,
      })
      .where("id", "in", (query) =>
        query
          .selectFrom("processor_events")
          .select("id")
          .where("delivered_at", "is", null)
          .where("gave_up_at", "is", null)
          .where("next_attempt_at", "<=", sql<Date>`now()`)
          .where((where) =>
            where.or([where("claimed_until", "is", null), where("claimed_until", "<=", sql<Date>`now()`)]),
          )
          .orderBy("next_attempt_at")
          .limit(batchSize)
          .forUpdate()
          .skipLocked(),
      )
      .returning(["id", "type", "payload", "attempts", "created_at"])
      .execute();
    return rows.map((row) => ({ ...row, claimToken }));
  }

  async function post(url: string, payload: string, secret: string): Promise<string | null> {
    try {
      const response = await send(url, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          // Stripe's signature (t=<seconds>,v1=<HMAC-SHA256>), made by the SDK that checks it; constructEvent refuses
          // a timestamp older than five minutes, so every attempt is signed afresh.
          "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret }),
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        },
        body: payload,
        redirect: "manual",
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      // A short answer (the shop's is a few bytes) is read to its end: cancelling a body costs undici an AbortError
      // with its stack, more than reading it. One of unknown or larger length is cancelled unread.
      const length = Number(response.headers.get("content-length") ?? Number.NaN);
      if (length <= SHORT_ANSWER_BYTES) await response.arrayBuffer();
      else await response.body?.cancel();
      return response.ok ? null : `HTTP ${response.status}`;
    } catch (error) {
      return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : "request failed";
    }
  }

  /** One attempt at an event this instance has claimed: delivered, or its next attempt scheduled, or given up. */
  async function attempt(url: string, webhookSecret: string, event: ClaimedEvent): Promise<void> {
    const failure = await post(url, event.payload, webhookSecret);
    /** Records the attempt, if this instance's claim still holds. */
    const finish = (set: UpdateObject<ProcessorTables, "processor_events">) =>
      db
        .updateTable("processor_events")
        .set({ ...set, claim_token: null, claimed_until: null })
        .where("id", "=", event.id)
        .where("claim_token", "=", event.claimToken)
        .execute();
    if (failure === null) {
      await markDelivered({ id: event.id, claimToken: event.claimToken });
      logger.info({ eventId: event.id, type: event.type, attempts: event.attempts }, "processor: webhook delivered");
      return;
    }
    const delaySeconds = retryDelaySeconds(event.attempts, retrySchedule, retryTimeScale);
    const ageSeconds = (Date.now() - event.created_at.getTime()) / 1000;
    if (delaySeconds === null || ageSeconds + delaySeconds > giveUpAfterSeconds) {
      await finish({ gave_up_at: sql`now()`, last_error: failure });
      logger.error(
        { eventId: event.id, type: event.type, attempts: event.attempts, failure, schedule: retrySchedule },
        "processor: webhook given up",
      );
      return;
    }
    await finish({ next_attempt_at: sql`now() + make_interval(secs => ${delaySeconds})`, last_error: failure });
    logger.warn(
      { eventId: event.id, type: event.type, attempts: event.attempts, failure, retryInSeconds: delaySeconds },
      "processor: webhook delivery failed",
    );
  }

  async function deliverOneRound(url: string): Promise<number> {
    const events = await claimDueEvents();
    if (events.length === 0) return 0;
    const { webhookSecret } = await getProcessorKeys(db);
    await Promise.all(events.map((event) => attempt(url, webhookSecret, event)));
    return events.length;
  }

  /** Claimed events being sent by `deliverClaimed`, for `stop` to wait for. */
  const sending = new Set<Promise<void>>();

  /** Attempts every due event once (in rounds of `batchSize`); resolves with how many were attempted. */
  async function deliverDue(): Promise<number> {
    const url = currentWebhookUrl();
    if (!url) return 0;
    let attempted = 0;
    for (let round = 0; round < MAX_ROUNDS_PER_CALL; round++) {
      const count = await deliverOneRound(url);
      attempted += count;
      if (count < batchSize) break;
    }
    return attempted;
  }

  /** One round at a time per instance; a request for another while one runs is folded into a rerun. */
  function runOnce(): Promise<number> {
    if (running) {
      runAgain = true;
      return running;
    }
    running = (async () => {
      let attempted = 0;
      do {
        runAgain = false;
        attempted += await deliverDue();
      } while (runAgain);
      return attempted;
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  async function tick(): Promise<void> {
    if (Date.now() - lastPurge >= PURGE_EVERY_MS) {
      lastPurge = Date.now();
      await purgeExpiredIdempotencyKeys(db);
    }
    await runOnce();
  }

  return {
    /** Every due event attempted now, after those being sent under a claim: resolves with how many were due. */
    async deliverDue(): Promise<number> {
      await Promise.all(sending);
      return runOnce();
    },

    /** Right after a change that recorded an event: try now, without making the API caller wait. */
    deliverSoon(): void {
      runOnce().catch((error: unknown) => logger.error({ err: error }, "processor: webhook delivery round failed"));
    },

    /**
     * A claim for events about to be recorded, which this instance then sends at once (`deliverClaimed`) without a
     * statement to claim them; null while there is nowhere to send them (the host is not listening yet). Should the
     * instance die first, the claim runs out after its lease and the events are due again, for any instance.
     */
    newClaim(): EventClaim | null {
      return currentWebhookUrl() ? { token: crypto.randomUUID(), leaseSeconds } : null;
    },

    /** Sends events recorded under `claim` (`newClaim`), now, without making the API caller wait. */
    deliverClaimed(claim: EventClaim, events: readonly { id: string; type: string; payload: string }[]): void {
      const url = currentWebhookUrl();
      if (!url || events.length === 0) return;
      const created_at = new Date();
      const sent = (async () => {
        const { webhookSecret } = await getProcessorKeys(db);
        await Promise.all(
          events.map((event) =>
            attempt(url, webhookSecret, { ...event, attempts: 1, created_at, claimToken: claim.token }),
          ),
        );
      })()
        .catch((error: unknown) => logger.error({ err: error }, "processor: sending claimed webhook events failed"))
        .finally(() => sending.delete(sent));
      sending.add(sent);
    },

    /** Retries due events every `intervalMs` (and purges expired idempotency keys once a minute) until stop(). */
    start(intervalMs = 1000): void {
      if (timer) return;
      timer = setInterval(() => {
        tick().catch((error: unknown) => logger.error({ err: error }, "processor: webhook delivery round failed"));
      }, intervalMs);
      timer.unref();
    },

    /** Stops the loop and waits for a round in flight, and for claimed events being sent. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
      await Promise.all(sending);
    },
  };
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
