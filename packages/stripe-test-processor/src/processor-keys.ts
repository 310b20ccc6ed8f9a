import { createHash, timingSafeEqual } from "node:crypto";
import type { ProcessorDB } from "./processor-tables.ts";
import { randomAlphanumeric } from "./processor-ids.ts";
import { invalidApiKey, missingApiKey } from "./stripe-errors.ts";

export interface ProcessorKeys {
  /** `sk_test_…`: the shop's server uses it with the Stripe SDK. */
  secretKey: string;
  /** `pk_test_…`: the browser uses it to confirm a payment. */
  publishableKey: string;
  /** `whsec_…`: signs webhook deliveries; the shop verifies them with it. */
  webhookSecret: string;
}

export type KeyKind = "secret" | "publishable";

const cachedKeys = new WeakMap<ProcessorDB, Promise<ProcessorKeys>>();

/**
 * The processor's keys, created at random on first use and kept in the database so that every instance sharing it
 * agrees. Two instances starting together both try the insert; the primary key lets one win and both read the same
 * row. Keys never change afterwards, so each process asks the database once.
 */
export function getProcessorKeys(db: ProcessorDB): Promise<ProcessorKeys> {
  let keys = cachedKeys.get(db);
  if (!keys) {
    keys = loadOrCreateKeys(db);
    cachedKeys.set(db, keys);
    keys.catch(() => cachedKeys.delete(db));
  }
  return keys;
}

/**
 * Makes the given keys the processor's (a processor run as its own process takes them from its environment, so the
 * shop's operator can give the shop the same three). They replace any kept before.
 */
export async function setProcessorKeys(db: ProcessorDB, keys: ProcessorKeys): Promise<void> {
  const row = { secret_key: keys.secretKey, publishable_key: keys.publishableKey, webhook_secret: keys.webhookSecret };
  await db
    .insertInto("processor_keys")
    .values({ id: 1, ...row })
    .onConflict((conflict) => conflict.column("id").doUpdateSet(row))
    .execute();
  cachedKeys.set(db, Promise.resolve({ ...keys }));
}

async function loadOrCreateKeys(db: ProcessorDB): Promise<ProcessorKeys> {
  await db
    .insertInto("processor_keys")
    .values({
      id: 1,
      secret_key: `sk_test_${randomAlphanumeric(48)}`,
      publishable_key: `pk_test_${randomAlphanumeric(48)}`,
      webhook_secret: `whsec_${randomAlphanumeric(32)}`,
    })
    .onConflict((conflict) => conflict.column("id").doNothing())
    .execute();
  const row = await db
    .selectFrom("processor_keys")
    .select(["secret_key", "publishable_key", "webhook_secret"])
    .where("id", "=", 1)
    .executeTakeFirstOrThrow();
  return { secretKey: row.secret_key, publishableKey: row.publishable_key, webhookSecret: row.webhook_secret };
}

/**
 * The key a request presents: `Authorization: Bearer <key>` (the SDK), Basic auth with the key as user name
 * (curl -u), or, for the publishable key only, a `key` body parameter (Stripe.js).
 */
export function presentedKey(authorization: string | undefined, bodyKey: string | undefined): string | undefined {
  if (authorization) {
    const [scheme, credentials = ""] = authorization.trim().split(/\s+/, 2);
    if (scheme?.toLowerCase() === "bearer") return credentials;
    if (scheme?.toLowerCase() === "basic")
      return Buffer.from(credentials, "base64").toString("utf8").split(":")[0] ?? "";
    return authorization;
  }
  return bodyKey;
}

/** Which of the processor's keys this is; anything else is a 401 that shows the key masked. */
export function identifyKey(
  key: string | undefined,
  keys: ProcessorKeys,
  { fromBody }: { fromBody: boolean },
): KeyKind {
  if (key === undefined || key === "") throw missingApiKey();
  if (!fromBody && sameSecret(key, keys.secretKey)) return "secret";
  if (sameSecret(key, keys.publishableKey)) return "publishable";
  throw invalidApiKey(maskKey(key));
}

/** Compares without leaking, through timing, how much of a secret was right. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * A key as Stripe shows it in an error: its prefix and last four characters, the rest as asterisks (at most 24),
 * so that a log line or a screenshot never holds a whole key.
 */
export function maskKey(key: string): string {
  const prefix = /^(sk|pk|rk)_(test|live)_/.exec(key)?.[0] ?? "";
  const rest = key.slice(prefix.length);
  const last4 = rest.length >= 12 && /^[A-Za-z0-9]{4}$/.test(rest.slice(-4)) ? rest.slice(-4) : "";
  return `${prefix}${"*".repeat(Math.min(24, Math.max(4, rest.length - last4.length)))}${last4}`;
}
