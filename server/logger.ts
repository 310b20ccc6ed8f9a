// Structured logs, one JSON object a line, with anything that might carry a secret censored by path.

import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

/**
 * Structured logs: one JSON object a line on stdout. Anything that might carry a secret (cookies, authorization,
 * card fields, passwords) is censored by path, so a careless log call cannot leak it.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: undefined,
    redact: {
      paths: [
        "*.cookie",
        "*.authorization",
        "*.password",
        "*.card",
        "*.cardNumber",
        // A gift card's number is the card. The request log writes paths without query strings and no bodies, and no
        // call logs a number; these paths catch one passed by mistake under the names the shop gives it.
        "*.giftCardCode",
        "*.giftCardNumber",
        "headers.cookie",
        "headers.authorization",
      ],
      censor: "[redacted]",
    },
  };
  // Without a destination, stdout; tests pass one to read what was logged.
  return destination ? pino(options, destination) : pino(options);
}

/** How long a log line may wait to be written with the ones after it. */
const LOG_FLUSH_MS = 100;
/** Lines waiting past this many bytes are written at once. */
const LOG_BUFFER_BYTES = 8 * 1024;

/**
 * The server's stdout for its logs: pino's own (sonic-boom) writing lines together, once LOG_BUFFER_BYTES wait or
 * LOG_FLUSH_MS pass, not one write each. A write is a system call whose cost a busy request path pays per line (a
 * checkout logs eleven: each request, the processor's attempt and delivery, the e-mail). pino writes what waits when
 * the process exits.
 */
export function createLogDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
}
