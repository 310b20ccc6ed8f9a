import { data, type RouterContextProvider } from "react-router";
import { requestContext } from "#app/context";
import { formatShopTime } from "#shared/dates";

/**
 * The signed-in operator, for a console loader or action (and the audit log's "who"). The HTTP guard
 * (server/http/page-handlers.ts) already answers everyone else with the shop's 404 page; this is the second lock,
 * on every loader and action, so a console route can never run for anybody else.
 */
export function requireOperator(context: Readonly<RouterContextProvider>) {
  const { shopper, services } = context.get(requestContext);
  const user = shopper.user;
  if (!user?.isOperator) throw data(null, { status: 404 });
  return { actor: { id: user.id, email: user.email }, services };
}

/**
 * Who may change the shop's own settings (/admin/settings): its name, logo, addresses, time zone and legal texts.
 * One place, so that a narrower rule (the shop's owner alone) is one change.
 */
export function mayEditShopSettings(user: { isOperator?: boolean }): boolean {
  return user.isOperator === true;
}

/** The signed-in operator who may edit the shop's settings; a 404 to anybody else, as for the console itself. */
export function requireShopSettingsEditor(context: Readonly<RouterContextProvider>) {
  const operator = requireOperator(context);
  const user = context.get(requestContext).shopper.user;
  if (!user || !mayEditShopSettings(user)) throw data(null, { status: 404 });
  return operator;
}

/** "November 23rd 2026, 9:05am EST": the console states times in the shop's zone, as the order pages do. */
export function formatConsoleTime(date: Date, timeZone: string): string {
  return formatShopTime(date, timeZone);
}
