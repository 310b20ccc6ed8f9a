/**
 * The shop's days, in its time zone (SHOP_TIME_ZONE): which date it is, and the instant each date starts. Temporal
 * (polyfilled until Node ships it) does the zone arithmetic: a day across a change to or from summer time is 23 or
 * 25 hours long, and where midnight is skipped the day starts when the clocks say so (docs/decisions/022).
 */

import { Temporal } from "temporal-polyfill";

/** Whether `name` is a time zone the runtime knows (an IANA name such as Europe/Paris, or UTC). */
export function isKnownTimeZone(name: string): boolean {
  try {
    Temporal.Now.zonedDateTimeISO(name);
    return true;
  } catch (error) {
    // Temporal answers a zone it does not know with a RangeError; anything else is not an answer about the name.
    if (error instanceof RangeError) return false;
    throw error;
  }
}

/** "2026-03-08": the date in the zone at `now`. */
export function dateInZone(now: Date, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timeZone).toPlainDate().toString();
}

/** The first instant of a date (YYYY-MM-DD) in the zone. */
export function startOfDate(date: string, timeZone: string): Date {
  return new Date(Temporal.PlainDate.from(date).toZonedDateTime({ timeZone }).epochMilliseconds);
}

/** The date `days` after (or, negative, before) `date`. */
export function addDays(date: string, days: number): string {
  return Temporal.PlainDate.from(date).add({ days }).toString();
}

/** Every date from `from` to `to`, both included, in order. */
export function datesFrom(from: string, to: string): string[] {
  const count = Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to), { largestUnit: "days" }).days + 1;
  return Array.from({ length: Math.max(0, count) }, (_, index) => addDays(from, index));
}
