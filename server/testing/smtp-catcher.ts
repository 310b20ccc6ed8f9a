// An SMTP server for tests that keeps what it receives, so stories read the e-mails the shop really sent.

import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** One message as the SMTP server received it, with what the tests read from it. */
export interface CaughtEmail {
  to: string[];
  messageId: string;
  subject: string;
  /** The whole message with quoted-printable soft breaks and escapes undone, so links read as they were written. */
  body: string;
  /** Every absolute link in the message, once each, in order. */
  links: string[];
  /** A header's value as received (unfolded), or "" when absent. */
  header: (name: string) => string;
}

/**
 * A real SMTP server (nodemailer's smtp-server) in the test's process, on a port of its own, that keeps every
 * message it accepts. `stop()` and `start()` make it refuse connections for a while and come back on the same port;
 * `refuseRecipients` answers RCPT TO with a permanent 550.
 */
export async function startSmtpCatcher() {
  const received: CaughtEmail[] = [];
  let server: SMTPServer | null = null;
  let port = 0;
  const options = { refuseRecipients: false };

  async function start() {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (options.refuseRecipients) {
          const error = Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 });
          callback(error);
          return;
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks).toString("latin1");
          const unescaped = raw
            .replace(/=\r?\n/g, "")
            .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
          const body = Buffer.from(unescaped, "latin1").toString("utf8");
          const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(raw)?.[1]?.trim() ?? "";
          received.push({
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            messageId: header("Message-ID"),
            subject: header("Subject"),
            body,
            links: [...new Set(body.match(/https?:\/\/[^\s"<>)]+/g) ?? [])],
            header: (name: string) =>
              new RegExp(`^${name}:\\s*(.*(?:\\r?\\n[ \\t].*)*)`, "im")
                .exec(raw.split(/\r?\n\r?\n/)[0] ?? "")?.[1]
                ?.replace(/\r?\n[ \t]+/g, " ")
                .trim() ?? "",
          });
          callback(null, "Queued");
        });
      },
    });
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(port, "127.0.0.1", () => resolve()));
    port = (listening.server.address() as AddressInfo).port;
  }

  async function stop() {
    const closing = server;
    server = null;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  }

  await start();
  return {
    received,
    options,
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
    /** The messages sent to one address so far. */
    to: (address: string) => received.filter((email) => email.to.includes(address)),
    start,
    stop,
  };
}
