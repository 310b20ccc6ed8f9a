// The single-use tokens of e-mailed links (reset, confirmation, staff invitation): issued hashed, one live per account
// and purpose, consumed once.

import { sql } from "kysely";
import type { Writer } from "#server/db/client";
import { newToken, sha256Base64url as hashToken, TOKEN_PATTERN } from "#server/tokens";

export type TokenPurpose = "password-reset" | "email-verification" | "staff-invitation";

/** A new single-use token for the account; any older unused one for the same purpose is void from now on. */
export async function issueToken(
  writer: Writer,
  userId: string,
  purpose: TokenPurpose,
  validForMs: number,
): Promise<string> {
  const token = newToken();
  await writer
    .updateTable("account_tokens")
    .set({ used_at: sql`now()` })
    .where("user_id", "=", userId)
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .execute();
  await writer
    .insertInto("account_tokens")
    .values({
      token_hash: hashToken(token),
      user_id: userId,
      purpose,
      expires_at: sql<Date>`now() + make_interval(secs => ${validForMs / 1000})`,
    })
    .execute();
  return token;
}

/** Voids every unused token of the account for a purpose: a new password, or "Sign out everywhere", cancels reset links. */
export async function voidTokens(writer: Writer, userId: string, purpose: TokenPurpose): Promise<void> {
  await writer
    .updateTable("account_tokens")
    .set({ used_at: sql`now()` })
    .where("user_id", "=", userId)
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .execute();
}

/** The account a live token belongs to, without using it up (to show the page it opens); null for a used, expired or unknown one. */
export async function findLiveToken(
  writer: Writer,
  token: string,
  purpose: TokenPurpose,
): Promise<{ userId: string; email: string } | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const row = await writer
    .selectFrom("account_tokens")
    .innerJoin("users", "users.id", "account_tokens.user_id")
    .select(["users.id", "users.email"])
    .where("token_hash", "=", hashToken(token))
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", sql<Date>`now()`)
    .executeTakeFirst();
  return row ? { userId: row.id, email: row.email } : null;
}

/** Uses the token up, atomically: of two requests racing with one link, exactly one gets the account. */
export async function consumeToken(writer: Writer, token: string, purpose: TokenPurpose): Promise<string | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const row = await writer
    .updateTable("account_tokens")
    .set({ used_at: sql`now()` })
    .where("token_hash", "=", hashToken(token))
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", sql<Date>`now()`)
    .returning("user_id")
    .executeTakeFirst();
  return row?.user_id ?? null;
}
