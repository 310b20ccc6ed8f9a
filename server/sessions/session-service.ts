// Browser sessions: made, looked up by the hash of their token, kept alive by visits, and ended (one, or all of an
// account's in another change's transaction).

import { sql } from "kysely";
import type { BasketCount } from "#shared/basket";
import type { ConsoleAccess } from "#shared/console-access";
import { REVIEWABLE_ORDER_STATUSES } from "#shared/orders";
import { basketItemCount } from "#server/basket/basket-service";
import type { DB, Writer } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";
import { newToken, sha256Base64url as hashToken, TOKEN_PATTERN } from "#server/tokens";
import { tooManyRequests, type RateLimiter, type RateLimitRule } from "#server/rate-limits/rate-limiter";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a browser session lives without a visit. Each visit (at most once a day) pushes it back. */
export const SESSION_TTL_MS = 30 * DAY_MS;
/** However often it is used, a session ends this long after it started (sign-in, or a guest's first basket). */
export const SESSION_MAX_AGE_MS = 90 * DAY_MS;
const TOUCH_AFTER_MS = DAY_MS;

export interface SessionUser {
  id: string;
  email: string;
  /** Whether the shopper followed the welcome e-mail's link (unknown, and taken as true, where not read). */
  isEmailVerified?: boolean;
  /** Holds the operator role (may use /admin); read with the session on every request, so a revoke takes effect at once. */
  isOperator?: boolean;
  /** "E-mail me about my basket and offers" (server/recovery), read with the session for the pages that offer it. */
  basketReminders?: boolean;
  /** An operator's role and areas (read with the session too, so a change or a removal takes effect at once). */
  console?: ConsoleAccess;
  /**
   * Whether the account has an order whose products it may review (read with the session on pages): without one, a
   * product page knows the answer to "may this shopper review it?" without asking again. Unknown where not read.
   */
  hasReviewableOrder?: boolean;
}

export interface Session {
  id: string;
  expiresAt: Date;
  /** The signed-in account, or null for a guest. */
  user: SessionUser | null;
  /** Set when this visit moved the expiry: the browser's cookie must be sent again to expire with it. */
  renewed?: boolean;
  /** The basket's item count as the session was read, when asked for (`withBasket`). */
  basket?: BasketCount;
}

export const DEFAULT_NEW_SESSIONS_PER_IP = 300;

export interface SessionServiceOptions {
  rateLimiter: RateLimiter;
  /** Guest sessions one client address may start per hour; far above what a household or an office behind NAT does. */
  newSessionsPerIp?: number;
}

export function createSessionService(
  db: DB,
  { rateLimiter, newSessionsPerIp = DEFAULT_NEW_SESSIONS_PER_IP }: SessionServiceOptions,
) {
  const newSessionLimit: RateLimitRule = { name: "session:ip", limit: newSessionsPerIp, windowMs: 60 * 60 * 1000 };

  /** A new session's row, built and compiled once: every new guest's first request writes one. */
  const insertSession = preparedStatement(
    db,
    ["token_hash", "expires_at", "user_id"],
    (db, values: { token_hash: string; expires_at: Date; user_id: string | null }) =>
      db.insertInto("sessions").values(values).returning("id"),
  );

  async function startSession(user: SessionUser | null = null): Promise<{ session: Session; token: string }> {
    const token = newToken();
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
    const { rows } = await insertSession({
      token_hash: hashToken(token),
      expires_at: expiresAt,
      user_id: user?.id ?? null,
    });
    const row = rows[0];
    if (!row) throw new Error("sessions: the new session's row was not returned");
    return { session: { id: row.id, expiresAt, user }, token };
  }

  /** The session lookup every request makes (with the basket's count on a page's), built and compiled once. */
  const sessionLookup = (withBasket: boolean) =>
    preparedStatement(
      db,
      ["tokenHash", "now", "startedAfter"],
      (db, values: { tokenHash: string; now: Date; startedAfter: Date }) =>
        db
          .selectFrom("sessions")
          .leftJoin("users", "users.id", "sessions.user_id")
          .leftJoin("operators", "operators.user_id", "sessions.user_id")
          .select([
            "sessions.id",
            "sessions.created_at",
            "sessions.expires_at",
            "sessions.last_seen_at",
            "users.id as user_id",
            "users.email",
            "users.email_verified_at",
            "users.basket_reminders",
            "operators.user_id as operator_id",
            "operators.role as staff_role",
            "operators.areas as staff_areas",
          ])
          .$if(withBasket, (query) =>
            query
              .leftJoin("baskets", (join) =>
                join.on((eb) =>
                  eb.or([
                    eb("baskets.user_id", "=", eb.ref("users.id")),
                    eb.and([eb("users.id", "is", null), eb("baskets.session_id", "=", eb.ref("sessions.id"))]),
                  ]),
                ),
              )
              .select((eb) => [
                "baskets.revision as basket_revision",
                eb
                  .selectFrom("basket_items")
                  .select(basketItemCount.as("count"))
                  .whereRef("basket_items.basket_id", "=", "baskets.id")
                  .as("basket_count"),
                eb
                  .exists(
                    eb
                      .selectFrom("orders")
                      .select("orders.id")
                      .whereRef("orders.user_id", "=", "users.id")
                      // Constants in the SQL itself: a prepared statement's parameters are its named values only.
                      .where(
                        sql<boolean>`orders.status in (${sql.join(REVIEWABLE_ORDER_STATUSES.map((status) => sql.lit(status)))})`,
                      ),
                  )
                  .as("has_reviewable_order"),
              ]),
          )
          .where("sessions.token_hash", "=", values.tokenHash)
          .where("sessions.expires_at", ">", values.now)
          .where("sessions.created_at", ">", values.startedAfter),
    );
  const lookUp = sessionLookup(false);
  const lookUpWithBasket = sessionLookup(true);

  return {
    /**
     * The live session a cookie token names, with its user; null for a missing, forged, expired or ended one. With
     * `withBasket`, also its basket's item count (as BasketService.countItems reads it, for the owner the session
     * names: the account's basket when signed in, else the session's own), in the same statement: every page's header
     * shows the count, and a round trip to the database costs more of the server's CPU than the join does.
     */
    async findSession(token: string | undefined, { withBasket = false } = {}): Promise<Session | null> {
      if (!token || !TOKEN_PATTERN.test(token)) return null;
      const {
        rows: [row],
      } = await (withBasket ? lookUpWithBasket : lookUp)({
        tokenHash: hashToken(token),
        now: new Date(),
        startedAfter: new Date(Date.now() - SESSION_MAX_AGE_MS),
      });
      if (!row) return null;
      const basket = withBasket ? { basket: { count: row.basket_count ?? 0, revision: row.basket_revision ?? 0 } } : {};
      const user =
        row.user_id && row.email
          ? {
              id: row.user_id,
              email: row.email,
              isEmailVerified: row.email_verified_at !== null,
              isOperator: row.operator_id !== null,
              basketReminders: row.basket_reminders === true,
              ...(row.staff_role ? { console: { role: row.staff_role, areas: row.staff_areas ?? [] } } : {}),
              ...(withBasket ? { hasReviewableOrder: row.has_reviewable_order === true } : {}),
            }
          : null;
      if (Date.now() - row.last_seen_at.getTime() > TOUCH_AFTER_MS) {
        const expiresAt = new Date(
          Math.min(Date.now() + SESSION_TTL_MS, row.created_at.getTime() + SESSION_MAX_AGE_MS),
        );
        await db
          .updateTable("sessions")
          .set({ last_seen_at: new Date(), expires_at: expiresAt })
          .where("id", "=", row.id)
          .execute();
        return { id: row.id, expiresAt, user, renewed: expiresAt.getTime() !== row.expires_at.getTime(), ...basket };
      }
      return { id: row.id, expiresAt: row.expires_at, user, ...basket };
    },

    /** Starts a session (a guest's, or an account's at sign-in); the token goes in the cookie and nowhere else. */
    startSession,

    /**
     * Starts a guest session for a browser's first write, within the per-address limit: a client that drops its
     * cookie every time would otherwise leave a session and a basket behind with each request. Past the limit it
     * is refused before anything is written.
     */
    async startGuestSession(ip: string): Promise<{ session: Session; token: string }> {
      const { allowed, retryAfterMs } = await rateLimiter.hit(newSessionLimit, ip);
      if (!allowed)
        throw tooManyRequests(
          "TOO_MANY_NEW_SESSIONS",
          "Too many new baskets have been started from your network in the last hour.",
          retryAfterMs,
        );
      return startSession();
    },

    /** Ends every session of an account ("Sign out everywhere"), but the one given, if any. */
    async endAccountSessions(userId: string, exceptSessionId: string | null = null): Promise<void> {
      await endAccountSessions(db, userId, exceptSessionId);
    },

    /** Ends a session for good: its cookie no longer names anything. */
    async endSession(sessionId: string): Promise<void> {
      await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
    },
  };
}

/**
 * Ends every session of an account but the one given, if any, in the writer's transaction: a new password (from the
 * account page, a reset link or the operator's environment) signs the account out everywhere with the change.
 */
export async function endAccountSessions(writer: Writer, userId: string, exceptSessionId: string | null = null) {
  let query = writer.deleteFrom("sessions").where("user_id", "=", userId);
  if (exceptSessionId) query = query.where("id", "<>", exceptSessionId);
  await query.execute();
}

export type SessionService = ReturnType<typeof createSessionService>;
