import { describe, expect, it } from "vitest";
import { formatOrderDate } from "./dates";

describe("formatOrderDate", () => {
  it("writes the day with its ordinal and the time in 12-hour form", () => {
    expect(formatOrderDate(new Date("2026-11-21T15:34:00Z"), "UTC")).toBe("November 21st 2026, 3:34pm");
    expect(formatOrderDate(new Date("2026-01-02T00:05:00Z"), "UTC")).toBe("January 2nd 2026, 12:05am");
    expect(formatOrderDate(new Date("2026-03-03T12:00:00Z"), "UTC")).toBe("March 3rd 2026, 12:00pm");
    expect(formatOrderDate(new Date("2026-05-11T09:09:00Z"), "UTC")).toBe("May 11th 2026, 9:09am");
    expect(formatOrderDate(new Date("2026-05-22T23:59:00Z"), "UTC")).toBe("May 22nd 2026, 11:59pm");
  });

  it("follows the time zone it is given", () => {
    expect(formatOrderDate(new Date("2026-11-21T15:34:00Z"), "America/New_York")).toBe("November 21st 2026, 10:34am");
  });
});
