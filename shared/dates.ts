// Dates and times as pages show them, written without Intl, in UTC on the server or in the reader's own zone.

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Where an order's moment is read: in UTC (the server, which does not know the shopper's zone) or the reader's own zone. */
export type ClockZone = "UTC" | "local";

/**
 * "November 21st 2026, 3:34pm": how the orders page states when an order was placed. The server renders UTC, the
 * browser then re-renders in the shopper's own zone.
 *
 * Written out from Date's own fields rather than with Intl.DateTimeFormat and Intl.PluralRules: in a browser tab
 * the first Intl formatter loads ICU's locale data, tens of milliseconds of main thread while the page hydrates
 * (see shared/money.ts). A test holds the text to Intl's, in UTC and in a zone with daylight saving.
 */
export function formatOrderDate(date: Date, zone: ClockZone): string {
  const [year, monthIndex, day, hours, minutes] =
    zone === "UTC"
      ? [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes()]
      : [date.getFullYear(), date.getMonth(), date.getDate(), date.getHours(), date.getMinutes()];
  const hour = hours % 12 === 0 ? 12 : hours % 12;
  return `${MONTHS[monthIndex]} ${day}${ordinalSuffix(day)} ${year}, ${hour}:${String(minutes).padStart(2, "0")}${hours < 12 ? "am" : "pm"}`;
}

/**
 * "November 21st 2026, 3:34pm EST": when an order was placed (or changed), in the shop's time zone with Intl's short
 * name for it (EST, GMT+1), the same on the order page and in the console. Called on the server only (loaders), so
 * the browser never loads Intl's locale data for it.
 */
export function formatShopTime(date: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  const day = Number(parts.day);
  const hours = Number(parts.hour) % 24;
  const hour = hours % 12 === 0 ? 12 : hours % 12;
  return `${MONTHS[Number(parts.month) - 1]} ${day}${ordinalSuffix(day)} ${parts.year}, ${hour}:${parts.minute}${hours < 12 ? "am" : "pm"} ${parts.timeZoneName}`;
}

/** English ordinals: 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st, 22nd, 23rd … 31st. */
function ordinalSuffix(day: number): string {
  if (day % 100 >= 11 && day % 100 <= 13) return "th";
  return ["th", "st", "nd", "rd"][day % 10] ?? "th";
}
