// The console's door for every loader and action: the signed-in member of staff whose role opens this page or button,
// and 404 for anybody else.

import { data, type RouterContextProvider } from "react-router";
import { requestContext } from "#app/context";
import { formatShopTime } from "#shared/dates";
import { mayUse, type ConsoleRouteId } from "#shared/console-access";

/**
 * The signed-in member of staff, for a console loader or action (and the audit log's "who"), when their role lets
 * them use this route's page, or the action's button named by `intent` (shared/console-access.ts says which area
 * each needs). Anyone else gets 404, as a shopper does: the HTTP guard (server/http/page-handlers.ts) already answers
 * shoppers and guests with the shop's 404 page; this is the lock every loader and action turns.
 *
 * An action passes the form's `intent` (null when the form has none); a loader passes nothing.
 */
export function requireConsole(
  context: Readonly<RouterContextProvider>,
  route: ConsoleRouteId,
  intent?: string | null,
) {
  const { shopper, services } = context.get(requestContext);
  const user = shopper.user;
  if (!user?.isOperator || !user.console || !mayUse(user.console, route, intent)) throw data(null, { status: 404 });
  return { actor: { id: user.id, email: user.email }, access: user.console, services };
}

/** "November 23rd 2026, 9:05am EST": the console states times in the shop's zone, as the order pages do. */
export function formatConsoleTime(date: Date, timeZone: string): string {
  return formatShopTime(date, timeZone);
}
