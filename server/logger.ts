import { writeSync } from "node:fs";
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
export const LOG_FLUSH_MS = 100;
/** Lines waiting past this many characters are written at once. */
const LOG_BUFFER_CHARS = 16 * 1024;

/**
 * The server's stdout for its logs: lines written together, at most LOG_FLUSH_MS after the first of them (or once
 * LOG_BUFFER_CHARS wait), not one write each. A write is a system call whose cost a busy request path pays per line
 * (a checkout logs eleven: each request, the processor's attempt and delivery, the e-mail). What waits when the
 * process exits is written then, synchronously, after what was already handed to stdout.
 */
export function createLogDestination(): DestinationStream & { flushSync(): void } {
  const stdout = pino.destination({ dest: 1, sync: false });
  let waiting: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const take = () => {
    const text = waiting.join("");
    waiting = [];
    size = 0;
    if (timer) clearTimeout(timer);
    timer = undefined;
    return text;
  };
  const flush = () => {
    if (size > 0) stdout.write(take());
  };
  const destination = {
    write(line: string) {
      waiting.push(line);
      size += line.length;
      if (size >= LOG_BUFFER_CHARS) flush();
      else timer ??= setTimeout(flush, LOG_FLUSH_MS).unref();
    },
    flushSync() {
      if (size > 0) writeSync(1, take());
    },
  };
  // Registered after stdout's own exit handler, so it runs after that one has written what stdout held.
  process.on("exit", () => destination.flushSync());
  return destination;
}
