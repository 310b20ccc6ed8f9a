// The shop's Kysely dialect for embedded PGlite: statements prepared and described once, and the one connection handed
// out oldest request first, since PGlite's cost is this process's CPU.

import { parse, protocol, type ExecProtocolResult, type PGlite } from "@electric-sql/pglite";
import {
  CompiledQuery,
  PGliteAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { currentRank, OldestFirstQueue, YIELD_AFTER_MS } from "./oldest-first-queue";

/**
 * The shop's Kysely dialect for embedded PGlite, in place of Kysely's own (decision 016). PGlite works inside this
 * process, so every statement's cost is the shop's CPU; two things make it cheaper and fairer:
 *
 * - **One exchange per statement, each statement planned and described once.** PGlite's `query` makes six exchanges
 *   with the embedded server (parse, describe the statement, bind, describe the portal, execute, sync) and plans the
 *   statement every time. This connection sends them as one message, and parses each distinct SQL text once under a
 *   name (a named prepared statement, as postgres.js does by default). Its row description (column names and types)
 *   is kept from that first answer, as postgres.js keeps it: a repeated statement is bind, execute, sync, planned as
 *   PostgreSQL sees fit. Should a table change so that the rows no longer fit that description, PostgreSQL refuses
 *   the statement (0A000) and it is prepared and described afresh. Measured on a one-row select: 157 µs of CPU by
 *   `query`, 56 µs prepared; describing it each time was 10–20 % of a narrow select's cost and about half of a
 *   23-column one's (145 against 78 µs).
 *   Parameters go as text, typed by the server from the statement, as node-postgres sends them to PostgreSQL.
 * - **The oldest request first** on the one connection (oldest-first-queue.ts).
 *
 * Results are read by PGlite's own parsers, so rows look exactly as they did through `query`.
 */
export class ShopPGliteDialect implements Dialect {
  readonly #pglite: PGlite;
  readonly #turns = new OldestFirstQueue({ permits: 1, yieldAfterMs: YIELD_AFTER_MS });

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  /** The one connection as a pool of one, for /metrics: whether it is free, and how many statements wait for it. */
  connectionStats() {
    return { total: 1, idle: 1 - this.#turns.inUse, waiting: this.#turns.waiting };
  }

  createAdapter() {
    return new OwnLockAdapter();
  }

  createDriver(): Driver {
    return new OldestRequestFirstDriver(this.#pglite, this.#turns);
  }

  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

/** Kysely puts its own first-come lock in front of a single-connection dialect; this driver brings its own instead. */
class OwnLockAdapter extends PGliteAdapter {
  override get supportsMultipleConnections() {
    return true;
  }
}

class OldestRequestFirstDriver implements Driver {
  readonly #pglite: PGlite;
  readonly #turns: OldestFirstQueue;
  #connection: PreparingConnection | undefined;

  constructor(pglite: PGlite, turns: OldestFirstQueue) {
    this.#pglite = pglite;
    this.#turns = turns;
  }

  async init() {
    await this.#pglite.waitReady;
    this.#connection = new PreparingConnection(this.#pglite);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#turns.acquire(currentRank());
    return this.#connection!;
  }

  async releaseConnection() {
    this.#turns.release();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    if (settings.isolationLevel || settings.accessMode)
      throw new Error("PGlite runs one transaction at a time: isolation settings do not apply");
    await connection.executeQuery(CompiledQuery.raw("begin"));
  }

  async commitTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async destroy() {
    if (!this.#pglite.closed) await this.#pglite.close();
  }
}

/** Distinct statements kept prepared at once; past this the least recently used is closed. */
const MAX_PREPARED_STATEMENTS = 500;
/** PostgreSQL's answer when a prepared statement's result columns changed under it (a migration altered a table). */
const CACHED_PLAN_CHANGED = "0A000";

/** One message of the embedded server's answer, as PGlite's parser reads it. */
type BackendMessage = ExecProtocolResult["messages"][number];

/** A statement prepared on the connection, and what its first run said about the rows it answers with. */
interface PreparedStatement {
  name: string;
  /** Its columns (PostgreSQL's RowDescription), or null for a statement that answers with no rows (NoData). */
  rowDescription: BackendMessage | null;
}

class PreparingConnection implements DatabaseConnection {
  readonly #pglite: PGlite;
  /** SQL text → the statement prepared for it, least recently used first. */
  readonly #prepared = new Map<string, PreparedStatement>();
  #nextName = 1;

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.#execute<R>(compiledQuery);
    } catch (error) {
      if (databaseErrorCode(error) !== CACHED_PLAN_CHANGED || this.#pglite.isInTransaction()) throw error;
      // The statement was forgotten when it failed: prepared afresh, it sees the table as it is now.
      return await this.#execute<R>(compiledQuery);
    }
  }

  async #execute<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // PGlite's own query says so too; its protocol entry point would fail obscurely on a closed instance.
    if (this.#pglite.closed) throw new Error("PGlite is closed");
    const { sql: text, parameters } = compiledQuery;
    const values = parameters.map(toParameter);
    const messages: Uint8Array[] = [];
    const known = this.#prepared.get(text);
    const name = known?.name ?? `s${this.#nextName++}`;
    if (known) {
      this.#prepared.delete(text);
    } else {
      if (this.#prepared.size >= MAX_PREPARED_STATEMENTS) messages.push(...this.#forgetLeastRecentlyUsed());
      messages.push(protocol.serialize.parse({ name, text }));
    }
    messages.push(protocol.serialize.bind({ statement: name, values }));
    // Only a statement's first run asks for its columns; later runs are told them from that answer.
    if (!known) messages.push(protocol.serialize.describe({ type: "P" }));
    messages.push(protocol.serialize.execute({}), protocol.serialize.sync());
    let answers: BackendMessage[];
    try {
      ({ messages: answers } = await this.#pglite.execProtocol(Buffer.concat(messages), { syncToFs: false }));
    } catch (error) {
      // A statement parsed in this message may or may not exist now: its name is not used again (closing a statement
      // that does not exist is no error, and a close is answered even inside a failed transaction). One prepared
      // before stays prepared, unless its plan no longer fits the table.
      if (!known || databaseErrorCode(error) === CACHED_PLAN_CHANGED) await this.#close(name);
      else this.#prepared.set(text, known);
      throw error;
    }
    const statement = known ?? {
      name,
      rowDescription: answers.find((answer) => answer.name === "rowDescription") ?? null,
    };
    this.#prepared.set(text, statement);
    // PGlite's own query syncs its file system after each statement outside a transaction. Not here: the shop's
    // PGlite keeps its files in a data directory (Emscripten's NODEFS) or in memory (createPglite), both written
    // through, whose sync does nothing, and asking for it cost 9.5 µs a statement (a lock and two promises), 0.3 ms
    // of a checkout. A browser's IndexedDB needs it; the shop never runs there.
    const described = known && statement.rowDescription ? [statement.rowDescription, ...answers] : answers;
    const [result] = parse.parseResults(described, this.#pglite.parsers, { rowMode: "object" });
    return {
      rows: (result?.rows ?? []) as R[],
      numAffectedRows: result?.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  /** The close message for the least recently used statement, which is forgotten. */
  #forgetLeastRecentlyUsed(): Uint8Array[] {
    const [oldest] = this.#prepared;
    if (!oldest) return [];
    this.#prepared.delete(oldest[0]);
    return [protocol.serialize.close({ type: "S", name: oldest[1].name })];
  }

  async #close(name: string) {
    await this.#pglite.execProtocol(
      Buffer.concat([protocol.serialize.close({ type: "S", name }), protocol.serialize.sync()]),
      {
        throwOnError: false,
        syncToFs: false,
      },
    );
  }

  // eslint-disable-next-line require-yield
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error("The shop does not stream query results from PGlite");
  }
}

/** A parameter as text (or bytes), the way node-postgres sends one to PostgreSQL; the statement gives it its type. */
function toParameter(value: unknown): string | Uint8Array | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value))
    throw new TypeError(
      "An array parameter needs its PostgreSQL array type; pass it as JSON or as separate parameters",
    );
  return JSON.stringify(value);
}

function databaseErrorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}
