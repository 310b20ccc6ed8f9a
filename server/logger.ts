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
