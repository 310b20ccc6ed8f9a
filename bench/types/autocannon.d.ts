// autocannon ships no type declarations; this covers the part of its programmatic API the bench uses.
declare module "autocannon" {
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    title?: string;
    /** Renders autocannon's own progress bar; the bench never asks for it. */
    renderProgressBar?: boolean;
    /** Requests each connection sends in turn, cycling through the list; each may be rebuilt before it is sent. */
    requests?: RequestOptions[];
    /** Called with every new client (one per connection), before its first request. */
    setupClient?: (client: Client) => void;
  }

  /** A request as autocannon builds it: method, path, headers and body, on top of the top-level options. */
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    [key: string]: unknown;
  }

  export interface RequestOptions extends RequestParams {
    /**
     * Rebuilds the request just before it is sent. `context` belongs to the connection and is reset (to an empty
     * object) each time the connection starts over at the first request of the list.
     */
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null | undefined;
    /** Called with each answer to this request, before the client's "response" event. */
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string | string[]>,
    ) => void;
  }

  /** One connection. */
  export interface Client {
    /** Every complete answer: status code, bytes received and latency in milliseconds (from request sent). */
    on(event: "response", listener: (status: number, bytes: number, latencyMs: number) => void): this;
  }

  /** A distribution as autocannon reports it: mean plus percentiles (p50, p97_5, p99, ...). */
  export interface Distribution {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total?: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    [key: string]: number | undefined;
  }

  export interface Result {
    url: string;
    connections: number;
    /** Seconds actually spent, a little more than asked. */
    duration: number;
    /** Number of per-second samples behind `requests` and `throughput`. */
    samples: number;
    start: string;
    finish: string;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    /** Milliseconds per request. */
    latency: Distribution & { totalCount: number };
    /** Requests completed per second, over the per-second samples; `total` is the count of completed requests. */
    requests: Distribution & { sent: number };
    /** Bytes received per second. */
    throughput: Distribution;
  }

  export interface Instance extends PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
