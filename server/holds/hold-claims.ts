// How long and how much one shopper may hold while paying (hold_claims): a hold lapses however often the payment is
// prepared again, and one holder cannot keep the last units or a limited code from everyone.

import { sql } from "kysely";
import { AppError } from "#shared/errors";
import type { DB, Writer } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";

/**
 * How long, and how much, one shopper may hold while paying (the hold_claims table is this module's). Without it, a
 * guest preparing the payment again every few minutes kept the last units and a limited code from everyone for ever.
 *
 * - A hold lives at most RESERVATION_MINUTES from its first reservation: preparing the payment again keeps the time
 *   it was first given, and so does a payment that replaces it.
 * - Once a hold lapses (it ran out: neither sold nor let go), the same session and the same client address cannot
 *   hold that variant or that code again for another RESERVATION_MINUTES.
 * - One session holds at most `unitsPerSession` units of a variant, one client address at most `unitsPerAddress`
 *   units in all (HOLD_UNITS_PER_SESSION, HOLD_UNITS_PER_ADDRESS).
 * - The live holds of a session or an address count in the payment limiter (checkout/payment-rate-limits.ts).
 *
 * A client address is shared by the shoppers behind it: one who lets a hold lapse keeps the others from holding that
 * variant for the same while, which is the price of a rule a new cookie cannot get round.
 */
export interface Holder {
  sessionId: string | null;
  ip: string;
}

export interface HoldLimits {
  unitsPerSession: number;
  unitsPerAddress: number;
}

export const DEFAULT_HOLD_LIMITS: HoldLimits = { unitsPerSession: 10, unitsPerAddress: 50 };

/** One thing a hold asks for: a variant's units (by its id), or a code (by the promotion's id, no units). `name` is how a refusal speaks of it. */
export interface ClaimedItem {
  item: string;
  units: number;
  name: string;
}

/** What a claim is on: a variant's stock (inventory) or a code's use (promotions); each side writes only its own. */
export type ClaimKind = "variant" | "promotion";
const ofKind = (kind: ClaimKind) => `${kind}:%`;

const holderKeys = (holder: Holder) => [
  ...(holder.sessionId ? [`session:${holder.sessionId}`] : []),
  `address:${holder.ip}`,
];

/** Ends the holders' claims of `kind` under `holds` (this payment's earlier keys), in the hold's transaction. */
async function letGoOf(trx: Writer, kind: ClaimKind, holders: string[], holds: readonly string[]): Promise<void> {
  if (holds.length === 0) return;
  await trx
    .deleteFrom("hold_claims")
    .where("holder", "in", holders)
    .where("hold", "in", holds)
    .where("item", "like", ofKind(kind))
    .execute();
}

/** Live holds per holder, for one holder key or two (a session's and its address's): each built and compiled once. */
function liveHoldsStatements(db: DB) {
  const liveHoldsOf = (names: readonly string[]) =>
    preparedStatement(db, names, (db, values: Record<string, unknown>) =>
      db
        .selectFrom("hold_claims")
        .select(["holder", sql<number>`count(distinct hold)::int`.as("holds")])
        .where(
          "holder",
          "in",
          names.map((name) => values[name] as string),
        )
        .where("expires_at", ">", sql<Date>`now()`)
        .groupBy("holder"),
    );
  return { ofOne: liveHoldsOf(["holder0"]), ofTwo: liveHoldsOf(["holder0", "holder1"]) };
}

export function createHoldClaims(
  db: DB,
  { reservationMinutes, limits = DEFAULT_HOLD_LIMITS }: { reservationMinutes: number; limits?: HoldLimits },
) {
  const lifetimeMs = reservationMinutes * 60_000;
  const liveHolds = liveHoldsStatements(db);

  return {
    limits,

    /**
     * In the transaction that takes the hold: when it ends (the first reservation's time plus RESERVATION_MINUTES),
     * or the refusal, before anything is written. `hold` and the holds it `replaces` are this payment's own.
     */
    async claim(
      trx: Writer,
      kind: ClaimKind,
      holder: Holder,
      hold: string,
      replaces: readonly string[],
      items: readonly ClaimedItem[],
      /** `hold` was made for this call: it has no claims yet (only `replaces` may). */
      { isNew = false }: { isNew?: boolean } = {},
    ): Promise<Date | null> {
      const holders = holderKeys(holder);
      const ours = [hold, ...replaces];
      const letGo = () => letGoOf(trx, kind, holders, isNew ? replaces : ours);
      // Nothing to claim (no tracked stock): nothing to judge, only what this payment claimed before goes.
      if (items.length === 0) return letGo().then(() => null);
      const { now } = await sql<{ now: Date }>`select now() as now`.execute(trx).then((result) => result.rows[0]!);
      const rows = await trx
        .selectFrom("hold_claims")
        .select(["holder", "item", "hold", "units", "first_reserved_at", "expires_at"])
        .where("holder", "in", holders)
        .where("expires_at", ">", new Date(now.getTime() - lifetimeMs))
        .execute();
      const isLive = (row: { expires_at: Date }) => row.expires_at.getTime() > now.getTime();
      const isOurs = (row: { hold: string }) => ours.includes(row.hold);

      // The hold's first reservation, of whatever kind: a code added later does not give the stock more time.
      const first = Math.min(
        now.getTime(),
        ...rows.filter((row) => isOurs(row) && isLive(row)).map((row) => row.first_reserved_at.getTime()),
      );
      for (const { item, name } of items) {
        const about = rows.filter((row) => row.item === `${kind}:${item}`);
        // Lapsed less than RESERVATION_MINUTES ago, by this session or from this address, whichever payment held it.
        const lapsed = about.filter((row) => !isLive(row));
        if (lapsed.length > 0) {
          const until = Math.max(...lapsed.map((row) => row.expires_at.getTime() + lifetimeMs));
          const minutes = Math.max(1, Math.ceil((until - now.getTime()) / 60_000));
          throw new AppError(
            "TOO_MANY_ATTEMPTS",
            `${name} was held for you for ${reservationMinutes} minutes and the time ran out. It can be held for you again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
            { retryAfterSeconds: Math.ceil((until - now.getTime()) / 1000) },
          );
        }
      }

      const othersLive = rows.filter((row) => isLive(row) && !isOurs(row));
      for (const { item, units, name } of items) {
        if (units === 0 || !holder.sessionId) continue;
        const elsewhere = othersLive
          .filter((row) => row.holder === `session:${holder.sessionId}` && row.item === `${kind}:${item}`)
          .reduce((sum, row) => sum + row.units, 0);
        if (elsewhere + units > limits.unitsPerSession)
          throw new AppError(
            "STOCK_SHORT",
            `You can hold at most ${limits.unitsPerSession} of ${name} while you pay. Please lower the quantity.`,
          );
      }
      const fromAddress = othersLive
        .filter((row) => row.holder === `address:${holder.ip}`)
        .reduce((sum, row) => sum + row.units, 0);
      const asked = items.reduce((sum, { units }) => sum + units, 0);
      if (asked > 0 && fromAddress + asked > limits.unitsPerAddress)
        throw new AppError(
          "STOCK_SHORT",
          `At most ${limits.unitsPerAddress} items can be held for payment from one place at a time. Please try again later or with fewer items.`,
        );

      const expiresAt = new Date(first + lifetimeMs);
      await letGo();
      const values = holders.flatMap((key) =>
        items.map(({ item, units }) => ({
          holder: key,
          item: `${kind}:${item}`,
          hold,
          units,
          first_reserved_at: new Date(first),
          expires_at: expiresAt,
        })),
      );
      if (values.length > 0)
        await trx
          .insertInto("hold_claims")
          .values(values)
          .onConflict((conflict) =>
            conflict.columns(["holder", "item", "hold"]).doUpdateSet((eb) => ({
              units: eb.ref("excluded.units"),
              expires_at: eb.ref("excluded.expires_at"),
            })),
          )
          .execute();
      return expiresAt;
    },

    /** `hold`'s claims of `kind` end without a lapse: it was sold, or the shop let it go. */
    async finish(executor: Writer, kind: ClaimKind, hold: string): Promise<void> {
      await executor.deleteFrom("hold_claims").where("hold", "=", hold).where("item", "like", ofKind(kind)).execute();
    },

    /** A hold taken under its own key becomes its intent's. */
    async rename(executor: Writer, kind: ClaimKind, from: string, to: string): Promise<void> {
      await executor.deleteFrom("hold_claims").where("hold", "=", to).where("item", "like", ofKind(kind)).execute();
      await executor
        .updateTable("hold_claims")
        .set({ hold: to })
        .where("hold", "=", from)
        .where("item", "like", ofKind(kind))
        .execute();
    },

    /** Live holds of a session and of a client address (distinct payments), for the payment limiter. */
    async liveHolds(holder: Holder): Promise<{ session: number; address: number }> {
      const keys = holderKeys(holder);
      const { rows } = await (keys.length === 2 ? liveHolds.ofTwo : liveHolds.ofOne)(
        Object.fromEntries(keys.map((key, index) => [`holder${index}`, key])),
      );
      const count = (key: string) => rows.find((row) => row.holder === key)?.holds ?? 0;
      return {
        session: holder.sessionId ? count(`session:${holder.sessionId}`) : 0,
        address: count(`address:${holder.ip}`),
      };
    },

    /** Claims whose cool-down is over tell nothing any more. */
    async prune(): Promise<void> {
      await db
        .deleteFrom("hold_claims")
        .where("expires_at", "<", sql<Date>`now() - make_interval(mins => ${reservationMinutes})`)
        .execute();
    },
  };
}

export type HoldClaims = ReturnType<typeof createHoldClaims>;
