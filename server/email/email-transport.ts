// How an e-mail leaves the shop: over SMTP with nodemailer, a refusal that will never succeed told apart from one worth
// retrying.

import { createTransport } from "nodemailer";
import addressparser from "nodemailer/lib/addressparser";

/** One message as the outbox hands it to a transport. */
export interface OutgoingEmail {
  messageId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post). */
  headers?: Record<string, string>;
  /** The sender's name as the shop's settings say now; the address stays MAIL_FROM's. */
  fromName?: string;
  /** Where a shopper's reply goes: the shop's support address, when it has one (MAIL_FROM is often a no-reply box). */
  replyTo?: string;
}

/** MAIL_FROM's display name ("Storefront" of "Storefront <orders@shop.example>"), or null when it has none. */
export function displayNameOf(from: string): string | null {
  const [first] = addressparser(from, { flatten: true });
  return first?.name || null;
}

/** Where e-mail goes: an SMTP server, or (without SMTP_URL) the log only. */
export interface EmailTransport {
  kind: "smtp" | "log";
  /** Resolves once the server accepted the message; rejects with an error whose `permanent` says whether to retry. */
  send(email: OutgoingEmail): Promise<void>;
  close(): void;
}

/** A refusal worth recording but never retrying (a 5xx to the recipient or the message). */
export class PermanentEmailFailure extends Error {}

/**
 * SMTP through nodemailer: `smtp://user:pass@host:587` (STARTTLS whenever the server offers it) or `smtps://…:465`.
 * Timeouts are short so that a server that hangs counts as an outage and the message is retried later, instead of
 * holding its claim past the lease.
 */
export function createSmtpTransport(url: string, from: string): EmailTransport {
  const fromAddress = addressparser(from, { flatten: true })[0]?.address ?? from;
  const transporter = createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as Parameters<typeof createTransport>[0]);
  return {
    kind: "smtp",
    async send(email) {
      try {
        await transporter.sendMail({
          from: email.fromName ? { name: email.fromName, address: fromAddress } : from,
          to: email.to,
          ...(email.replyTo ? { replyTo: email.replyTo } : {}),
          subject: email.subject,
          text: email.text,
          html: email.html,
          messageId: email.messageId,
          headers: email.headers,
        });
      } catch (error) {
        const { responseCode, code } = error as { responseCode?: number; code?: string };
        // 5xx means "never" (RFC 5321 4.2.1), except a refused login: that is the shop's configuration, fixed and retried.
        if (responseCode !== undefined && responseCode >= 500 && code !== "EAUTH") {
          throw new PermanentEmailFailure(`SMTP ${responseCode}: ${(error as Error).message}`, { cause: error });
        }
        throw error;
      }
    },
    close: () => transporter.close(),
  };
}
