import { integer, median, ms, round, summariseLatencies, table, type Latencies } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import {
  BENCH_PRODUCT,
  describeAnswer,
  findPaymentConfig,
  JSON_HEADERS,
  parseJson,
  sessionCookieOf,
  setDeliveryAddress,
  TEST_CARD_FIELDS,
  timedFetch,
  type PaymentConfig,
  type TimedResponse,
} from "../lib/shop-client.ts";
import type { RunningServer } from "../lib/server.ts";

/** Checkouts in flight at once: one shopper after another, then a few at the same time. */
export const CHECKOUT_CONCURRENCY = [1, 4] as const;

const STEPS = [
  { step: "add", request: "POST /basket/add" },
  { step: "create", request: `POST /payments/create?total=${BENCH_PRODUCT.priceCents}` },
  { step: "confirm", request: "POST <processor>/v1/payment_intents/:id/confirm" },
  { step: "record", request: "POST /orders/record" },
] as const;
type Step = (typeof STEPS)[number]["step"];

export interface StepFigures extends Latencies {
  step: Step;
  request: string;
  /** Answers as expected (their latencies are the percentiles). */
  ok: number;
  /** Unexpected status or body, network error or timeout: the checkout stopped there. */
  errors: number;
}

/** One measurement at one concurrency. */
export interface CheckoutRun {
  concurrency: number;
  /** From the first checkout started to the last one finished (none starts after the planned duration). */
  elapsedS: number;
  completed: number;
  failed: number;
  /** Completed checkouts ÷ elapsedS. */
  checkoutsPerSecond: number;
  /** A whole checkout, first request sent to last answer read, completed checkouts only. */
  checkout: Latencies;
  steps: StepFigures[];
  /** The first few failures, as "step: what happened". */
  errorSample: string[];
}

export interface CheckoutLevel {
  concurrency: number;
  /** Medians over rounds. */
  checkoutsPerSecond: number;
  p50: number;
  p99: number;
  /** Sums over rounds. */
  completed: number;
  failed: number;
  steps: { step: Step; request: string; p50: number; p99: number; ok: number; errors: number }[];
  rounds: CheckoutRun[];
}

export interface CheckoutResult {
  levels: CheckoutLevel[];
  /** Error-level lines the server logged during this scenario (a sane run has none), and the first few. */
  serverErrorLogLines: number;
  serverErrorLogSample: string[];
}

class StepFailure extends Error {
  step: Step;
  constructor(step: Step, message: string) {
    super(message);
    this.step = step;
  }
}

/**
 * Complete checkouts, as a browser makes them, by a fresh guest shopper each: add one product, create the payment,
 * confirm the card straight at the built-in processor with the publishable key, record the order. The processor is
 * wherever the shop's payment page says: mounted on the shop (here), or its own process (checkout-separate-processor).
 * Closed loop: each of `concurrency` workers starts its next checkout as soon as its last one ends.
 */
export const checkoutScenario: Scenario<CheckoutResult> = {
  name: "checkout",
  title: "Checkouts",
  scope: "each-database",
  plannedSeconds: (settings) => 2 * settings.rounds * (settings.warmupS + settings.durationS),

  async run({ server, settings, log }) {
    const errorLinesBefore = server.errorLog().count;
    const payment = await findPaymentConfig(server.baseUrl);
    const runs = new Map<number, CheckoutRun[]>(CHECKOUT_CONCURRENCY.map((concurrency) => [concurrency, []]));
    for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex += 1) {
      const order = roundIndex % 2 === 0 ? CHECKOUT_CONCURRENCY : [...CHECKOUT_CONCURRENCY].reverse();
      for (const concurrency of order) {
        log(
          `${server.label}: checkouts, concurrency ${concurrency}, round ${roundIndex + 1}/${settings.rounds} ` +
            `(${settings.warmupS} s warm-up + ${settings.durationS} s)`,
        );
        if (settings.warmupS > 0) await checkoutLoop(server, payment, concurrency, settings.warmupS);
        const run = await checkoutLoop(server, payment, concurrency, settings.durationS);
        if (run.completed === 0)
          throw new Error(
            `no checkout completed at concurrency ${concurrency} (first failure: ${run.errorSample[0] ?? "none"})`,
          );
        log(
          `  ${run.checkoutsPerSecond} checkouts/s, p50 ${ms(run.checkout.p50)}, p99 ${ms(run.checkout.p99)}, ` +
            `completed ${run.completed}, failed ${run.failed}` +
            (run.errorSample.length > 0 ? ` (first: ${run.errorSample[0]})` : ""),
        );
        runs.get(concurrency)!.push(run);
      }
    }

    const errorLog = server.errorLog(errorLinesBefore);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    return {
      levels: CHECKOUT_CONCURRENCY.map((concurrency) => {
        const rounds = runs.get(concurrency)!;
        return {
          concurrency,
          checkoutsPerSecond: round(median(rounds.map((r) => r.checkoutsPerSecond)), 2),
          p50: median(rounds.map((r) => r.checkout.p50)),
          p99: median(rounds.map((r) => r.checkout.p99)),
          completed: sum(rounds.map((r) => r.completed)),
          failed: sum(rounds.map((r) => r.failed)),
          steps: STEPS.map(({ step, request }, index) => ({
            step,
            request,
            p50: median(rounds.map((r) => r.steps[index]!.p50)),
            p99: median(rounds.map((r) => r.steps[index]!.p99)),
            ok: sum(rounds.map((r) => r.steps[index]!.ok)),
            errors: sum(rounds.map((r) => r.steps[index]!.errors)),
          })),
          rounds,
        };
      }),
      serverErrorLogLines: errorLog.count - errorLinesBefore,
      serverErrorLogSample: errorLog.first,
    };
  },

  render(measurements, settings) {
    const multiRound = settings.rounds > 1;
    const rows: (string | number)[][] = [];
    const stepRows: (string | number)[][] = [];
    const warnings: string[] = [];
    for (const measurement of measurements) {
      if (!measurement.result) {
        rows.push([measurement.databaseLabel, "(failed)", "", "", "", "", ""]);
        warnings.push(`${measurement.databaseLabel}: ${measurement.error}`);
        continue;
      }
      for (const level of measurement.result.levels) {
        rows.push([
          measurement.databaseLabel,
          level.concurrency,
          level.checkoutsPerSecond.toFixed(1),
          ms(level.p50),
          ms(level.p99),
          integer(level.completed),
          integer(level.failed),
        ]);
        stepRows.push([
          measurement.databaseLabel,
          level.concurrency,
          ...level.steps.map(
            (step) => `${ms(step.p50)} / ${ms(step.p99)}${step.errors > 0 ? ` (${step.errors} errors)` : ""}`,
          ),
        ]);
        if (level.failed > 0) {
          const sample = level.rounds.flatMap((r) => r.errorSample)[0];
          warnings.push(
            `${measurement.databaseLabel}, concurrency ${level.concurrency}: ${level.failed} checkouts failed ` +
              `(${level.steps
                .filter((step) => step.errors > 0)
                .map((step) => `${step.step}: ${step.errors}`)
                .join(", ")}; first: ${sample}); ` +
              "these figures do not describe working checkouts.",
          );
        }
      }
      if (measurement.result.serverErrorLogLines > 0) {
        warnings.push(
          `${measurement.databaseLabel}: the server logged ${measurement.result.serverErrorLogLines} error line(s) during this scenario ` +
            "(the first ones are in the JSON, `serverErrorLogSample`).",
        );
      }
    }
    const main = table(
      [
        "Database",
        "Concurrency",
        multiRound ? "Checkouts/s (median)" : "Checkouts/s",
        "p50",
        "p99",
        "Completed",
        "Failed",
      ],
      rows,
      ["l", "r", "r", "r", "r", "r", "r"],
    );
    const steps = table(["Database", "Concurrency", ...STEPS.map(({ step }) => `${step} p50 / p99`)], stepRows, [
      "l",
      "r",
      "r",
      "r",
      "r",
      "r",
    ]);
    const how =
      `Each checkout is a new guest shopper: ${STEPS.map(({ request }) => `\`${request}\``).join(", then ")} ` +
      "(test card 4242…, publishable key, as the payment page sends it; `<processor>` is the processor's base URL the page names). " +
      `Closed loop with 1 and ${CHECKOUT_CONCURRENCY.at(-1)} checkouts in flight; ${settings.durationS} s of checkouts after a ${settings.warmupS} s warm-up` +
      (multiRound ? `, median of ${settings.rounds} rounds.` : ", one round.") +
      " Checkouts/s = completed checkouts ÷ seconds from the first start to the last finish; p50/p99 of a whole checkout.";
    return [
      how,
      "",
      main,
      "",
      "Latency of each step (p50 / p99):",
      "",
      steps,
      ...(warnings.length > 0 ? ["", ...warnings.map((warning) => `⚠️ ${warning}`)] : []),
    ].join("\n");
  },
};

/**
 * `concurrency` workers doing checkouts back to back; none starts a checkout after `durationS`. Resolves when all
 * have finished their last one.
 */
async function checkoutLoop(
  server: RunningServer,
  payment: PaymentConfig,
  concurrency: number,
  durationS: number,
): Promise<CheckoutRun> {
  const timings = new Map<Step, number[]>(STEPS.map(({ step }) => [step, []]));
  const stepErrors = new Map<Step, number>(STEPS.map(({ step }) => [step, 0]));
  const whole: number[] = [];
  const errorSample: string[] = [];
  let failed = 0;
  const started = performance.now();
  const deadline = started + durationS * 1000;

  async function worker() {
    while (performance.now() < deadline) {
      const checkoutStarted = performance.now();
      try {
        await oneCheckout(server.baseUrl, payment, timings);
        whole.push(performance.now() - checkoutStarted);
      } catch (error) {
        failed += 1;
        const step: Step = error instanceof StepFailure ? error.step : "add";
        stepErrors.set(step, stepErrors.get(step)! + 1);
        if (errorSample.length < 5)
          errorSample.push(`${step}: ${error instanceof Error ? error.message : String(error)}`);
        // A shop that refuses everything would otherwise be hammered in a tight loop of instant failures.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  const elapsedS = (performance.now() - started) / 1000;

  return {
    concurrency,
    elapsedS: round(elapsedS, 2),
    completed: whole.length,
    failed,
    checkoutsPerSecond: round(whole.length / elapsedS, 2),
    checkout: summariseLatencies(whole),
    steps: STEPS.map(({ step, request }) => ({
      step,
      request,
      ok: timings.get(step)!.length,
      errors: stepErrors.get(step)!,
      ...summariseLatencies(timings.get(step)!),
    })),
    errorSample,
  };
}

/** One checkout by a new shopper; each step's latency goes to `timings` once the step has answered as expected. */
async function oneCheckout(
  baseUrl: string,
  { publishableKey, processorUrl }: PaymentConfig,
  timings: Map<Step, number[]>,
): Promise<void> {
  const step = async (
    name: Step,
    call: () => Promise<TimedResponse>,
    check: (response: TimedResponse) => string | undefined,
  ) => {
    let response: TimedResponse;
    try {
      response = await call();
    } catch (error) {
      throw new StepFailure(name, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
    const problem = check(response);
    if (problem) throw new StepFailure(name, problem);
    timings.get(name)!.push(response.ms);
    return response;
  };

  // 1. A new shopper puts one product in the basket: 201 and the session cookie.
  const added = await step(
    "add",
    () =>
      timedFetch(`${baseUrl}/basket/add`, {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify({ productId: BENCH_PRODUCT.id }),
      }),
    (response) => (response.status !== 201 ? describeAnswer("POST /basket/add", response) : undefined),
  );
  const cookie = sessionCookieOf(added.headers);
  if (!cookie) throw new StepFailure("add", "POST /basket/add answered 201 without a session cookie");
  // The delivery address the payment page's form saves: untimed, as before addresses the steps below were all there was.
  await setDeliveryAddress(baseUrl, cookie).catch((error: unknown) => {
    throw new StepFailure("create", String(error));
  });

  // 2. The payment page asks for a payment of the total it shows: 201 { clientSecret }.
  let clientSecret = "";
  await step(
    "create",
    () =>
      timedFetch(`${baseUrl}/payments/create?total=${BENCH_PRODUCT.priceCents}`, {
        method: "POST",
        headers: { accept: "application/json", cookie },
      }),
    (response) => {
      if (response.status !== 201) return describeAnswer("POST /payments/create", response);
      clientSecret = (parseJson(response.body) as { clientSecret?: string } | undefined)?.clientSecret ?? "";
      return /^pi_[A-Za-z0-9]+_secret_[A-Za-z0-9]+$/.test(clientSecret)
        ? undefined
        : describeAnswer("POST /payments/create: no client secret", response);
    },
  );
  const intentId = clientSecret.split("_secret_")[0]!;

  // 3. The browser confirms the card straight at the processor (its mounted /_processor, or the processor's own origin)
  // with the publishable key: 200, status succeeded.
  await step(
    "confirm",
    () =>
      timedFetch(`${processorUrl}/v1/payment_intents/${intentId}/confirm`, {
        method: "POST",
        headers: { authorization: `Bearer ${publishableKey}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          client_secret: clientSecret,
          use_stripe_sdk: "true",
          ...TEST_CARD_FIELDS,
        }).toString(),
      }),
    (response) => {
      const body = parseJson(response.body) as { id?: string; status?: string } | undefined;
      return response.status === 200 && body?.status === "succeeded" && body.id === intentId
        ? undefined
        : describeAnswer("POST <processor>/…/confirm", response);
    },
  );

  // 4. The page tells the shop, which checks with the processor and records the order: 201 { orderId }.
  await step(
    "record",
    () =>
      timedFetch(`${baseUrl}/orders/record`, {
        method: "POST",
        headers: { ...JSON_HEADERS, cookie },
        body: JSON.stringify({ paymentIntentId: intentId }),
      }),
    (response) => {
      const body = parseJson(response.body) as { orderId?: string } | undefined;
      return response.status === 201 && body?.orderId ? undefined : describeAnswer("POST /orders/record", response);
    },
  );
}
