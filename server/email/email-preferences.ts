// Which e-mails an address asked not to get, and the unsubscribe links that say so (one click, never expiring).

import type { DB, Writer } from "#server/db/client";
import type { EmailPurpose } from "#server/db/schema";
import { newToken, sha256Base64url, TOKEN_PATTERN } from "#server/tokens";

/**
 * Which kinds of e-mail an address asked not to get (review requests; stock alerts later, separately), and the
 * unsubscribe links that say so: the only writer of email_opt_outs and unsubscribe_tokens. A link names an address
 * and a purpose and never expires (RFC 8058 asks that it keep working); only its SHA-256 is stored.
 */
export function createEmailPreferences(db: DB) {
  return {
    /** A new unsubscribe token for the address and purpose, stored in the caller's transaction (with the e-mail carrying it). */
    async issueUnsubscribeToken(writer: Writer, email: string, purpose: EmailPurpose): Promise<string> {
      const token = newToken();
      await writer
        .insertInto("unsubscribe_tokens")
        .values({ token_hash: sha256Base64url(token), email: email.trim().toLowerCase(), purpose })
        .execute();
      return token;
    },

    async isOptedOut(writer: Writer, email: string, purpose: EmailPurpose): Promise<boolean> {
      const row = await writer
        .selectFrom("email_opt_outs")
        .select("email")
        .where("email", "=", email.trim().toLowerCase())
        .where("purpose", "=", purpose)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Consent given again where it is asked (the basket reminders' tick): an earlier unsubscribe from that kind of
     * e-mail no longer holds for the address. In the caller's transaction, with the consent itself.
     */
    async optIn(writer: Writer, email: string, purpose: EmailPurpose): Promise<void> {
      await writer
        .deleteFrom("email_opt_outs")
        .where("email", "=", email.trim().toLowerCase())
        .where("purpose", "=", purpose)
        .execute();
    },

    /** What a token would stop, without stopping it (the page a link opens asks first: link scanners follow links). */
    async findUnsubscribe(token: string): Promise<{ email: string; purpose: EmailPurpose } | null> {
      if (!TOKEN_PATTERN.test(token)) return null;
      const row = await db
        .selectFrom("unsubscribe_tokens")
        .select(["email", "purpose"])
        .where("token_hash", "=", sha256Base64url(token))
        .executeTakeFirst();
      return row ?? null;
    },

    /** Stops that kind of e-mail to the token's address; the same again is no change. Null for an unknown token. */
    async unsubscribe(token: string): Promise<{ email: string; purpose: EmailPurpose } | null> {
      const found = await this.findUnsubscribe(token);
      if (!found) return null;
      await db
        .insertInto("email_opt_outs")
        .values(found)
        .onConflict((conflict) => conflict.columns(["email", "purpose"]).doNothing())
        .execute();
      return found;
    },
  };
}

export type EmailPreferences = ReturnType<typeof createEmailPreferences>;
