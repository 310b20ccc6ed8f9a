import type { DB } from "../../db/client";

/**
 * Deletes up to `limit` idempotency keys whose 24-hour replay window (Stripe's) has passed, and returns how many went.
 * Rows another instance is deleting at the same moment are skipped, not waited for. The shop's retention sweep calls
 * this in a loop until a batch comes back short.
 */
export async function deleteExpiredIdempotencyKeys(db: DB, limit: number): Promise<number> {
  const result = await db
    .deleteFrom("processor_idempotency_keys")
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple("key_kind", "idempotency_key"),
        "in",
        selectFrom("processor_idempotency_keys")
          .select(["key_kind", "idempotency_key"])
          .where("expires_at", "<", new Date())
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .$asTuple("key_kind", "idempotency_key"),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
