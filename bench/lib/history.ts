import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { table } from "./report.ts";

/** The few figures of a whole run worth comparing across runs; everything else is in latest.json. */
interface RunJson {
  date: string;
  commit: string;
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

function cpu(run: RunJson, database: string, rowName: string): number | undefined {
  const rows = run.scenarios?.cpuPerRequest?.measurements?.find((m) => m.database === database)?.result?.rows;
  return rows?.find((row) => row.name.startsWith(rowName))?.cpuMsPerRequest;
}

function figure(value: number | undefined): string {
  return value === undefined ? "-" : value.toFixed(3);
}

/** One row of the history table for a run's JSON. */
export function historyRow(run: RunJson): string[] {
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

/** Adds a run's row to <dir>/history.md, replacing an earlier row of the same date and commit. */
export function appendHistory(dir: string, json: object): string {
  // The run's JSON as bench/run.ts writes it; only the fields above are read, each optional.
  const run = json as RunJson;
  const historyPath = path.join(dir, "history.md");
  const rows = existsSync(historyPath) ? readRows(readFileSync(historyPath, "utf8")) : [];
  const row = historyRow(run);
  const kept = rows.filter((existing) => !(existing[0] === row[0] && existing[1] === row[1]));
  writeFileSync(historyPath, `${TITLE}${table(HEADERS, [...kept, row], ["l", "l", "r", "r", "r", "r", "r", "r"])}\n`);
  return historyPath;
}

function readRows(markdown: string): string[][] {
  return markdown
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| date") && !line.startsWith("| ---") && !/^\| -+ \|/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
}
