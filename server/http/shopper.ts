import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { BasketOwner } from "../basket/basket-service";
import type { Session, SessionService, SessionUser } from "../sessions/session-service";

export const SESSION_COOKIE = "sf_session";

/** The browser behind a request: its session and account, if any, and the ways to change them. */
export interface Shopper {
  session: Session | null;
  user: SessionUser | null;
  /** Whose basket this request sees: the account's when signed in, else the guest session's (null: none yet). */
  basketOwner: BasketOwner | null;
  /** The basket owner for a write, starting a guest session (and its cookie) if there is none. */
  ensureBasketOwner(): Promise<BasketOwner>;
  /** After sign-in: the response carries the new session's cookie. */
  replaceSession(next: { session: Session; token: string }): void;
  /** After sign-out: the response clears the cookie. */
  clearSession(): void;
}

/**
 * Resolves the session cookie once per request. Reading never creates a session: a visitor who only browses
 * leaves no row behind. The cookie is HttpOnly and SameSite=Lax, and Secure in production.
 */
export function shopperMiddleware(sessions: SessionService, { secureCookies }: { secureCookies: boolean }): MiddlewareHandler<{
  Variables: { shopper: Shopper; clientIp: string };
}> {
  return async (c, next) => {
    let session = await sessions.findSession(getCookie(c, SESSION_COOKIE));
    // What the response must do to the cookie: set a new token, clear it, or leave it alone.
    // Held in an object so TypeScript sees the writes made inside the methods below.
    const pending: { cookie: { token: string } | "clear" | null } = { cookie: null };
    const ownerOf = (current: Session): BasketOwner => (current.user ? { userId: current.user.id } : { sessionId: current.id });

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
      async ensureBasketOwner() {
        if (!session) {
          const started = await sessions.startGuestSession(c.get("clientIp"));
          session = started.session;
          pending.cookie = { token: started.token };
        }
        return ownerOf(session);
      },
      replaceSession(next) {
        session = next.session;
        pending.cookie = { token: next.token };
      },
      clearSession() {
        session = null;
        pending.cookie = "clear";
      },
    });
    await next();
    const { cookie } = pending;
    if (cookie === "clear") deleteCookie(c, SESSION_COOKIE, { path: "/", secure: secureCookies, httpOnly: true, sameSite: "Lax" });
    else if (cookie && session) writeSessionCookie(c, cookie.token, session.expiresAt, secureCookies);
  };
}

function writeSessionCookie(c: Context, token: string, expires: Date, secure: boolean) {
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: "Lax", secure, path: "/", expires });
}
