/**
 * The accounts the console's staff work makes: the Owner's, named by the machine's environment at start-up, and an
 * invitee's, which waits for the invitation's link to set its password. Users are written here, in the caller's
 * transaction, so that server/accounts stays the one writer of the users table.
 */

import type { Writer } from "#server/db/client";

/** An invited account's password until the invitation's link sets one: argon2 reads it as no hash, so it opens nothing. */
export const NO_PASSWORD_YET = "!invited";

/**
 * The account of an address the machine's environment names, created with the password if it has none, its address
 * counted as confirmed (the operator of the machine wrote it: it needs no link), then its row locked for the caller.
 */
export async function lockConfirmedAccount(
  trx: Writer,
  email: string,
  passwordHash: string,
): Promise<{ id: string; password_hash: string }> {
  await trx
    .insertInto("users")
    .values({ email, password_hash: passwordHash, email_verified_at: new Date() })
    .onConflict((conflict) => conflict.column("email").doNothing())
    .execute();
  await trx
    .updateTable("users")
    .set({ email_verified_at: new Date() })
    .where("email", "=", email)
    .where("email_verified_at", "is", null)
    .execute();
  return trx
    .selectFrom("users")
    .select(["id", "password_hash"])
    .where("email", "=", email)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** Sets an account's password (already hashed); the caller ends its sessions in the same transaction. */
export async function setPasswordHash(trx: Writer, userId: string, passwordHash: string): Promise<void> {
  await trx.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", userId).execute();
}

/** The account of an invited address: the one it has, or a new one with no password yet. Answers its id. */
export async function accountForInvitation(trx: Writer, email: string): Promise<string> {
  await trx
    .insertInto("users")
    .values({ email, password_hash: NO_PASSWORD_YET })
    .onConflict((conflict) => conflict.column("email").doNothing())
    .execute();
  const user = await trx.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
  return user.id;
}
