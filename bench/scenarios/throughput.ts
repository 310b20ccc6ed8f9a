import { runLoad, type LoadResult } from "../lib/load.ts";
import { integer, median, ms, round, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";

/**
 * What a shopper's browser sends for a page (Chrome's headers since version 123, which added zstd): the server
 * compresses as it would for them.
 */
export const BROWSER_HEADERS: Record<string, string> = {
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "accept-encoding": "gzip, deflate, br, zstd",
  "accept-language": "en-GB,en;q=0.9",
  "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
};

const ENDPOINTS = [
  { path: "/", description: "home page, server-rendered (catalogue query + React render + compression)" },
  {
    path: "/healthz",
    description: "JSON, one `select 1`: the floor of the stack (HTTP, middleware, database round trip)",
  },
] as const;

export interface EndpointFigures {
  path: string;
  /** Medians over rounds (with one round: that round's figures). */
  rps: number;
  p50: number;
  p99: number;
  /** Sums over rounds. */
  errors: number;
  non2xx: number;
  rounds: LoadResult[];
}

export interface ThroughputResult {
  endpoints: EndpointFigures[];
  /** GET / rps divided by GET /healthz rps, per round (measured back to back) and the median over rounds. */
  homeToHealthRatio: { median: number; perRound: number[] };
  /** Error-level lines in the server's log by the end of this scenario (a sane run has none), and the first few. */
  serverErrorLogLines: number;
  serverErrorLogSample: string[];
}

export const throughputScenario: Scenario<ThroughputResult> = {
  name: "throughput",
  title: "Server throughput",
  scope: "each-database",
  plannedSeconds: (settings) => 2 * settings.rounds * (settings.warmupS + settings.durationS),

  async run({ server, settings, log }) {
    const perEndpoint = new Map<string, LoadResult[]>(ENDPOINTS.map((endpoint) => [endpoint.path, []]));
    const ratios: number[] = [];
    for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex += 1) {
      // Alternate the order between rounds, so that neither endpoint always runs on a warmer (or hotter) machine.
      const order = roundIndex % 2 === 0 ? ENDPOINTS : [...ENDPOINTS].reverse();
      const thisRound = new Map<string, LoadResult>();
      for (const endpoint of order) {
        log(
          `${server.label}: GET ${endpoint.path}, round ${roundIndex + 1}/${settings.rounds} ` +
            `(${settings.warmupS} s warm-up + ${settings.durationS} s, ${settings.connections} connections)`,
        );
        const result = await runLoad({
          url: `${server.baseUrl}${endpoint.path}`,
          connections: settings.connections,
          durationS: settings.durationS,
          warmupS: settings.warmupS,
          headers: BROWSER_HEADERS,
        });
        log(
          `  ${integer(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, errors ${result.errors}, non-2xx ${result.non2xx}`,
        );
        thisRound.set(endpoint.path, result);
        perEndpoint.get(endpoint.path)!.push(result);
      }
      const home = thisRound.get("/")!;
      const health = thisRound.get("/healthz")!;
      ratios.push(health.rps > 0 ? round(home.rps / health.rps, 3) : Number.NaN);
    }

    const errorLog = server.errorLog();
    return {
      endpoints: ENDPOINTS.map(({ path }) => {
        const rounds = perEndpoint.get(path)!;
        return {
          path,
          rps: round(median(rounds.map((r) => r.rps)), 1),
          p50: median(rounds.map((r) => r.p50)),
          p99: median(rounds.map((r) => r.p99)),
          errors: rounds.reduce((sum, r) => sum + r.errors, 0),
          non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
          rounds,
        };
      }),
      homeToHealthRatio: { median: round(median(ratios), 3), perRound: ratios },
      serverErrorLogLines: errorLog.count,
      serverErrorLogSample: errorLog.first,
    };
  },

  render(measurements, settings) {
    const multiRound = settings.rounds > 1;
    const rows: (string | number)[][] = [];
    const ratioRows: (string | number)[][] = [];
    const warnings: string[] = [];
    for (const measurement of measurements) {
      if (!measurement.result) {
        rows.push([measurement.databaseLabel, "(failed)", "", "", "", "", "", ...(multiRound ? [""] : [])]);
        warnings.push(`${measurement.databaseLabel}: ${measurement.error}`);
        continue;
      }
      for (const endpoint of measurement.result.endpoints) {
        const rpsValues = endpoint.rounds.map((r) => r.rps);
        rows.push([
          measurement.databaseLabel,
          `GET ${endpoint.path}`,
          integer(endpoint.rps),
          ...(multiRound ? [`${integer(Math.min(...rpsValues))}–${integer(Math.max(...rpsValues))}`] : []),
          ms(endpoint.p50),
          ms(endpoint.p99),
          integer(endpoint.errors),
          integer(endpoint.non2xx),
        ]);
        if (endpoint.errors > 0 || endpoint.non2xx > 0) {
          warnings.push(
            `${measurement.databaseLabel}, GET ${endpoint.path}: ${endpoint.errors} errors and ${endpoint.non2xx} non-2xx responses; ` +
              "the figures for this row do not describe a working page.",
          );
        }
      }
      const ratio = measurement.result.homeToHealthRatio;
      ratioRows.push([
        measurement.databaseLabel,
        Number.isFinite(ratio.median) ? ratio.median.toFixed(3) : "n/a",
        ...(multiRound ? [ratio.perRound.map((value) => value.toFixed(3)).join(", ")] : []),
      ]);
      if (measurement.result.serverErrorLogLines > 0) {
        warnings.push(
          `${measurement.databaseLabel}: the server logged ${measurement.result.serverErrorLogLines} error line(s) during the run ` +
            "(the first ones are in the JSON, `serverErrorLogSample`).",
        );
      }
    }
    const main = table(
      [
        "Database",
        "Endpoint",
        multiRound ? "req/s (median)" : "req/s",
        ...(multiRound ? ["req/s range"] : []),
        "p50",
        "p99",
        "Errors",
        "Non-2xx",
      ],
      rows,
      ["l", "l", "r", ...(multiRound ? ["r" as const] : []), "r", "r", "r", "r"],
    );
    const ratios = table(
      ["Database", "GET / ÷ GET /healthz (req/s)", ...(multiRound ? ["Per round"] : [])],
      ratioRows,
      ["l", "r", "l"],
    );
    const how =
      `${settings.connections} connections, keep-alive, browser-like headers (zstd and gzip accepted); ` +
      `each figure is ${settings.durationS} s of load after a ${settings.warmupS} s warm-up` +
      (multiRound ? `, median of ${settings.rounds} rounds.` : ", one round.") +
      " req/s is the mean of 1-second samples; p50/p99 are latencies. Endpoints of one database run back to back.";
    return [
      how,
      "",
      main,
      "",
      ratios,
      ...(warnings.length > 0 ? ["", ...warnings.map((warning) => `⚠️ ${warning}`)] : []),
    ].join("\n");
  },
};
