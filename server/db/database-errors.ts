/**
 * Whether an error means the database cannot be reached right now (down, restarting, refusing connections,
 * pool exhausted), as opposed to a bug or bad data. Such a request is answered 503 "try again", not 500.
 * SQLSTATE classes: https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== "object") return false;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string") {
      // 08: connection exception; 57P01-03: admin shutdown, crash shutdown, cannot connect now; 53300: too many connections.
      if (code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code)) return true;
      if (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"].includes(code)) return true;
    }
    if (typeof message === "string" && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed/i.test(message)) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
