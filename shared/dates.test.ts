import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatOrderDate, formatShopTime } from "./dates";

/** The text Intl writes for the same moment: what formatOrderDate is held to (month, ordinal day, year, 12-hour time). */
function intlOrderDate(date: Date, timeZone: string | undefined): string {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    month: "long",
    day: "numeric",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    hour12: true,
  });
  const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
  const day = Number(parts.day);
  const suffixes: Partial<Record<Intl.LDMLPluralRule, string>> = { one: "st", two: "nd", few: "rd", other: "th" };
  const suffix = suffixes[new Intl.PluralRules("en-US", { type: "ordinal" }).select(day)];
  return `${parts.month} ${day}${suffix} ${parts.year}, ${parts.hour}:${parts.minute}${String(parts.dayPeriod).toLowerCase()}`;
}

// Any moment from 1990 to 2100.
const moments = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) }).map((ms) => new Date(ms));

describe("formatOrderDate", () => {
  it("writes the day with its ordinal and the time in 12-hour form", () => {
    expect(formatOrderDate(new Date("2026-11-21T15:34:00Z"), "UTC")).toBe("November 21st 2026, 3:34pm");
    expect(formatOrderDate(new Date("2026-01-02T00:05:00Z"), "UTC")).toBe("January 2nd 2026, 12:05am");
    expect(formatOrderDate(new Date("2026-03-03T12:00:00Z"), "UTC")).toBe("March 3rd 2026, 12:00pm");
    expect(formatOrderDate(new Date("2026-05-11T09:09:00Z"), "UTC")).toBe("May 11th 2026, 9:09am");
    expect(formatOrderDate(new Date("2026-05-22T23:59:00Z"), "UTC")).toBe("May 22nd 2026, 11:59pm");
    expect(formatOrderDate(new Date("2026-05-13T10:00:00Z"), "UTC")).toBe("May 13th 2026, 10:00am");
  });

  it("writes what Intl writes in UTC, for any moment", () => {
    fc.assert(
      fc.property(moments, (date) => formatOrderDate(date, "UTC") === intlOrderDate(date, "UTC")),
      { numRuns: 5_000 },
    );
  });

  describe("in the reader's zone (here New York, with daylight saving)", () => {
    const originalZone = process.env.TZ;
    beforeAll(() => {
      process.env.TZ = "America/New_York";
    });
    afterAll(() => {
      if (originalZone === undefined) delete process.env.TZ;
      else process.env.TZ = originalZone;
    });

    it("follows the reader's clock, summer and winter", () => {
      expect(formatOrderDate(new Date("2026-11-21T15:34:00Z"), "local")).toBe("November 21st 2026, 10:34am");
      expect(formatOrderDate(new Date("2026-07-01T03:30:00Z"), "local")).toBe("June 30th 2026, 11:30pm");
    });

    it("writes what Intl writes in that zone, for any moment", () => {
      fc.assert(
        fc.property(moments, (date) => formatOrderDate(date, "local") === intlOrderDate(date, "America/New_York")),
        { numRuns: 5_000 },
      );
    });
  });
});

describe("formatShopTime", () => {
  it("states a moment in the shop's zone with Intl's short name for it", () => {
    const moment = new Date("2026-11-21T15:34:00Z");
    expect(formatShopTime(moment, "UTC")).toBe("November 21st 2026, 3:34pm UTC");
    expect(formatShopTime(moment, "America/New_York")).toBe("November 21st 2026, 10:34am EST");
    expect(formatShopTime(moment, "Europe/Paris")).toBe("November 21st 2026, 4:34pm GMT+1");
    // Past midnight in the zone: the zone's own date.
    expect(formatShopTime(new Date("2026-07-01T03:05:00Z"), "America/Los_Angeles")).toBe("June 30th 2026, 8:05pm PDT");
  });
});
