// The shape of the shop's row ids, checked before an id from an address or a form reaches the database.

import { z } from "zod";

/**
 * The shape of the shop's row ids (UUIDs, as PostgreSQL writes them). An id from an address or a form is checked
 * against it before it reaches the database, which would answer anything else with an error, not "no such row".
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A row's id as a form's hidden field carries it; anything else is refused before any query. */
export const rowIdField = z.string().regex(UUID, "That is no longer here. Reload the page and try again.");
