// The shop's Kysely dialect for embedded PGlite: statements prepared and described once, and the one connection handed
// out oldest request first, since PGlite's cost is this process's CPU.

import { types, type PGlite } from "@electric-sql/pglite";
import { DatabaseError, serialize } from "pg-protocol";
import type {
  BackendMessage,
  CommandCompleteMessage,
  DataRowMessage,
  RowDescriptionMessage,
} from "pg-protocol/dist/messages.js";
import { Parser } from "pg-protocol/dist/parser.js";
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
 * - **The wire protocol read and written by node-postgres's own library** (pg-protocol), as the PostgreSQL path reads
 *   it. PGlite's `execProtocol` copies the embedded server's answer four times and parses every message into objects
 *   that its `parseResults` then maps again; here the answer is copied once, parsed as it streams out, and each row
 *   is built straight from its fields. Values are typed by PGlite's own parsers, so rows look exactly as they did
 *   through `query`. Measured over whole checkouts: BENCH_ONLY=cpuPerRequest npm run bench.
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

/** A statement prepared on the connection, and what its first run said about the rows it answers with. */
interface PreparedStatement {
  name: string;
  /** Its columns (PostgreSQL's RowDescription), or null for a statement that answers with no rows (NoData). */
  rowDescription: RowDescriptionMessage | null;
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
    const messages: Buffer[] = [];
    const known = this.#prepared.get(text);
    const name = known?.name ?? `s${this.#nextName++}`;
    if (known) {
      this.#prepared.delete(text);
    } else {
      if (this.#prepared.size >= MAX_PREPARED_STATEMENTS) messages.push(...this.#forgetLeastRecentlyUsed());
      messages.push(serialize.parse({ name, text }));
    }
    messages.push(serialize.bind({ statement: name, values }));
    // Only a statement's first run asks for its columns; later runs are told them from that answer.
    if (!known) messages.push(serialize.describe({ type: "P" }));
    messages.push(serialize.execute({}), serialize.sync());
    let answers: BackendMessage[];
    try {
      answers = await this.#exchange(Buffer.concat(messages));
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
      rowDescription: (answers.find((answer) => answer.name === "rowDescription") as RowDescriptionMessage) ?? null,
    };
    this.#prepared.set(text, statement);
    return this.#toResult<R>(statement.rowDescription, answers);
  }

  /**
   * Sends one message to the embedded server and reads its answer as it streams out, copied once. PGlite's own `query`
   * syncs its file system after each statement outside a transaction. Not here: the shop's PGlite keeps its files in a
   * data directory (Emscripten's NODEFS) or in memory (createPglite), both written through, whose sync does nothing,
   * and asking for it cost 9.5 µs a statement (a lock and two promises), 0.3 ms of a checkout. A browser's IndexedDB
   * needs it; the shop never runs there.
   */
  async #exchange(message: Buffer): Promise<BackendMessage[]> {
    const parser = new Parser();
    const answers: BackendMessage[] = [];
    let failure: DatabaseError | undefined;
    const read = (answer: BackendMessage) => {
      if (answer instanceof DatabaseError) failure ??= answer;
      else answers.push(answer);
    };
    await this.#pglite.execProtocolRawStream(message, {
      syncToFs: false,
      // The chunk is a view of the server's memory, reused once this returns: the parser may keep a partial message.
      onRawData: (chunk) => parser.parse(Buffer.from(chunk), read),
    });
    if (failure) throw failure;
    return answers;
  }

  /** The rows as objects typed by PGlite's parsers, and how many rows a write touched, as PGlite's `query` answers. */
  #toResult<R>(description: RowDescriptionMessage | null, answers: BackendMessage[]): QueryResult<R> {
    const fields = description?.fields ?? [];
    const parsers = fields.map((field) => this.#pglite.parsers[field.dataTypeID] ?? types.parsers[field.dataTypeID]);
    const rows: Record<string, unknown>[] = [];
    let numAffectedRows: bigint | undefined;
    for (const answer of answers) {
      if (answer.name === "dataRow") {
        const values = (answer as DataRowMessage).fields as (string | null)[];
        const row: Record<string, unknown> = {};
        for (let index = 0; index < fields.length; index++) {
          const value = values[index] ?? null;
          const parse = parsers[index];
          row[fields[index]!.name] = value === null || !parse ? value : parse(value, fields[index]!.dataTypeID);
        }
        rows.push(row);
      } else if (answer.name === "commandComplete") {
        const [command, ...rest] = (answer as CommandCompleteMessage).text.split(" ");
        const count = Number(rest.at(-1));
        if (AFFECTING_COMMANDS.has(command!) && Number.isInteger(count)) numAffectedRows = BigInt(count);
      }
    }
    return { rows: rows as R[], numAffectedRows };
  }

  /** The close message for the least recently used statement, which is forgotten. */
  #forgetLeastRecentlyUsed(): Buffer[] {
    const [oldest] = this.#prepared;
    if (!oldest) return [];
    this.#prepared.delete(oldest[0]);
    return [serialize.close({ type: "S", name: oldest[1].name })];
  }

  async #close(name: string) {
    await this.#pglite.execProtocolRawStream(Buffer.concat([serialize.close({ type: "S", name }), serialize.sync()]), {
      syncToFs: false,
      onRawData: () => {},
    });
  }

  // eslint-disable-next-line require-yield
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error("The shop does not stream query results from PGlite");
  }
}

/** The commands whose completion counts the rows they touched (Kysely's numAffectedRows), as PGlite's `query` counts. */
const AFFECTING_COMMANDS = new Set(["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"]);

/** A parameter as text (or bytes), the way node-postgres sends one to PostgreSQL; the statement gives it its type. */
function toParameter(value: unknown): string | Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
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
