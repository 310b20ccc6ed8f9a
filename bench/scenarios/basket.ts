import { runLoad, type LoadResult, type RequestFigures } from "../lib/load.ts";
import { integer, median, ms, round, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import type { Settings } from "../lib/settings.ts";
import { BENCH_PRODUCT, JSON_HEADERS, newShopper } from "../lib/shop-client.ts";
import { BROWSER_HEADERS } from "./throughput.ts";

/** Guest shoppers created for the load; connections take the next one for each add/remove pair. */
export const BASKET_SHOPPERS = 50;

const BODY = JSON.stringify({ productId: BENCH_PRODUCT.id });
const ACTIONS = ["add", "remove"] as const;

export interface BasketActionFigures extends RequestFigures {
  action: (typeof ACTIONS)[number];
  /** Answers per second for this action alone (responses ÷ seconds measured), median over rounds. */
  rps: number;
}

export interface BasketResult {
  shoppers: number;
  /** Add and remove together, as autocannon reports them; medians over rounds (sums for the counts). */
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Per action: medians over rounds for rates and latencies, sums for the counts. */
  actions: BasketActionFigures[];
  rounds: LoadResult[];
  /** Error-level lines the server logged during this scenario (a sane run has none), and the first few. */
  serverErrorLogLines: number;
  serverErrorLogSample: string[];
}

/**
 * POST /basket/add and POST /basket/remove under load, alternating on every connection, each pair on the next of
 * BASKET_SHOPPERS guest sessions (created first, each with one item already in its basket). A remove always follows
 * its own add on the same connection, so every remove finds the item (checked: `"removed":true`) and no basket
 * grows beyond 1 + the number of pairs in flight on it: far below the 100-item limit (409) however long it runs.
 */
export const basketScenario: Scenario<BasketResult> = {
  name: "basket",
  title: "Basket actions",
  scope: "each-database",
  plannedSeconds: (settings) => settings.rounds * (settings.warmupS + settings.durationS),

  async run({ server, settings, log }) {
    const errorLinesBefore = server.errorLog().count;
    const shoppers = Math.max(BASKET_SHOPPERS, settings.connections);
    log(`${server.label}: creating ${shoppers} shoppers (one add each)`);
    const cookies: string[] = [];
    for (let index = 0; index < shoppers; index += 1) cookies.push((await newShopper(server.baseUrl)).cookie);

    const rounds: LoadResult[] = [];
    for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex += 1) {
      log(
        `${server.label}: POST /basket/add + /basket/remove, round ${roundIndex + 1}/${settings.rounds} ` +
          `(${settings.warmupS} s warm-up + ${settings.durationS} s, ${settings.connections} connections, ${shoppers} shoppers)`,
      );
      const result = await runBasketLoad(server.baseUrl, cookies, settings);
      const add = result.perRequest?.add;
      const remove = result.perRequest?.remove;
      log(
        `  ${integer(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, errors ${result.errors}, non-2xx ${result.non2xx}` +
          ` (add p50 ${ms(add?.p50 ?? Number.NaN)}, remove p50 ${ms(remove?.p50 ?? Number.NaN)}, removes that found nothing ${remove?.unexpected ?? "?"})`,
      );
      rounds.push(result);
    }

    const errorLog = server.errorLog(errorLinesBefore);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    return {
      shoppers,
      rps: round(median(rounds.map((r) => r.rps)), 1),
      p50: median(rounds.map((r) => r.p50)),
      p99: median(rounds.map((r) => r.p99)),
      errors: sum(rounds.map((r) => r.errors)),
      non2xx: sum(rounds.map((r) => r.non2xx)),
      actions: ACTIONS.map((action) => {
        const figures = rounds.map((r) => r.perRequest?.[action]).filter((f): f is RequestFigures => f !== undefined);
        const statusCodes: Record<string, number> = {};
        for (const f of figures)
          for (const [code, count] of Object.entries(f.statusCodes))
            statusCodes[code] = (statusCodes[code] ?? 0) + count;
        return {
          action,
          rps: round(median(rounds.map((r) => (r.perRequest?.[action]?.requests ?? 0) / r.durationS)), 1),
          requests: sum(figures.map((f) => f.requests)),
          p50: median(figures.map((f) => f.p50)),
          p90: median(figures.map((f) => f.p90)),
          p99: median(figures.map((f) => f.p99)),
          latencyMean: median(figures.map((f) => f.latencyMean)),
          latencyMax: Math.max(...figures.map((f) => f.latencyMax)),
          non2xx: sum(figures.map((f) => f.non2xx)),
          unexpected: sum(figures.map((f) => f.unexpected)),
          statusCodes,
        };
      }),
      rounds,
      serverErrorLogLines: errorLog.count - errorLinesBefore,
      serverErrorLogSample: errorLog.first,
    };
  },

  render(measurements, settings) {
    const multiRound = settings.rounds > 1;
    const rows: (string | number)[][] = [];
    const warnings: string[] = [];
    for (const measurement of measurements) {
      if (!measurement.result) {
        rows.push([measurement.databaseLabel, "(failed)", "", "", "", "", "", "", ""]);
        warnings.push(`${measurement.databaseLabel}: ${measurement.error}`);
        continue;
      }
      const result = measurement.result;
      rows.push([
        measurement.databaseLabel,
        "add + remove",
        integer(result.rps),
        ms(result.p50),
        ms(result.p99),
        integer(result.errors),
        integer(result.non2xx),
        "",
        integer(result.rounds.reduce((total, r) => total + r.requests, 0)),
      ]);
      for (const action of result.actions) {
        rows.push([
          "",
          `POST /basket/${action.action}`,
          integer(action.rps),
          ms(action.p50),
          ms(action.p99),
          "",
          integer(action.non2xx),
          action.action === "remove" ? integer(action.unexpected) : "",
          integer(action.requests),
        ]);
      }
      if (result.errors > 0 || result.non2xx > 0) {
        const codes = result.actions
          .map((action) => `${action.action}: ${JSON.stringify(action.statusCodes)}`)
          .join("; ");
        warnings.push(
          `${measurement.databaseLabel}: ${result.errors} errors and ${result.non2xx} non-2xx responses (${codes}); ` +
            "these figures do not describe working basket actions.",
        );
      }
      const missed = result.actions.find((action) => action.action === "remove")?.unexpected ?? 0;
      if (missed > 0)
        warnings.push(
          `${measurement.databaseLabel}: ${missed} removes found no item to remove (the load was not what it should be).`,
        );
      if (result.serverErrorLogLines > 0) {
        warnings.push(
          `${measurement.databaseLabel}: the server logged ${result.serverErrorLogLines} error line(s) during this scenario ` +
            "(the first ones are in the JSON, `serverErrorLogSample`).",
        );
      }
    }
    const main = table(
      [
        "Database",
        "Requests",
        multiRound ? "req/s (median)" : "req/s",
        "p50",
        "p99",
        "Errors",
        "Non-2xx",
        "Removed nothing",
        "Answers",
      ],
      rows,
      ["l", "l", "r", "r", "r", "r", "r", "r", "r"],
    );
    const shoppers = measurements.find((measurement) => measurement.result)?.result?.shoppers ?? BASKET_SHOPPERS;
    const how =
      `${settings.connections} connections, keep-alive, JSON bodies (\`{"productId":"${BENCH_PRODUCT.id}"}\`), each connection alternating ` +
      `add and remove, every add/remove pair on the next of ${shoppers} guest sessions (cookie \`sf_session\`) whose baskets hold 1–2 items, ` +
      "answers uncompressed (no Accept-Encoding) so that every remove is checked; " +
      `${settings.durationS} s of load after a ${settings.warmupS} s warm-up` +
      (multiRound ? `, median of ${settings.rounds} rounds.` : ", one round.") +
      " The add + remove row is autocannon's (req/s counts both kinds); the rows per action count only that action's answers " +
      "(their p50/p99 are exact over every 2xx answer).";
    return [how, "", main, ...(warnings.length > 0 ? ["", ...warnings.map((warning) => `⚠️ ${warning}`)] : [])].join(
      "\n",
    );
  },
};

/**
 * The basket load itself (also used by the growth scenario): `settings.connections` connections alternating add and
 * remove, each add/remove pair on the next of `cookies`, a warm-up and then the measurement. `perRequest` has
 * "add" and "remove"; a remove that found nothing counts as `unexpected`.
 */
export async function runBasketLoad(
  baseUrl: string,
  cookies: string[],
  settings: Pick<Settings, "connections" | "durationS" | "warmupS">,
): Promise<LoadResult> {
  let next = 0;
  // A browser's identity, but no Accept-Encoding: the answers (0.3–0.6 kB of JSON) come uncompressed, so that each
  // remove's body can be checked; compressing them would cost the server little.
  const headers = {
    "user-agent": BROWSER_HEADERS["user-agent"]!,
    "accept-language": BROWSER_HEADERS["accept-language"]!,
    ...JSON_HEADERS,
  };
  return runLoad({
    url: `${baseUrl}/basket/add`,
    connections: settings.connections,
    durationS: settings.durationS,
    warmupS: settings.warmupS,
    headers,
    requests: [
      {
        name: "add",
        method: "POST",
        path: "/basket/add",
        body: BODY,
        // The first request of each cycle picks the shopper; the remove after it reuses the cycle's context.
        headersFor: (context) => {
          context.cookie = cookies[next++ % cookies.length];
          return { cookie: context.cookie as string };
        },
      },
      {
        name: "remove",
        method: "POST",
        path: "/basket/remove",
        body: BODY,
        headersFor: (context) => ({ cookie: context.cookie as string }),
        expect: (body) => body.includes('"removed":true'),
      },
    ],
  });
}
