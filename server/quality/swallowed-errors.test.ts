import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Errors are never swallowed: every `catch` block and `.catch(…)` callback in the server either throws (a rethrow, or
 * the error in the shop's words) or tells the log what it caught (a logger's fatal/error/warn/info/debug/trace).
 * A catch that is expected control flow matches its one error and rethrows the others, so it throws too.
 * The test harness (server/testing/) and the tests themselves are not the shop and are not scanned.
 */
const LOG_METHODS = new Set(["fatal", "error", "warn", "info", "debug", "trace"]);

/** Each catch in the source that neither throws nor logs, as `file:line: text`. */
export function findSwallowedErrors(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push(`${fileName}:${line + 1}: ${node.getText(file).split("\n")[0]?.slice(0, 100)}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isCatchClause(node) && !throwsOrLogs(node.block)) report(node);
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "catch"
    ) {
      const handler = node.arguments[0];
      // A named handler (`.catch(logFailure)`) is checked where it is defined, as any function; a missing one swallows.
      if (
        !handler ||
        ((ts.isArrowFunction(handler) || ts.isFunctionExpression(handler)) && !throwsOrLogs(handler.body))
      )
        report(node.expression.name);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function throwsOrLogs(body: ts.Node): boolean {
  let does = false;
  const visit = (node: ts.Node) => {
    if (does) return;
    if (ts.isThrowStatement(node)) does = true;
    // Promise.reject(error) in a .catch callback rethrows as surely as `throw`.
    else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const { name, expression } = node.expression;
      if (LOG_METHODS.has(name.text) && /log/i.test(expression.getText())) does = true;
      if (name.text === "reject" && expression.getText() === "Promise") does = true;
    }
    if (!does) ts.forEachChild(node, visit);
  };
  visit(body);
  return does;
}

function serverSources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory())
      return entry.name === "testing" || entry.name === "node_modules" ? [] : serverSources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("errors are never swallowed", () => {
  it("finds a catch that neither throws nor logs, and passes one that does either", () => {
    const planted = `
      export async function load(read: () => Promise<string>, logger: { warn: (o: object, m: string) => void }) {
        try { JSON.parse(await read()); } catch { return null; }
        try { JSON.parse(await read()); } catch (error) { logger.warn({ err: error }, "The settings could not be read; using the defaults"); }
        try { JSON.parse(await read()); } catch (error) { if (!(error instanceof SyntaxError)) throw error; }
        await read().catch(() => null);
        await read().catch((error) => { console.log(error); return ""; });
        await read().catch((error) => logger.warn({ err: error }, "Reading failed; carrying on without it"));
        await read().catch((error) => Promise.reject(error));
      }`;
    expect(findSwallowedErrors("planted.ts", planted)).toEqual([
      "planted.ts:3: catch { return null; }",
      "planted.ts:6: catch",
      "planted.ts:7: catch",
    ]);
  });

  it("holds for every catch in server/", () => {
    const root = join(import.meta.dirname, "..");
    const swallowed = serverSources(root).flatMap((path) =>
      findSwallowedErrors(relative(join(root, ".."), path), readFileSync(path, "utf8")),
    );
    expect(swallowed).toEqual([]);
  });
});
