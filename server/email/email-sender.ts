// Delivering the outbox: each instance claims due e-mails with FOR UPDATE SKIP LOCKED, sends them, retries with
// backoff, and sleeps while there is nothing to send.

import { sql } from "kysely";
import type { DB } from "#server/db/client";
import type { Logger } from "#server/logger";
import { PermanentEmailFailure, type EmailTransport } from "./email-transport";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export interface EmailSenderOptions {
  db: DB;
  transport: EmailTransport;
  logger: Logger;
  /** How often the outbox is looked at while there is work (and right after a pass that found some). */
  pollIntervalMs?: number;
  /** The longest wait between passes that find nothing (5 × pollIntervalMs): an idle shop asks rarely. */
  idlePollMs?: number;
  /** The first retry's wait; each next one doubles, up to a day. */
  retryBaseMs?: number;
  /** How long a claimed e-mail is this sender's: past it (a crash mid-send) another sender sends it again, with the same Message-ID. */
  leaseMs?: number;
  /** Attempts before giving up on an e-mail the server keeps deferring. */
  maxAttempts?: number;
  /**
   * Who the e-mails are from as the shop's settings say now: the console's "From" name (else MAIL_FROM's) and the
   * support address replies go to (none when the shop has not given one).
   */
  sender?: () => Promise<{ fromName: string; replyTo: string | null }>;
}

const BATCH = 20;
/** After an e-mail is written here: long enough for its transaction to commit, short enough not to be noticed. */
const WAKE_DELAY_MS = 100;
/** E-mails whose link signs someone in or proves an address: once an SMTP server has them, the outbox keeps no copy of the link. */
const LINK_BEARING_KINDS = new Set(["password-reset", "welcome", "email-verification"]);
const LINK_REMOVED = "(Removed after delivery: this e-mail held a single-use link.)";
/** Links in a logged e-mail: what a local trial follows. */
const LINK = /https?:\/\/[^\s)>"]+/g;

/**
 * The links of a logged e-mail worth following: without the sentence's full stop or comma after them, and without
 * the bare shop address every e-mail closes with ("http://localhost:3000/."), which leads nowhere in particular.
 */
export function linksToFollow(text: string): string[] {
  const links = (text.match(LINK) ?? []).map((link) => link.replace(/[.,;:!?]+$/, ""));
  return [...new Set(links)].filter((link) => {
    const url = URL.parse(link);
    return url !== null && (url.pathname !== "/" || url.search !== "");
  });
}

/**
 * The outbox's delivering side. Each pass claims due e-mails with FOR UPDATE SKIP LOCKED, pushing their
 * next_attempt_at a lease ahead in the same statement, so that any number of instances share the outbox and each
 * e-mail is claimed by one of them; the send happens after that statement committed, with no transaction open. A
 * sender that dies mid-send leaves the lease to run out, and the e-mail is sent again with the same Message-ID
 * (at-least-once, a repeat recognisable). Temporary failures wait a minute, then 2, 4, … up to a day.
 */
export function createEmailSender({
  db,
  transport,
  logger,
  pollIntervalMs = 1_000,
  idlePollMs = 5 * pollIntervalMs,
  retryBaseMs = MINUTE,
  leaseMs = 2 * MINUTE,
  maxAttempts = 16,
  sender,
}: EmailSenderOptions) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;

  async function claim() {
    const { rows } = await sql<{
      id: string;
      message_id: string;
      kind: string;
      recipient: string;
      subject: string;
      text_body: string;
      html_body: string;
      headers: Record<string, string> | null;
      attempts: number;
    }>`
      update email_outbox set attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
      where id in (
        select id from email_outbox where status = 'pending' and next_attempt_at <= now()
        order by next_attempt_at limit ${BATCH} for update skip locked)
      returning id, message_id, kind, recipient, subject, text_body, html_body, headers, attempts`.execute(db);
    return rows;
  }

  /** One pass: every due e-mail it could claim is sent (or rescheduled). Returns how many were delivered. */
  async function deliverDue(): Promise<number> {
    let delivered = 0;
    for (;;) {
      const claimed = await claim();
      for (const email of claimed) {
        if (stopped) return delivered;
        try {
          const from = sender ? await sender() : null;
          await transport.send({
            messageId: email.message_id,
            to: email.recipient,
            subject: email.subject,
            text: email.text_body,
            html: email.html_body,
            ...(email.headers ? { headers: email.headers } : {}),
            ...(from ? { fromName: from.fromName } : {}),
            ...(from?.replyTo ? { replyTo: from.replyTo } : {}),
          });
        } catch (error) {
          const failure = deliveryFailure(email, error);
          const facts = { messageId: email.message_id, kind: email.kind, reason: failure.reason };
          if (failure.waitMs === null) logger.error(facts, "email: not delivered, given up");
          else
            logger.warn(
              { ...facts, retryInSeconds: Math.round(failure.waitMs / 1000) },
              "email: delivery failed, will retry",
            );
          await recordFailure(email, failure);
          continue;
        }
        if (transport.kind === "log") {
          // No SMTP: the log is how a local trial reads its e-mail, links included.
          logger.info(
            { to: email.recipient, subject: email.subject, links: linksToFollow(email.text_body) },
            "email: not sent (no SMTP_URL), logged",
          );
        } else {
          logger.info({ messageId: email.message_id, kind: email.kind }, "email: sent");
        }
        const isScrubbed = transport.kind === "smtp" && LINK_BEARING_KINDS.has(email.kind);
        await db
          .updateTable("email_outbox")
          .set({
            status: transport.kind === "log" ? "logged" : "sent",
            sent_at: new Date(),
            last_error: null,
            ...(isScrubbed ? { text_body: LINK_REMOVED, html_body: LINK_REMOVED } : {}),
          })
          .where("id", "=", email.id)
          .where("status", "=", "pending")
          .execute();
        delivered++;
      }
      if (claimed.length < BATCH) return delivered;
    }
  }

  /** Why a delivery failed, and when to try again (null: never, the e-mail is given up). */
  function deliveryFailure(email: { attempts: number }, error: unknown): { reason: string; waitMs: number | null } {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const isPermanent = error instanceof PermanentEmailFailure || email.attempts >= maxAttempts;
    return { reason, waitMs: isPermanent ? null : Math.min(retryBaseMs * 2 ** (email.attempts - 1), DAY) };
  }

  async function recordFailure(email: { id: string }, { reason, waitMs }: { reason: string; waitMs: number | null }) {
    if (waitMs === null) {
      await db
        .updateTable("email_outbox")
        .set({ status: "failed", last_error: reason })
        .where("id", "=", email.id)
        .where("status", "=", "pending")
        .execute();
      return;
    }
    await db
      .updateTable("email_outbox")
      .set({ last_error: reason, next_attempt_at: sql`now() + make_interval(secs => ${waitMs / 1000})` })
      .where("id", "=", email.id)
      .where("status", "=", "pending")
      .execute();
  }

  // While passes find nothing the wait between them doubles, up to idlePollMs: an idle shop asks rarely, and an
  // e-mail this instance writes wakes it (wake), so only another instance's e-mail waits for the slower pass.
  let waitMs = pollIntervalMs;
  let isPassing = false;
  let wokenMeanwhile = false;

  function schedule(ms: number) {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(tick, ms);
  }

  function tick() {
    isPassing = true;
    running = deliverDue().catch((error: unknown) => {
      // A database outage: the next tick tries again.
      logger.error({ err: error }, "email: outbox pass failed");
      return 0;
    });
    void running.then((delivered) => {
      isPassing = false;
      waitMs = delivered > 0 || wokenMeanwhile ? pollIntervalMs : Math.min(waitMs * 2, idlePollMs);
      schedule(wokenMeanwhile ? WAKE_DELAY_MS : waitMs);
      wokenMeanwhile = false;
    });
  }

  return {
    deliverDue,
    /**
     * An e-mail was just written here: a pass soon (its transaction may still be committing; a pass that finds nothing
     * tries again after pollIntervalMs, then backs off as usual).
     */
    wake() {
      waitMs = pollIntervalMs;
      if (isPassing) wokenMeanwhile = true;
      else schedule(WAKE_DELAY_MS);
    },
    start() {
      stopped = false;
      timer = setTimeout(tick, 0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      transport.close();
    },
  };
}

export type EmailSender = ReturnType<typeof createEmailSender>;

/** Without SMTP_URL: every e-mail is kept in the outbox and written to the log (by the sender, as "logged"). */
export function createLogTransport(): EmailTransport {
  return { kind: "log", send: async () => {}, close: () => {} };
}
