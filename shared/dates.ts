const ordinalRules = new Intl.PluralRules("en-US", { type: "ordinal" });
const ordinalSuffix: Record<string, string> = { one: "st", two: "nd", few: "rd", other: "th" };

/**
 * "November 21st 2026, 3:34pm": how the orders page states when an order was placed. In the given time zone:
 * the server renders UTC, the browser then re-renders in the shopper's own zone.
 */
export function formatOrderDate(date: Date, timeZone?: string): string {
  const parts = Object.fromEntries(orderDateFormat(timeZone).formatToParts(date).map((part) => [part.type, part.value]));
  const day = Number(parts.day);
  const suffix = ordinalSuffix[ordinalRules.select(day)] ?? "th";
  return `${parts.month} ${day}${suffix} ${parts.year}, ${parts.hour}:${parts.minute}${String(parts.dayPeriod).toLowerCase()}`;
}

// Building a DateTimeFormat costs far more than formatting with one (it loads the locale's and zone's data), and
// an orders page formats twenty dates: one formatter per time zone, kept.
const orderDateFormats = new Map<string | undefined, Intl.DateTimeFormat>();

function orderDateFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  let format = orderDateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, month: "long", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit", hour12: true });
    orderDateFormats.set(timeZone, format);
  }
  return format;
}
