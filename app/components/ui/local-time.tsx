import { useSyncExternalStore } from "react";
import type { ClockZone } from "#shared/dates";

const subscribeNever = () => () => {};

/**
 * A moment shown in the reader's own time zone. The server does not know that zone, so it renders UTC (and says
 * so); the browser then shows local time. useSyncExternalStore keeps hydration free of mismatches.
 */
export function LocalTime({ iso, format }: { iso: string; format: (date: Date, zone: ClockZone) => string }) {
  const date = new Date(iso);
  const text = useSyncExternalStore(
    subscribeNever,
    () => format(date, "local"),
    () => `${format(date, "UTC")} UTC`,
  );
  return <time dateTime={iso}>{text}</time>;
}
