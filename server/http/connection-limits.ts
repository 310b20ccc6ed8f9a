// Protection from slow and too many clients: timeouts for headers, requests and keep-alive, and a bare 503 past
// MAX_CONNECTIONS before any parsing.

import type { Server, ServerOptions } from "node:http";
import type { Socket } from "node:net";

/**
 * How long a client may take to send its request. Node's defaults (headers 60 s, whole request 300 s) let a few
 * thousand slow clients (slowloris: headers a byte at a time) hold a server's connections; the shop's requests are
 * small (a 32 KB body at most), so a real browser needs a fraction of these.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * An idle keep-alive connection is closed after this. Longer than a browser's pause between a page and its
 * assets; short, so idle browsers do not fill the connection cap.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Node enforces the two timeouts above on a sweep; its default period, 30 s, would let a slow client stay up to
 * 40 s instead of 10.
 */
export const serverOptions: ServerOptions = { connectionsCheckingInterval: 1_000 };

/** MAX_CONNECTIONS's default: far above what one process serves well (a few hundred requests a second). */
export const DEFAULT_MAX_CONNECTIONS = 1_000;

const RETRY_AFTER_SECONDS = 5;
/** How long a refused client may keep its connection after the 503, so it can read it before the close. */
const REFUSAL_LINGER_MS = 1_000;
const REFUSAL_BODY = "The shop is too busy right now. Please try again in a moment.\n";
const REFUSAL = [
  "HTTP/1.1 503 Service Unavailable",
  `Retry-After: ${RETRY_AFTER_SECONDS}`,
  "Content-Type: text/plain; charset=utf-8",
  `Content-Length: ${Buffer.byteLength(REFUSAL_BODY)}`,
  "Cache-Control: no-store",
  "X-Content-Type-Options: nosniff",
  "Connection: close",
  "",
  REFUSAL_BODY,
].join("\r\n");

/**
 * Applies the timeouts, and caps the connections this process holds open at once. A connection over the cap is
 * answered at once with a minimal 503 and Retry-After, before anything is parsed or a route runs, then closed:
 * a client (or a load balancer) can tell "busy, try again" from a network fault, which a bare close
 * (`server.maxConnections`) does not tell it.
 */
export function limitConnections(server: Server, maxConnections: number): void {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

  let open = 0;
  // Node's HTTP machinery takes a connection in its own 'connection' listener, which cannot be told to skip one;
  // the event is intercepted instead, so a refused socket never reaches the HTTP parser or the app.
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event !== "connection") return emit(event, ...args);
    const socket = args[0] as Socket;
    if (open >= maxConnections) {
      refuse(socket);
      return true;
    }
    open++;
    socket.once("close", () => open--);
    return emit(event, ...args);
  }) as Server["emit"];
}

function refuse(socket: Socket) {
  socket.on("error", () => socket.destroy());
  // Whatever the client sends is read and dropped: closing with unread data would reset the connection, and a
  // reset can discard the 503 before the client reads it.
  socket.resume();
  socket.end(REFUSAL);
  socket.setTimeout(REFUSAL_LINGER_MS, () => socket.destroy());
}
