import autocannon, { type Client, type RequestParams, type Result } from "autocannon";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuSecondsOf } from "./process-stats.ts";
import { mean, median, percentile, round } from "./report.ts";

export interface LoadOptions {
  /** Full URL; the bench only ever targets its own servers on 127.0.0.1. */
  url: string;
  connections: number;
  durationS: number;
  /** Seconds of load before the measurement, whose results are thrown away (0: none). */
  warmupS: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Several requests that every connection sends in turn, cycling through the list (autocannon's `requests`),
   * instead of one method/body on `url`; `headers` apply to all of them. The result then has `perRequest`.
   */
  requests?: LoadRequest[];
}

/** One of the requests of `LoadOptions.requests`. */
export interface LoadRequest {
  /** Key in `LoadResult.perRequest`, e.g. "add". */
  name: string;
  method: string;
  /** Path and query on the origin of `url`, e.g. "/basket/add". */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Called just before each send, with the connection's context for the current cycle through the list (a fresh
   * object at the start of every cycle, shared by that cycle's requests); returns headers to add, e.g. a cookie.
   */
  headersFor?(context: Record<string, unknown>): Record<string, string>;
  /** Whether a 2xx answer's body is the expected one (e.g. `"removed":true`); the others are counted as `unexpected`. */
  expect?(body: string): boolean;
}

/** One request of a `requests` list, over the measured period only. */
export interface RequestFigures {
  /** Responses received. */
  requests: number;
  /** Latency percentiles in milliseconds over the 2xx answers (exact, nearest rank), as autocannon times them. */
  p50: number;
  p90: number;
  p99: number;
  latencyMean: number;
  latencyMax: number;
  non2xx: number;
  /** 2xx answers whose body `expect` refused. */
  unexpected: number;
  statusCodes: Record<string, number>;
}

export interface LoadResult {
  /** Mean requests completed per second over the 1-second samples (autocannon's "Req/Sec Avg"). */
  rps: number;
  /** Median of the 1-second samples: less sensitive than the mean to one slow second. */
  rpsMedian: number;
  rpsStddev: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p90: number;
  p99: number;
  latencyMean: number;
  latencyMax: number;
  /** Completed requests in the measured period. */
  requests: number;
  /** Connection errors, timeouts included: any makes the figures suspect. */
  errors: number;
  /** Requests that got no answer within 10 s (also counted in `errors`). */
  timeouts: number;
  /** Responses outside 2xx: any makes the figures suspect (a fast 500 is not a page). */
  non2xx: number;
  statusCodes: Record<string, number>;
  /** Mean bytes received per second (after any compression). */
  bytesPerSecond: number;
  /** Seconds actually measured. */
  durationS: number;
  samples: number;
  /** With `requests`: the figures of each request, by name. */
  perRequest?: Record<string, RequestFigures>;
  /** What the (discarded) warm-up got: a failure there would otherwise go unseen. */
  warmup?: { requests: number; errors: number; non2xx: number; statusCodes: Record<string, number> };
}

/**
 * A load and one process's CPU time (user + system, from /proc) per request it answered: `warmupS` of the load first,
 * run apart so that its requests are not counted, then `durationS` measured. Not rounded.
 */
export async function runLoadWithCpu(
  pid: number,
  options: LoadOptions,
): Promise<{ result: LoadResult; cpuMsPerRequest: number }> {
  if (options.warmupS > 0) await runLoad({ ...options, durationS: options.warmupS, warmupS: 0 });
  const before = cpuSecondsOf(pid);
  const result = await runLoad({ ...options, warmupS: 0 });
  const after = cpuSecondsOf(pid);
  if (before === undefined || after === undefined)
    throw new Error(`cannot read the CPU time of process ${pid} from /proc`);
  return { result, cpuMsPerRequest: ((after - before) * 1000) / Math.max(1, result.requests) };
}

/** One side of a measurement in slices: a process, and what loads it for one slice. */
export interface SlicedSide {
  pid: number;
  /** Loads this side's process for about `ms`: the requests (or checkouts) completed, those that failed, the p99. */
  runSlice(ms: number): Promise<{ done: number; failed: number; p99: number }>;
}

/** What `cpuInSlices` measured of one side. */
export interface SlicedCpu {
  /** The process's CPU over the whole span, its idle CPU subtracted, per request completed. Not rounded. */
  cpuMsPerRequest: number;
  done: number;
  failed: number;
  /** Requests completed per second of this side's own slices. */
  perSecond: number;
  /** The median slice's p99 latency, ms. */
  p99: number;
}

/** How long each process is watched doing nothing, for the idle CPU `cpuInSlices` subtracts. */
const IDLE_SAMPLE_MS = 2_000;

/**
 * Several loads on several processes in short slices taken in turns (the side that goes first changing every
 * slice), about `durationS` of slices per side, and each process's CPU per request over the whole span: its idle CPU
 * (timers) subtracted, and, after `settleMs`, whatever it does late (a webhook delivered after its slice) included.
 * Measured this way, a machine that slows down for a few seconds weighs on every side alike; measured back to back
 * in runs of seconds, it weighed on one side only (2026-11-30: one shop's 5 s windows of checkouts read 14.5 to
 * 28.4 ms in a row of twelve, and a round's PGlite ÷ PostgreSQL moved between 0.78 and 1.94 for the same code).
 */
export async function cpuInSlices(
  sides: readonly SlicedSide[],
  { durationS, sliceMs, settleMs = 0 }: { durationS: number; sliceMs: number; settleMs?: number },
): Promise<SlicedCpu[]> {
  const cpuOf = () =>
    sides.map(({ pid }) => {
      const seconds = cpuSecondsOf(pid);
      if (seconds === undefined) throw new Error(`cannot read the CPU time of process ${pid} from /proc`);
      return seconds * 1000;
    });
  const idleBefore = cpuOf();
  await sleep(IDLE_SAMPLE_MS);
  const idlePerMs = cpuOf().map((cpuMs, index) => (cpuMs - idleBefore[index]!) / IDLE_SAMPLE_MS);
  const figures = sides.map(() => ({ done: 0, failed: 0, busyMs: 0, p99s: [] as number[] }));
  const started = performance.now();
  const before = cpuOf();
  const slices = Math.max(1, Math.round((durationS * 1000) / sliceMs));
  for (let slice = 0; slice < slices; slice += 1) {
    for (let turn = 0; turn < sides.length; turn += 1) {
      const index = (slice + turn) % sides.length;
      const sliceStarted = performance.now();
      const { done, failed, p99 } = await sides[index]!.runSlice(sliceMs);
      figures[index]!.done += done;
      figures[index]!.failed += failed;
      figures[index]!.p99s.push(p99);
      figures[index]!.busyMs += performance.now() - sliceStarted;
    }
  }
  const spanMs = performance.now() - started + settleMs;
  if (settleMs > 0) await sleep(settleMs);
  const after = cpuOf();
  return figures.map(({ done, failed, busyMs, p99s }, index) => ({
    cpuMsPerRequest: (after[index]! - before[index]! - idlePerMs[index]! * spanMs) / Math.max(1, done),
    done,
    failed,
    perSecond: (done * 1000) / Math.max(1, busyMs),
    p99: median(p99s),
  }));
}

/** A side of `cpuInSlices` that loads its process with autocannon (`options`, without its duration) each slice. */
export function autocannonSide(pid: number, options: Omit<LoadOptions, "durationS" | "warmupS">): SlicedSide {
  return {
    pid,
    async runSlice(ms) {
      const result = await runLoad({ ...options, durationS: ms / 1000, warmupS: 0 });
      return { done: result.requests, failed: result.non2xx + result.errors, p99: result.p99 };
    },
  };
}

/** Runs autocannon against one URL: an optional warm-up whose results are discarded, then the measurement. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(options.url)) {
    throw new Error(`refusing to generate load against a non-local URL: ${options.url}`);
  }
  const warmup = options.warmupS > 0 ? summarise(await cannon(options, options.warmupS)) : undefined;
  const perRequest = options.requests
    ? new Map(options.requests.map((request) => [request.name, new RequestTally()]))
    : undefined;
  const result = summarise(await cannon(options, options.durationS, perRequest));
  if (perRequest)
    result.perRequest = Object.fromEntries([...perRequest].map(([name, tally]) => [name, tally.figures()]));
  if (warmup)
    result.warmup = {
      requests: warmup.requests,
      errors: warmup.errors,
      non2xx: warmup.non2xx,
      statusCodes: warmup.statusCodes,
    };
  return result;
}

/** What one request of a `requests` list got: every latency (a few thousand numbers), status codes, failed checks. */
class RequestTally {
  latencies: number[] = [];
  statusCodes: Record<string, number> = {};
  non2xx = 0;
  unexpected = 0;

  figures(): RequestFigures {
    const latencies = this.latencies;
    const at = (quantile: number) => round(percentile(latencies, quantile), 2);
    return {
      requests: Object.values(this.statusCodes).reduce((sum, count) => sum + count, 0),
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      latencyMean: round(mean(latencies), 2),
      latencyMax: round(
        latencies.length === 0 ? Number.NaN : latencies.reduce((max, value) => Math.max(max, value)),
        2,
      ),
      non2xx: this.non2xx,
      unexpected: this.unexpected,
      statusCodes: this.statusCodes,
    };
  }
}

/** autocannon's own request list for `options.requests`; with `tallies`, each answer is also counted per request. */
function autocannonRequests(options: LoadOptions, tallies: Map<string, RequestTally> | undefined) {
  // autocannon calls a request's onResponse and then, synchronously, emits the client's "response" event with the
  // latency: the first says which request it was (and checks the body), the second adds the latency to its tally.
  let answered: { tally: RequestTally; ok: boolean } | undefined;
  const requests = options.requests!.map((request) => ({
    method: request.method,
    path: request.path,
    headers: { ...options.headers, ...request.headers },
    // Absent rather than undefined: autocannon copies keys over its defaults, so an undefined one would replace them.
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.headersFor
      ? {
          setupRequest: (built: RequestParams, context: Record<string, unknown>) => ({
            ...built,
            headers: { ...built.headers, ...request.headersFor!(context) },
          }),
        }
      : {}),
    onResponse: (status: number, body: string) => {
      const tally = tallies?.get(request.name);
      if (!tally) return;
      tally.statusCodes[status] = (tally.statusCodes[status] ?? 0) + 1;
      const ok = status >= 200 && status < 300;
      if (!ok) tally.non2xx += 1;
      else if (request.expect && !request.expect(body)) tally.unexpected += 1;
      answered = { tally, ok };
    },
  }));
  const setupClient = (client: Client) => {
    client.on("response", (_status: number, _bytes: number, latencyMs: number) => {
      // Like autocannon's own percentiles, only 2xx answers count towards latency.
      if (answered?.ok) answered.tally.latencies.push(latencyMs);
      answered = undefined;
    });
  };
  return { requests, setupClient };
}

function cannon(options: LoadOptions, durationS: number, tallies?: Map<string, RequestTally>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: durationS,
        method: options.method ?? "GET",
        headers: options.headers,
        body: options.body,
        ...(options.requests ? autocannonRequests(options, tallies) : {}),
        timeout: 10,
        renderProgressBar: false,
      },
      (error, result) => {
        clearTimeout(guard);
        if (error) reject(error);
        else resolve(result);
      },
    );
    // autocannon stops by itself after `duration`; this only guards against it hanging.
    const guard = setTimeout(
      () => {
        instance.stop();
        reject(new Error(`autocannon did not finish ${durationS} s of load within ${durationS + 60} s`));
      },
      (durationS + 60) * 1000,
    );
  });
}

function summarise(result: Result): LoadResult {
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count;
  return {
    rps: round(result.requests.average, 1),
    rpsMedian: round(result.requests.p50, 1),
    rpsStddev: round(result.requests.stddev, 1),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    latencyMean: round(result.latency.average, 2),
    latencyMax: result.latency.max,
    requests: result.requests.total ?? result.latency.totalCount,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    bytesPerSecond: Math.round(result.throughput.average),
    durationS: result.duration,
    samples: result.samples,
  };
}
