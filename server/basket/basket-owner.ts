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

/** Both owner columns of a new row: the owner's set, the other null. */
export function ownerColumns(owner: BasketOwner) {
  return "userId" in owner
    ? { user_id: owner.userId, session_id: null }
    : { user_id: null, session_id: owner.sessionId };
}
