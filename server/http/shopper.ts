// Who is asking: the session cookie read into a shopper (guest, account, operator with their role), and a new session
// made when one is needed.

import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { BasketCount } from "#shared/basket";
import { newSessionOwner, type BasketOwner } from "#server/basket/basket-owner";
import type { Session, SessionService, SessionUser } from "#server/sessions/session-service";

/** The session cookie's name; over HTTPS it carries the __Host- prefix (Secure, this host only, path /). */
export const SESSION_COOKIE = "sf_session";

/** The browser behind a request: its session and account, if any, and the ways to change them. */
export interface Shopper {
  session: Session | null;
  user: SessionUser | null;
  /** Whose basket this request sees: the account's when signed in, else the guest session's (null: none yet). */
  basketOwner: BasketOwner | null;
  /**
   * That basket's item count as the request arrived, read with the session, for the header; null where it may have
   * changed since (any request but a GET or HEAD, or once the session changed): then ask BasketService.countItems.
   * A form posted to a page runs its action, which may change the basket, before the page's loaders.
   */
  basketOnArrival: BasketCount | null;
  /** The basket owner for a write, starting a guest session (and its cookie) if there is none. */
  ensureBasketOwner(): Promise<BasketOwner>;
  /** After sign-in: the response carries the new session's cookie. */
  replaceSession(next: { session: Session; token: string }): void;
  /** After sign-out: the response clears the cookie. */
  clearSession(): void;
}

/**
 * Resolves the session cookie once per request. Reading never creates a session: a visitor who only browses
 * leaves no row behind. The cookie is HttpOnly and SameSite=Lax; over HTTPS it is Secure and named
 * __Host-sf_session, so no other host or path can plant one. It expires with the session and is sent again
 * whenever a visit moves the session's expiry forward.
 */
export function shopperMiddleware(
  sessions: SessionService,
  { isHttps }: { isHttps: (c: Context) => boolean },
): MiddlewareHandler<{
  Variables: { shopper: Shopper; clientIp: string };
}> {
  return async (c, next) => {
    const secure = isHttps(c);
    const presented = getCookie(c, SESSION_COOKIE, secure ? "host" : undefined);
    const isRead = c.req.method === "GET" || c.req.method === "HEAD";
    let session = await sessions.findSession(presented, { withBasket: isRead });
    let basketOnArrival: BasketCount | null = isRead ? (session?.basket ?? { count: 0, revision: 0 }) : null;
    // What the response must do to the cookie: set a token, clear it, or leave it alone.
    // Held in an object so TypeScript sees the writes made inside the methods below.
    const pending: { cookie: { token: string } | "clear" | null } = { cookie: null };
    if (session?.renewed && presented) pending.cookie = { token: presented };
    const ownerOf = (current: Session): BasketOwner =>
      current.user ? { userId: current.user.id } : { sessionId: current.id };

    c.set("shopper", {
      get session() {
        return session;
      },
      get user() {
        return session?.user ?? null;
      },
      get basketOwner() {
        return session ? ownerOf(session) : null;
      },
      get basketOnArrival() {
        return basketOnArrival;
      },
      async ensureBasketOwner() {
        if (!session) {
          const started = await sessions.startGuestSession(c.get("clientIp"));
          session = started.session;
          basketOnArrival = null;
          pending.cookie = { token: started.token };
          if (!session.user) return newSessionOwner(session.id);
        }
        return ownerOf(session);
      },
      replaceSession(next) {
        session = next.session;
        basketOnArrival = null;
        pending.cookie = { token: next.token };
      },
      clearSession() {
        session = null;
        basketOnArrival = null;
        pending.cookie = "clear";
      },
    });
    await next();
    const { cookie } = pending;
    const attributes = {
      httpOnly: true,
      sameSite: "Lax",
      path: "/",
      secure,
      prefix: secure ? "host" : undefined,
    } as const;
    if (cookie === "clear") deleteCookie(c, SESSION_COOKIE, attributes);
    else if (cookie && session)
      setCookie(c, SESSION_COOKIE, cookie.token, { ...attributes, expires: session.expiresAt });
  };
}
