// Migration 0019: a correction of the seeded catalogue's cheaper monitor, left alone where the operator already changed
// it.

import { sql, type Kysely } from "kysely";

/**
 * The seeded catalogue's cheaper Samsung monitor had the dearer one's model number and nearly its title: it gets its
 * own (the 3840 x 1080 model). A shop whose operator already changed that product's title keeps the operator's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update products
       set title = ${CHEAPER_MONITOR_TITLE},
           description = replace(description, '120 Hz refresh rate with FreeSync 2', '144 Hz refresh rate with FreeSync 2'),
           updated_at = now()
     where id = '4903850' and title = ${"Samsung LC49RG90SSUXEN 49' Curved LED Gaming Monitor"}`.execute(db);
}

/** As in server/catalogue/catalogue-data.ts. */
const CHEAPER_MONITOR_TITLE = "Samsung LC49HG90DMUXEN 49' Curved QLED Gaming Monitor - Double Full HD 3840 x 1080";
