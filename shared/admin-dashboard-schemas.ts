// The sales dashboard's periods and its query (a period, or a custom range of dates), checked at the edge.

import "./zod-policy";
import { z } from "zod";

/** The dashboard's periods, as operators read them. */
export const DASHBOARD_PERIODS = {
  today: "Today",
  "last-7-days": "Last 7 days",
  "last-30-days": "Last 30 days",
  custom: "Custom range",
} as const;

/** The longest custom range: a year, leap day included. */
export const MAX_CUSTOM_RANGE_DAYS = 366;

export type DashboardPeriod =
  { period: "today" | "last-7-days" | "last-30-days" } | { period: "custom"; from: string; to: string };

/** Days since 1970-01-01 of a real calendar date written YYYY-MM-DD (years 2000 to 2199), else null. */
function dayNumber(date: string): number | null {
  const match = /^(2[01]\d\d)-(\d\d)-(\d\d)$/.exec(date);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const time = Date.UTC(year, month - 1, day);
  const back = new Date(time);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return time / 86_400_000;
}

const dateField = (what: string) =>
  z
    .string()
    .trim()
    .max(10, `Enter the ${what} date like 2026-03-08.`)
    .refine((date) => date === "" || dayNumber(date) !== null, `Enter the ${what} date like 2026-03-08.`);

/**
 * The dashboard's query string: a period, and for a custom range its first and last dates (both included), in the
 * shop's time zone. Fields other than these are ignored (a GET form's own additions).
 */
export const dashboardQuerySchema = z
  .object({
    period: z
      .enum(Object.keys(DASHBOARD_PERIODS) as [keyof typeof DASHBOARD_PERIODS, ...(keyof typeof DASHBOARD_PERIODS)[]])
      .default("today"),
    from: dateField("first").default(""),
    to: dateField("last").default(""),
  })
  .superRefine((query, context) => {
    if (query.period !== "custom") return;
    if (query.from === "")
      context.addIssue({ code: "custom", path: ["from"], message: "Enter the first date like 2026-03-08." });
    if (query.to === "")
      context.addIssue({ code: "custom", path: ["to"], message: "Enter the last date like 2026-03-08." });
    const from = dayNumber(query.from);
    const to = dayNumber(query.to);
    if (from === null || to === null) return;
    if (to < from)
      context.addIssue({ code: "custom", path: ["to"], message: "The last date must not be before the first." });
    else if (to - from + 1 > MAX_CUSTOM_RANGE_DAYS)
      context.addIssue({ code: "custom", path: ["to"], message: `A range is at most ${MAX_CUSTOM_RANGE_DAYS} days.` });
  })
  .transform((query): DashboardPeriod =>
    query.period === "custom" ? { period: "custom", from: query.from, to: query.to } : { period: query.period },
  );
