// Whose basket it is (a guest's session or an account) and the columns that say so, shared by every basket query.

/** Who a basket belongs to: a guest through their browser session, or an account (whatever browser it is in). */
export type BasketOwner = { sessionId: string } | { userId: string };

/**
 * The column that names the owner, and its value: the same pair in every table a basket owner has rows in (baskets,
 * checkout addresses, payments, orders).
 */
export function ownerColumn(owner: BasketOwner) {
  return "userId" in owner
    ? ({ column: "user_id", value: owner.userId } as const)
    : ({ column: "session_id", value: owner.sessionId } as const);
}

/**
 * One of something for each owner column, e.g. a statement prepared once for `user_id` and once for `session_id`:
 * picked by `ownerColumn(owner).column`.
 */
export function perOwnerColumn<T>(make: (column: "user_id" | "session_id") => T): Record<"user_id" | "session_id", T> {
  return { user_id: make("user_id"), session_id: make("session_id") };
}

/** Both owner columns of a new row: the owner's set, the other null. */
export function ownerColumns(owner: BasketOwner) {
  return "userId" in owner
    ? { user_id: owner.userId, session_id: null }
    : { user_id: null, session_id: owner.sessionId };
}

/** Owners whose session the request at hand has just started: no other request knows it, so it has no basket yet. */
const startedNow = new WeakSet<BasketOwner>();

/** The owner of a guest session this request has just started (a basket change then needs no read first). */
export function newSessionOwner(sessionId: string): BasketOwner {
  const owner = { sessionId };
  startedNow.add(owner);
  return owner;
}

/** Whether `owner` is a session this request has just started (newSessionOwner), which has no basket yet. */
export function isStartedNow(owner: BasketOwner): boolean {
  return startedNow.has(owner);
}
