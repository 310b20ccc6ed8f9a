import { sql, type Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { openBarePglite } from "#server/testing/test-database";
import { createPglite, wrapPglite } from "./client";

/** An empty PGlite, for statements on tables the shop's schema does not know. */
function openUntypedPglite() {
  return openBarePglite().db as unknown as Kysely<Record<string, Record<string, unknown>>>;
}

describe("statements on PGlite, each planned once", () => {
  it("answers as PGlite's own query does: types, nulls, bytes, JSON, dates, counts of changed rows", async () => {
    const db = openUntypedPglite();
    const pglite = createPglite();
    try {
      const statement = `select $1::int as whole, $2::text as text, $3::bytea as bytes, $4::jsonb as json, $5::timestamptz as at,
        $6::boolean as yes, $7::numeric as amount, $8::bigint as big, $9::text as nothing`;
      const at = new Date("2026-11-24T12:34:56.789Z");
      const parameters = [
        42,
        "Grüße, 'quoted'",
        Buffer.from([0, 1, 254, 255]),
        JSON.stringify({ a: [1, "two"] }),
        at,
        true,
        "12.50",
        9007199254740993n,
        null,
      ];
      const compiled = {
        sql: statement,
        parameters,
        query: { kind: "RawNode" },
        queryId: { queryId: "test" },
      } as never;
      const viaShop = await db.executeQuery(compiled);
      const viaPglite = await pglite.query(
        statement,
        parameters.map((value) => (typeof value === "bigint" ? value.toString() : value)),
      );
      expect(viaShop.rows).toEqual(viaPglite.rows);
      // Run again, the statement is no longer described: its rows must read the same.
      expect((await db.executeQuery(compiled)).rows).toEqual(viaPglite.rows);
      expect(viaShop.rows[0]).toMatchObject({
        whole: 42,
        text: "Grüße, 'quoted'",
        json: { a: [1, "two"] },
        at,
        yes: true,
        nothing: null,
      });
      expect(Buffer.from((viaShop.rows[0] as { bytes: Uint8Array }).bytes)).toEqual(Buffer.from([0, 1, 254, 255]));

      await sql`create table things (id int primary key, name text)`.execute(db);
      const inserted = await sql`insert into things values (1, 'a'), (2, 'b')`.execute(db);
      expect(inserted.numAffectedRows).toBe(2n);
      const updated = await sql`update things set name = ${"c"} where id > ${0}`.execute(db);
      expect(updated.numAffectedRows).toBe(2n);
    } finally {
      await pglite.close();
    }
  });

  it("a failed statement reports PostgreSQL's code and leaves the same statement working afterwards", async () => {
    const db = openUntypedPglite();
    await sql`create table things (id int primary key)`.execute(db);
    const insert = (id: number) => sql`insert into things values (${id})`.execute(db);
    await insert(1);
    await expect(insert(1)).rejects.toMatchObject({ code: "23505" });
    await insert(2);
    // A JavaScript array has no one PostgreSQL type: refused before anything is sent.
    await expect(sql`select * from things where id = any(${[1, 2]})`.execute(db)).rejects.toThrow(/array parameter/);
    // A statement whose first parse failed is not taken for prepared.
    await expect(sql`select nope from things where id = ${1}`.execute(db)).rejects.toMatchObject({ code: "42703" });
    await sql`alter table things add column nope int`.execute(db);
    expect((await sql`select nope from things where id = ${1}`.execute(db)).rows).toEqual([{ nope: null }]);
  });

  it("a prepared statement whose table changed shape answers with the new shape", async () => {
    const db = openUntypedPglite();
    await sql`create table things (id int primary key)`.execute(db);
    await sql`insert into things values (1)`.execute(db);
    const everything = () => sql`select * from things where id = ${1}`.execute(db);
    expect((await everything()).rows).toEqual([{ id: 1 }]);
    await sql`alter table things add column name text default 'new'`.execute(db);
    expect((await everything()).rows).toEqual([{ id: 1, name: "new" }]);
    // The columns a statement was first described with do not outlive a rename or a change of type.
    await sql`alter table things rename column name to title`.execute(db);
    expect((await everything()).rows).toEqual([{ id: 1, title: "new" }]);
    await sql`alter table things alter column title drop default, alter column title type int using 7`.execute(db);
    expect((await everything()).rows).toEqual([{ id: 1, title: 7 }]);
  });

  it("a statement that answered with no rows at first answers with the rows it finds later", async () => {
    const db = openUntypedPglite();
    await sql`create table things (id int primary key, name text)`.execute(db);
    const named = (id: number) => sql`select name from things where id = ${id}`.execute(db);
    expect((await named(1)).rows).toEqual([]);
    await sql`insert into things values (1, 'a')`.execute(db);
    expect((await named(1)).rows).toEqual([{ name: "a" }]);
    const insert = (id: number) => sql`insert into things values (${id}, 'b')`.execute(db);
    expect((await insert(2)).rows).toEqual([]);
    expect((await insert(3)).numAffectedRows).toBe(1n);
  });

  it("transactions commit and roll back, and a failed one does not spoil the statements after it", async () => {
    const db = openUntypedPglite();
    await sql`create table things (id int primary key)`.execute(db);
    await db.transaction().execute(async (trx) => {
      await sql`insert into things values (${1})`.execute(trx);
    });
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into things values (${2})`.execute(trx);
        await sql`insert into things values (${1})`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect((await sql`select id from things order by id`.execute(db)).rows).toEqual([{ id: 1 }]);
    await sql`insert into things values (${2})`.execute(db);
    expect((await sql`select count(*)::int as n from things`.execute(db)).rows).toEqual([{ n: 2 }]);
  });

  it("a statement after the database was closed fails with a clear error", async () => {
    const pglite = createPglite();
    const closing = wrapPglite(pglite);
    await sql`select 1`.execute(closing.db);
    await pglite.close();
    await expect(sql`select 1`.execute(closing.db)).rejects.toThrow("PGlite is closed");
  });

  it("reads answers far larger than one chunk of the server's output, row for row as PGlite's own query", async () => {
    const db = openUntypedPglite();
    const pglite = createPglite();
    try {
      // One value of 3 MB, and 20,000 rows: both arrive in many chunks, messages cut across them.
      const statement = `select n, repeat(chr(65 + n % 26), n % 50) as text, case when n = 7 then repeat('é', 1500000) end as big
        from generate_series(1, $1::int) as n`;
      const compiled = { sql: statement, parameters: [20_000], query: { kind: "RawNode" }, queryId: { queryId: "t" } };
      const { rows } = await db.executeQuery(compiled as never);
      const expected = await pglite.query(statement, [20_000]);
      expect(rows).toHaveLength(20_000);
      expect(rows).toEqual(expected.rows);
      expect((rows[6] as { big: string }).big).toHaveLength(1_500_000);
    } finally {
      await pglite.close();
    }
  });

  it("keeps working past the number of statements it keeps prepared", async () => {
    const db = openUntypedPglite();
    for (let index = 0; index < 1_200; index += 1) {
      const { rows } = await sql`select ${index}::int + ${sql.lit(index % 700)} as n`.execute(db);
      expect(rows).toEqual([{ n: index + (index % 700) }]);
    }
  });
});
