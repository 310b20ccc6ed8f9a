// What the security tests share: a browser against the shop in process, a small catalogue, and snapshots of tables to
// prove an attack changed nothing.

import { expect } from "vitest";
import { sql } from "kysely";
import type { DatabaseHandle, DB } from "#server/db/client";
import { addDeliveryAddress, createBrowser, createTestShop } from "#server/testing/test-app";

/** The host every in-process request is addressed to (createBrowser uses the same). */
export const SHOP_ORIGIN = "http://shop.test";
export const BOOK = "12321341"; // $11.96
export const ECHO = "23445930"; // $98.99
/** What a basket of one book and one echo costs, in cents. */
export const BOOK_AND_ECHO_CENTS = 1196 + 9899;

export type Browser = ReturnType<typeof createBrowser>;

/** Every table's row count and a digest of its rows: two snapshots are equal only if no row changed anywhere. */
export type TableSnapshot = Record<string, { rows: number; digest: string }>;

const tablesOf = new WeakMap<DB, Promise<string[]>>();

export async function snapshotTables(db: DB): Promise<TableSnapshot> {
  let tables = tablesOf.get(db);
  if (!tables) {
    // Table names come from the catalogue, never from a request; PostgreSQL tests run in a schema of their own.
    // Attempt counters (rate_limits) are left out: counting a refused payment attempt is what they are for.
    tables = sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name <> ${WRITE_COUNTER_TABLE} and table_name <> 'rate_limits'
      order by table_name`
      .execute(db)
      .then((result) => result.rows.map((row) => row.name));
    tablesOf.set(db, tables);
  }
  // An order-free sum of row hashes: any inserted, deleted or altered row changes it (the rows are few, so a
  // collision is not a practical worry), and it costs a fraction of a sorted md5 over every table.
  const perTable = (await tables).map(
    (name) =>
      `select '${name}' as name, count(*)::int as rows, coalesce(sum(hashtext(t::text)::bigint), 0)::text as digest from "${name}" t`,
  );
  const result = await sql<{
    name: string;
    rows: number;
    digest: string;
  }>`${sql.raw(perTable.join(" union all "))}`.execute(db);
  return Object.fromEntries(result.rows.map(({ name, rows, digest }) => [name, { rows, digest }]));
}

const WRITE_COUNTER_TABLE = "security_test_writes";

/**
 * Counts every row inserted, updated or deleted in any table from now on (row triggers into a counter row, in the
 * writer's own transaction: a rolled-back change counts nothing). One cheap read tells whether a request wrote
 * anything at all; a full snapshot per request costs ~30 ms on PGlite. Test instrumentation on a test database only.
 */
export async function installWriteCounter(db: DB): Promise<() => Promise<number>> {
  const tables = await snapshotTables(db).then(Object.keys);
  await sql.raw(`create table ${WRITE_COUNTER_TABLE} (id int primary key, writes bigint not null)`).execute(db);
  await sql.raw(`insert into ${WRITE_COUNTER_TABLE} values (1, 0)`).execute(db);
  await sql
    .raw(
      `create function ${WRITE_COUNTER_TABLE}_count() returns trigger language plpgsql as $$
       begin update ${WRITE_COUNTER_TABLE} set writes = writes + 1 where id = 1; return null; end $$`,
    )
    .execute(db);
  for (const table of tables) {
    await sql
      .raw(
        `create trigger ${WRITE_COUNTER_TABLE}_row after insert or update or delete on "${table}" for each row execute function ${WRITE_COUNTER_TABLE}_count()`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${WRITE_COUNTER_TABLE}_truncate after truncate on "${table}" for each statement execute function ${WRITE_COUNTER_TABLE}_count()`,
      )
      .execute(db);
  }
  return async () =>
    Number(
      (await sql<{ writes: string }>`select writes from ${sql.table(WRITE_COUNTER_TABLE)} where id = 1`.execute(db))
        .rows[0]?.writes,
    );
}

/**
 * A shop listening on a real port (its built-in processor is reached over HTTP, as in production), for in-process
 * requests through `app.request`. Closing stops the server; the database belongs to the test file.
 */
export async function startListeningShop(database: DatabaseHandle, options: Parameters<typeof createTestShop>[1] = {}) {
  const shop = await createTestShop(database, options);
  const running = await shop.listen(0);
  const keys = shop.processorKeys!;
  return { ...shop, keys, origin: `http://127.0.0.1:${running.port}`, close: running.close };
}

/** A guest with a book and an echo in the basket and an open payment intent for exactly that basket. */
export async function seedShopperWithOpenPayment(app: Parameters<typeof createBrowser>[0]) {
  const browser = createBrowser(app);
  for (const productId of [BOOK, ECHO]) expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
  await addDeliveryAddress(browser);
  const created = await browser.send(`/payments/create?total=${BOOK_AND_ECHO_CENTS}`, { method: "POST" });
  expect(created.status).toBe(201);
  const { clientSecret } = (await created.json()) as { clientSecret: string };
  const paymentIntentId = clientSecret.split("_secret_")[0] ?? "";
  return { browser, cookie: browser.cookie ?? "", clientSecret, paymentIntentId };
}

export interface BasketBody {
  basket: { items: { itemId: string; product: { id: string } }[]; count: number; subtotalCents: number };
}

export async function basketOf(browser: Browser): Promise<BasketBody["basket"]> {
  const response = await browser.get("/basket");
  expect(response.status).toBe(200);
  return ((await response.json()) as BasketBody).basket;
}

/** The error body of a refusal: the shop's `{ error: { code, message } }`, or the processor's Stripe-shaped one. */
export interface ErrorBody {
  error: { code?: string; type?: string; message: string };
}

/**
 * What a caller must be able to rely on for every refusal: a 4xx (never a 5xx) with a sentence saying what was
 * wrong, as JSON (which a browser never renders as HTML), or, for a page load (GET with Accept: text/html), as a
 * small HTML page whose text is escaped.
 */
export async function expectClearRefusal(response: Response, status?: number): Promise<ErrorBody["error"]> {
  if (status === undefined) {
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  } else {
    expect(response.status).toBe(status);
  }
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/html")) {
    const page = await response.text();
    const message = /<main>.*?<p>(.*?)<\/p>/s.exec(page)?.[1] ?? "";
    expect(message.length).toBeGreaterThan(10);
    expect(message).not.toMatch(/[<>]/);
    return { message };
  }
  expect(type).toMatch(/^application\/json\b/);
  const body = (await response.json()) as ErrorBody;
  expect(typeof body.error?.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(10);
  return body.error;
}

/**
 * The response as a browser's fetch hands it over: a compressed body (the shop gzips when asked) decompressed.
 * In-process `app.request` returns the bytes as sent.
 */
export async function decoded(response: Response): Promise<Response> {
  const encoding = response.headers.get("content-encoding");
  if (!encoding || !response.body) return response;
  const headers = new Headers(response.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  const body = response.body.pipeThrough(new DecompressionStream(encoding as CompressionFormat));
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** Keys that a successful prototype pollution would leave on every object. */
export function pollutedPrototypeKeys(): string[] {
  const probe: Record<string, unknown> = {};
  const inherited: string[] = [];
  for (const key in probe) inherited.push(key);
  return [...inherited, ...Object.getOwnPropertyNames(Object.prototype).filter((name) => !PROTOTYPE_NAMES.has(name))];
}

const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
