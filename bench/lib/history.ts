import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { table } from "./report.ts";

/** The few figures of a run worth comparing across runs; everything else is in latest.json. */
interface RunJson {
  date: string;
  commit: string;
  settings?: { only?: string[] | null };
  targetsMissed?: string[];
  budgetFailures?: string[];
  problems?: string[];
  scenarios?: Record<string, { measurements?: Measurement[] }>;
}
interface Measurement {
  database: string;
  result?: { js?: { gzipBytes: number }; rows?: { name: string; cpuMsPerRequest?: number }[] };
}

const HEADERS = [
  "date",
  "commit",
  "home JS (gzip-9)",
  "guest GET / CPU ms (PG)",
  "signed-in GET / CPU ms (PG)",
  "floor CPU ms (PG)",
  "basket add+remove CPU ms (PG / PGlite)",
  "checkout CPU ms (PG / PGlite)",
];

/** A run of some scenarios alone (BENCH_ONLY) has none of the whole run's figures: its row says what ran and how it went. */
const SCENARIO_HEADERS = ["date", "commit", "scenarios", "databases", "targets missed", "over budget", "problems"];

function cpu(run: RunJson, database: string, rowName: string): number | undefined {
  const rows = run.scenarios?.cpuPerRequest?.measurements?.find((m) => m.database === database)?.result?.rows;
  return rows?.find((row) => row.name.startsWith(rowName))?.cpuMsPerRequest;
}

function figure(value: number | undefined): string {
  return value === undefined ? "-" : value.toFixed(3);
}

/** A list as one table cell: "none", or its entries separated by semicolons (a "|" would end the cell). */
function cell(entries: string[] | undefined): string {
  return entries && entries.length > 0
    ? entries.map((entry) => entry.split("\n")[0]!.replaceAll("|", "/")).join("; ")
    : "none";
}

/** How many, the details being in latest.md. */
function count(entries: string[] | undefined): string {
  return String(entries?.length ?? 0);
}

/** One row of the history table for a run's JSON. */
export function historyRow(run: RunJson): string[] {
  if (run.settings?.only) {
    const scenarios = Object.values(run.scenarios ?? {});
    const databases = new Set(
      scenarios.flatMap((scenario) => (scenario.measurements ?? []).filter((m) => m.result).map((m) => m.database)),
    );
    return [
      run.date.slice(0, 10),
      run.commit,
      Object.keys(run.scenarios ?? {}).join(", "),
      [...databases].join(", ") || "-",
      count(run.targetsMissed),
      cell(run.budgetFailures),
      count(run.problems),
    ];
  }
  const js = run.scenarios?.pageWeight?.measurements?.[0]?.result?.js?.gzipBytes;
  return [
    run.date.slice(0, 10),
    run.commit,
    js === undefined ? "-" : `${(js / 1000).toFixed(1)} kB`,
    figure(cpu(run, "postgres", "guest GET /")),
    figure(cpu(run, "postgres", "signed-in GET /")),
    figure(cpu(run, "postgres", "floor")),
    `${figure(cpu(run, "postgres", "POST /basket"))} / ${figure(cpu(run, "pglite", "POST /basket"))}`,
    `${figure(cpu(run, "postgres", "whole checkout"))} / ${figure(cpu(run, "pglite", "whole checkout"))}`,
  ];
}

const TITLE = `# Bench history

One row per whole \`npm run bench\` run, oldest first (the runs' full figures: latest.json and latest.md for the newest;
earlier ones are in git history). CPU is the server process's CPU time per request; "-" means not measured.

`;

const SCENARIO_TITLE = `# Bench history

One row per run of these scenarios alone (\`BENCH_ONLY\`), oldest first: what ran, on which databases, how many
targets it missed and which budgets it exceeded (the newest run's figures: latest.md beside this file; earlier runs'
are in git history).

`;

/**
 * Adds a row to the Markdown table in `historyPath` (created with `title` above it), replacing an earlier row of the
 * same date and commit (the first two columns); returns the path.
 */
export function appendTableRow(
  historyPath: string,
  title: string,
  headers: string[],
  row: string[],
  align: ("l" | "r")[] = [],
): string {
  const rows = existsSync(historyPath) ? readRows(readFileSync(historyPath, "utf8")) : [];
  const kept = rows.filter((existing) => !(existing[0] === row[0] && existing[1] === row[1]));
  writeFileSync(historyPath, `${title}${table(headers, [...kept, row], align)}\n`);
  return historyPath;
}

/** Adds a run's row to <dir>/history.md: the whole run's headline figures, or for a scenario run alone what ran. */
export function appendHistory(dir: string, json: object): string {
  // The run's JSON as bench/run.ts writes it; only the fields above are read, each optional.
  const run = json as RunJson;
  const partial = Boolean(run.settings?.only);
  return appendTableRow(
    path.join(dir, "history.md"),
    partial ? SCENARIO_TITLE : TITLE,
    partial ? SCENARIO_HEADERS : HEADERS,
    historyRow(run),
    partial ? [] : ["l", "l", "r", "r", "r", "r", "r", "r"],
  );
}

function readRows(markdown: string): string[][] {
  return markdown
    .split("\n")
    .filter(
      (line) =>
        line.startsWith("| ") && !line.startsWith("| date") && !line.startsWith("| ---") && !/^\| -+ \|/.test(line),
    )
    .map((line) =>
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
}
