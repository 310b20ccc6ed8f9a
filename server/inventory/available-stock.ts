/**
 * The reservation rule of stock, written once: a variant's available quantity is what is on hand less what live
 * reservations (not expired) hold of it for payments; a variant that does not track stock has no available quantity
 * (it is always for sale). The inventory module writes the reservations; the catalogue, the console and inventory's
 * own reads take the rule from here. Each fragment reads the variant under the alias `v` (`product_variants as v`).
 */

import { sql } from "kysely";

/** Units of the variant `v` that live reservations hold now. */
export const reservedOfVariant = sql<number>`coalesce((select sum(r.quantity) from stock_reservations r where r.variant_id = v.id and r.expires_at > now()), 0)::int`;

/** What of the variant `v` is available now (on hand less reserved), whether or not it tracks stock. */
export const availableOfVariant = sql<number>`(v.on_hand - ${reservedOfVariant})`;

/** Whether some of the variant `v` is available now: more on hand than is reserved. */
export const isVariantAvailable = sql<boolean>`(v.on_hand > ${reservedOfVariant})`;

/** A variant's available quantity from its row and its reserved units; null when it does not track stock. */
export function availableOf(row: { tracks_stock: boolean; on_hand: number; reserved: number }): number | null {
  return row.tracks_stock ? row.on_hand - row.reserved : null;
}
