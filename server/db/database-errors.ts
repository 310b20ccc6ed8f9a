// Which database errors mean the database is unreachable or the connection was lost, so callers answer 503 and retry
// instead of reporting a bug.

/** Errors raised while getting a connection: whatever the cause, the database could not be reached. */
const connectFailures = new WeakSet<object>();

/**
 * Marks an error from opening (or waiting for) a database connection. The server may have refused us in many ways
 * (no such database 3D000, no such role or a bad password 28xxx, not accepting connections 55000 or 57P03, too many
 * connections 53300) and the network in others (refused, reset, timed out, no such host); none of them is a bug in
 * the request, and none changed anything, so the request is answered "try again" whatever the code.
 */
export function markAsConnectFailure(error: unknown): unknown {
  if (typeof error === "object" && error !== null) {
    connectFailures.add(error);
    return error;
  }
  const wrapped = new Error(`could not connect to the database: ${String(error)}`);
  connectFailures.add(wrapped);
  return wrapped;
}

/** node-postgres's own error when a query gets no answer within query_timeout (a silent link). */
export function isQueryReadTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === "Query read timeout";
}

/**
 * Whether a statement failed because its connection was already broken or broke under it (the server went away, a
 * balancer closed it), rather than for anything the statement did. Not a read timeout: there the server may still be
 * working on it.
 */
export function isConnectionLost(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && ["ECONNRESET", "EPIPE", "57P01", "57P02"].includes(code)) return true;
  return (
    typeof message === "string" &&
    /Connection terminated|connection is closed|Client has encountered a connection error|not queryable/i.test(message)
  );
}

/**
 * Whether an error means the database cannot be reached right now (down, restarting, refusing connections,
 * pool exhausted, a link that went silent), as opposed to a bug or bad data. Such a request is answered 503
 * "try again", not 500.
 * SQLSTATE classes: https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== "object") return false;
    if (connectFailures.has(current)) return true;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string") {
      // 08: connection exception; 28: invalid authorization; 3D000: no such database; 57P01-03: admin shutdown,
      // crash shutdown, cannot connect now; 53300: too many connections; 25006: a write reached a standby (a primary
      // being demoted, or a balancer not yet told of a failover): read-only for the moment, nothing was written.
      if (
        code.startsWith("08") ||
        code.startsWith("28") ||
        ["3D000", "57P01", "57P02", "57P03", "53300", "25006"].includes(code)
      )
        return true;
      if (
        [
          "ECONNREFUSED",
          "ECONNRESET",
          "ETIMEDOUT",
          "EPIPE",
          "ENOTFOUND",
          "EAI_AGAIN",
          "EHOSTUNREACH",
          "ENETUNREACH",
        ].includes(code)
      )
        return true;
    }
    if (isQueryReadTimeout(current)) return true;
    if (
      typeof message === "string" &&
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|not queryable/i.test(
        message,
      )
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
