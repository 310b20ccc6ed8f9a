/**
 * docs/ARCHITECTURE.md's "Who writes which table", kept true: every statement of the server's own code that writes a
 * table (Kysely's insertInto, updateTable, deleteFrom, mergeInto, and insert, update and delete in raw SQL) is read
 * per folder, and a table written from a folder its row does not name fails here with the line to change. Tests,
 * the test harness and the migrations (which make the tables and their triggers) are not read.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const ARCHITECTURE = "docs/ARCHITECTURE.md";
const HEADING = "## Who writes which table";
const NOT_READ = [/\.test\.tsx?$/, /^server\/testing\//, /^server\/db\/migrations\//];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !NOT_READ.some((pattern) => pattern.test(path)) ? [path] : [];
  });
}

/** The tables of the shop's database, as server/db/schema.ts types them. */
function knownTables(): Set<string> {
  const schema = readFileSync(join(ROOT, "server/db/schema.ts"), "utf8");
  const body = /export interface Database \{([^}]*)\}/.exec(schema)?.[1] ?? "";
  return new Set([...body.matchAll(/^\s*([a-z_]+):/gm)].map((match) => match[1]!));
}

/** The folder a path names: server/admin/operator-service.ts is server/admin. */
function folderOf(path: string): string {
  return path.split("/").slice(0, 2).join("/");
}

/** Each table's row: the folders it names as writing it (its owner, and the callers that write in its transaction). */
function writersTable(tables: Set<string>): Map<string, Set<string>> {
  const text = readFileSync(join(ROOT, ARCHITECTURE), "utf8");
  const section = text.slice(text.indexOf(HEADING));
  const writers = new Map<string, Set<string>>();
  for (const line of section.split("\n")) {
    const cells = /^\|([^|]+)\|(.+)\|\s*$/.exec(line);
    if (!cells) continue;
    const folders = new Set([...cells[2]!.matchAll(/\bserver\/[a-z-]+/g)].map((match) => match[0]));
    for (const name of cells[1]!.split(",").map((cell) => cell.trim().replaceAll("`", ""))) {
      if (tables.has(name)) writers.set(name, folders);
    }
  }
  // The retention sweep deletes long-expired rows of the tables its sentence lists, whoever owns them.
  const sweep = /server\/retention's sweep deletes rows long expired: ([^.]+)\./.exec(section)?.[1] ?? "";
  for (const [name] of sweep.matchAll(/[a-z_]+/g)) writers.get(name)?.add("server/retention");
  return writers;
}

interface Write {
  table: string;
  file: string;
  line: number;
  how: string;
}

/** Comments out, lengths kept, so that a sentence about a table is not read as a write and lines still count. */
function withoutComments(source: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, " ");
  return source.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/(^|[^:"'`\\])\/\/[^\n]*/g, (match, before: string) => {
    return before + blank(match.slice(before.length));
  });
}

function writesIn(file: string, text: string, tables: Set<string>): Write[] {
  const source = withoutComments(text);
  const lineOf = (index: number) => source.slice(0, index).split("\n").length;
  const writes: Write[] = [];
  const kysely = /\.(insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\(\s*["'`]([a-z_]+)/g;
  for (const match of source.matchAll(kysely)) {
    writes.push({ table: match[2]!, file, line: lineOf(match.index), how: match[1]! });
  }
  const raw = /\b(insert\s+into|update|delete\s+from)\s+([a-z_]+)\b/gi;
  for (const match of source.matchAll(raw)) {
    const table = match[2]!.toLowerCase();
    if (!tables.has(table)) continue;
    writes.push({ table, file, line: lineOf(match.index), how: `sql ${match[1]!.toLowerCase().replace(/\s+/, " ")}` });
  }
  return writes.filter((write) => tables.has(write.table));
}

it("every table is written only from the folders its row in ARCHITECTURE.md names", () => {
  const tables = knownTables();
  const writers = writersTable(tables);
  const problems: string[] = [];
  for (const table of tables) {
    if (!writers.has(table)) {
      problems.push(
        `${table} has no row in ${ARCHITECTURE}'s "Who writes which table": add \`| ${table} | server/<owner>/<file>.ts |\``,
      );
    }
  }
  for (const write of sourceFiles("server").flatMap((file) =>
    writesIn(file, readFileSync(join(ROOT, file), "utf8"), tables),
  )) {
    const folders = writers.get(write.table);
    const folder = folderOf(write.file);
    if (!folders || folders.has(folder)) continue;
    const owners = [...folders].join(", ") || "no code (its row names no folder)";
    problems.push(
      `${write.table} is written in ${write.file}:${write.line} (${write.how}), but its row in ${ARCHITECTURE} names ` +
        `${owners}: ask the owner to write it, or name ${folder} in the row (\`| ${write.table} | … ${write.file} … |\`)`,
    );
  }
  expect(problems, problems.join("\n")).toEqual([]);
});

it("reads writes from Kysely and from raw SQL, not from comments or reads", () => {
  const tables = new Set(["orders", "users", "sessions"]);
  const source = [
    'await trx.insertInto("orders").values(row).execute();',
    "await db",
    '  .updateTable("users")',
    "  .set({ a: 1 });",
    "await sql`delete from sessions where id = ${id}`.execute(db);",
    "// update orders: a sentence about the table",
    'await db.selectFrom("users").forUpdate().execute();',
    "await sql`select 1 from orders for update`.execute(db);",
  ].join("\n");
  expect(writesIn("server/x/y.ts", source, tables)).toEqual([
    { table: "orders", file: "server/x/y.ts", line: 1, how: "insertInto" },
    { table: "users", file: "server/x/y.ts", line: 3, how: "updateTable" },
    { table: "sessions", file: "server/x/y.ts", line: 5, how: "sql delete from" },
  ]);
});
