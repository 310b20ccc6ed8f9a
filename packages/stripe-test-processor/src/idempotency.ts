import { createHash } from "node:crypto";
import { preparedStatement } from "@storefront/kysely-prepared";
import { sql } from "kysely";
import type { ProcessorDB } from "./processor-tables.ts";
import { isHash, type FormHash, type FormValue } from "./form-params.ts";
import type { KeyKind } from "./processor-keys.ts";
import { idempotencyKeyInUse, idempotencyMismatch, invalidRequest } from "./stripe-errors.ts";

/** Stripe's limit on an Idempotency-Key header. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A response kept for replay: its status and exact body. */
export interface StoredResponse {
  status: number;
  body: string;
}

/**
 * Stripe's idempotent requests (docs.stripe.com/api/idempotent_requests): the first POST with a key runs and its
 * response is kept for 24 hours; a retry with the same key and parameters gets that response again, a retry with
 * other parameters a 400 idempotency_error, and a retry while the first is still running a 409. A request refused
 * before it ran (bad key, bad parameters) keeps nothing, so the key can be used again.
 *
 * The claim is one insert whose primary key decides between racing instances. A claim left pending for more than a
 * minute (its instance died mid-request) may be taken over.
 */
export function createIdempotencyStore(db: ProcessorDB) {
  // Every POST claims its key and keeps its response: both statements built and compiled once.
  const claim = preparedStatement(
    db,
    ["keyKind", "key", "fingerprint"],
    (db, values: { keyKind: KeyKind; key: string; fingerprint: string }) =>
      db
        .insertInto("processor_idempotency_keys")
        .values({
          key_kind: values.keyKind,
          idempotency_key: values.key,
          fingerprint: values.fingerprint,
          state: sql.lit("pending"),
          expires_at: sql`now() + interval '24 hours'`,
        })
        .onConflict((conflict) =>
          conflict
            .columns(["key_kind", "idempotency_key"])
            .doUpdateSet({
              fingerprint: values.fingerprint,
              state: sql.lit("pending"),
              response_status: sql.lit(null),
              response_body: sql.lit(null),
              locked_at: sql`now()`,
              expires_at: sql`now() + interval '24 hours'`,
            })
            .where((where) =>
              where.or([
                where("processor_idempotency_keys.expires_at", "<=", sql<Date>`now()`),
                where.and([
                  where("processor_idempotency_keys.state", "=", sql.lit("pending")),
                  where("processor_idempotency_keys.locked_at", "<", sql<Date>`now() - interval '1 minute'`),
                ]),
              ]),
            ),
        )
        .returning("state"),
  );
  const keepResponse = preparedStatement(
    db,
    ["keyKind", "key", "status", "body"],
    (db, values: { keyKind: KeyKind; key: string; status: number; body: string }) =>
      db
        .updateTable("processor_idempotency_keys")
        .set({ state: sql.lit("complete"), response_status: values.status, response_body: values.body })
        .where("key_kind", "=", values.keyKind)
        .where("idempotency_key", "=", values.key)
        .where("state", "=", sql.lit("pending")),
  );
  return {
    /** Claims the key for this request (null: go ahead), or returns the response to replay. */
    async begin(keyKind: KeyKind, key: string, fingerprint: string): Promise<StoredResponse | null> {
      if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
        throw invalidRequest(
          `Invalid Idempotency-Key: it must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long.`,
          { param: "Idempotency-Key" },
        );
      }
      const [claimed] = (await claim({ keyKind, key, fingerprint })).rows;
      if (claimed) return null;

      const existing = await db
        .selectFrom("processor_idempotency_keys")
        .select(["fingerprint", "state", "response_status", "response_body"])
        .where("key_kind", "=", keyKind)
        .where("idempotency_key", "=", key)
        .executeTakeFirst();
      if (
        !existing ||
        existing.state === "pending" ||
        existing.response_status === null ||
        existing.response_body === null
      ) {
        if (existing && existing.fingerprint !== fingerprint) throw idempotencyMismatch(key);
        throw idempotencyKeyInUse(key);
      }
      if (existing.fingerprint !== fingerprint) throw idempotencyMismatch(key);
      return { status: existing.response_status, body: existing.response_body };
    },

    /** Keeps the response of a request that ran. */
    async complete(keyKind: KeyKind, key: string, response: StoredResponse): Promise<void> {
      await keepResponse({ keyKind, key, status: response.status, body: response.body });
    },

    /** Frees the key of a request that failed unexpectedly, so that a retry runs again. */
    async release(keyKind: KeyKind, key: string): Promise<void> {
      await db
        .deleteFrom("processor_idempotency_keys")
        .where("key_kind", "=", keyKind)
        .where("idempotency_key", "=", key)
        .where("state", "=", "pending")
        .execute();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;

/** Keys deleted per statement: short transactions, however large the backlog. */
const PURGE_BATCH_SIZE = 1_000;

/**
 * Deletes keys past their 24 hours (Stripe keeps them that long); the delivery loop calls it now and then. In
 * batches, each taking its rows FOR UPDATE SKIP LOCKED, so processes purging at once share the work instead of
 * queueing behind one another. Returns how many went.
 */
export async function purgeExpiredIdempotencyKeys(db: ProcessorDB, batchSize = PURGE_BATCH_SIZE): Promise<number> {
  let purged = 0;
  for (;;) {
    const result = await db
      .deleteFrom("processor_idempotency_keys")
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("key_kind", "idempotency_key"),
          "in",
          selectFrom("processor_idempotency_keys")
            .select(["key_kind", "idempotency_key"])
            .where("expires_at", "<=", sql<Date>`now()`)
            .limit(batchSize)
            .forUpdate()
            .skipLocked()
            .$asTuple("key_kind", "idempotency_key"),
        ),
      )
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    purged += deleted;
    if (deleted < batchSize) return purged;
  }
}

/**
 * What makes two requests "the same": method, path and parameters, in a canonical order. A card number is reduced
 * to its last four digits and the CVC left out, so the stored fingerprint cannot be searched for a card number.
 */
export function fingerprintRequest(method: string, path: string, params: FormHash): string {
  return createHash("sha256")
    .update(JSON.stringify([method, path, canonical(withoutCardData(params))]))
    .digest("hex");
}

function withoutCardData(params: FormHash): FormValue {
  const paymentMethodData = params.payment_method_data;
  if (!isHash(paymentMethodData) || !isHash(paymentMethodData.card)) return params;
  const card = { ...paymentMethodData.card };
  delete card.cvc;
  if (typeof card.number === "string") card.number = `…${card.number.replaceAll(" ", "").slice(-4)}`;
  return { ...params, payment_method_data: { ...paymentMethodData, card } };
}

function canonical(value: FormValue): unknown {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(canonical);
  return Object.keys(value)
    .sort()
    .map((key) => [key, canonical(value[key] as FormValue)]);
}
