// A statement built and compiled once and then run with each call's values, for the statements every request or every
// checkout runs: the shop's (the session lookup, a payment's row, the order's insert) and the test processor's.

import { createQueryId, type Compilable, type Kysely, type QueryResult } from "kysely";

/**
 * A statement Kysely builds and compiles once, then runs with each call's values. Kysely builds a query's tree (every
 * node frozen) and compiles it to SQL anew at each execution: for a statement every request runs (the session
 * lookup), that was more of the server's CPU than sending it and reading its answer.
 *
 * `build` is called once, with a placeholder object for each named value; where each placeholder lands among the
 * compiled parameters is found by identity, so each call's values take exactly those places. A parameter that is not
 * a placeholder (a constant written into `build`) would be kept from the first call, so it is refused when the
 * statement is prepared, as is a named value the statement never uses: write constants into the SQL instead.
 *
 * A call runs on `db`, or on `executor` when given (a transaction): the compiled statement is the same for both.
 */
export function preparedStatement<DB, Values extends Record<string, unknown>, Row>(
  db: Kysely<DB>,
  names: readonly (keyof Values & string)[],
  build: (db: Kysely<DB>, values: Values) => Compilable<Row>,
): (values: Values, executor?: Kysely<DB>) => Promise<QueryResult<Row>> {
  let prepared: { compiled: ReturnType<Compilable<Row>["compile"]>; slots: (keyof Values & string)[] } | undefined;
  const prepare = () => {
    const placeholders = Object.fromEntries(names.map((name) => [name, { placeholder: name }]));
    const compiled = build(db, placeholders as unknown as Values).compile();
    const slots = compiled.parameters.map((parameter) => {
      const name = names.find((candidate) => placeholders[candidate] === parameter);
      if (!name) throw new Error(`prepared statement: a parameter (${String(parameter)}) is not a named value`);
      return name;
    });
    const unused = names.filter((name) => !slots.includes(name));
    if (unused.length > 0) throw new Error(`prepared statement: ${unused.join(", ")} not used`);
    return { compiled, slots };
  };
  return async (values, executor = db) => {
    prepared ??= prepare();
    const { compiled, slots } = prepared;
    return executor.executeQuery({
      ...compiled,
      queryId: createQueryId(),
      parameters: slots.map((slot) => values[slot]),
    });
  };
}
