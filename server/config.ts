// The server's configuration: every environment variable parsed once at start with zod; nothing else reads process.env.

import { existsSync } from "node:fs";
import { z } from "zod";
import { isKnownTimeZone } from "#server/calendar/shop-calendar";

/**
 * The server's whole configuration, parsed once at start. Nothing else reads process.env:
 * a missing or malformed variable stops the server with a message naming it.
 */
const configSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default("0.0.0.0"),
    DATA_DIR: z.string().min(1).default("./data"),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    /**
     * A direct connection (not through a pooler) for start-up's migrations and seeding, where DATABASE_URL names a
     * pooler in transaction mode: migrations then run without the pooler's limits and the shop's 5-second timeout.
     */
    DATABASE_MIGRATION_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    /** The shop's public origin, e.g. https://shop.example: its scheme decides Secure cookies and HSTS. */
    PUBLIC_URL: z
      .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
      .max(2048)
      .transform((url) => new URL(url))
      .optional(),
    /**
     * How many reverse proxies you run stand in front of the shop (true means 1, false 0): the client address is then
     * the entry the outermost of them appended to X-Forwarded-For, the N-th from the right.
     */
    TRUST_PROXY: z
      .union([z.coerce.number().int().min(0).max(10), z.stringbool().transform((trusted) => (trusted ? 1 : 0))], {
        error: "must be true, false or the number of proxy hops (0-10)",
      })
      .default(0),
    /** Sign-in and registration attempts allowed per client address per 15 minutes (failed ones per e-mail and address: 10). */
    AUTH_ATTEMPTS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(50),
    /** Connections one process holds open at once; more are answered 503 with Retry-After. */
    MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
    /** Guest sessions (a first basket) one client address may start per hour. */
    NEW_SESSIONS_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(300),
    /** Payment attempts (intents created, confirmations recorded) one client address may make per ten minutes, each. */
    PAYMENT_ATTEMPTS_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(150),
    /** How long a payment holds the basket's tracked stock for the shopper paying (POST /payments/create). */
    RESERVATION_MINUTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .default(15),
    /** Units of one variant one session may hold while paying (server/holds/). */
    HOLD_UNITS_PER_SESSION: z.coerce.number().int().min(1).max(1_000_000).default(10),
    /** Units in all that payments from one client address may hold at once (server/holds/). */
    HOLD_UNITS_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(50),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    /** Stripe mode: all three, or none for the built-in test-mode processor. */
    STRIPE_SECRET_KEY: z
      .string()
      .regex(/^(sk|rk)_(test|live)_\w+$/, "must be a Stripe secret key (sk_test_… or sk_live_…)")
      .optional(),
    STRIPE_PUBLISHABLE_KEY: z
      .string()
      .regex(/^pk_(test|live)_\w+$/, "must be a Stripe publishable key (pk_test_… or pk_live_…)")
      .optional(),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_\w+$/, "must be a Stripe webhook signing secret (whsec_…)")
      .optional(),
    /** Without Stripe keys the shop takes test cards only; on a shared PostgreSQL that must be asked for. */
    ALLOW_TEST_PAYMENTS: z
      .enum(["true", "false", "1", "0"], { error: "must be true or false (or 1 or 0)" })
      .transform((value) => value === "true" || value === "1")
      .default(false),
    /**
     * The built-in test processor run as its own process (npm run processor), e.g. http://127.0.0.1:4242: the shop
     * mounts none and reaches that one instead, with the three STRIPE_* keys the processor was given.
     */
    PROCESSOR_URL: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    /**
     * Tests only: Stripe mode (Stripe.js, the Payment Element) with the server's Stripe calls sent to the built-in test
     * processor run as its own process on the shop's own host instead of api.stripe.com, so that Stripe mode's whole flow can
     * be tested offline. Refused with live keys, with PROCESSOR_URL, and for any host but the shop's own loopback.
     */
    TEST_ONLY_STRIPE_API_URL: z
      .url({ protocol: /^http$/, error: "must be an http:// URL" })
      .max(2048)
      .optional(),
    /**
     * Tests only: a CSV import may fetch pictures from the shop's own loopback addresses (a test's picture server);
     * every other private, link-local or metadata address stays refused. Refused with live Stripe keys.
     */
    TEST_ONLY_ALLOW_LOOPBACK_PICTURES: z
      .enum(["true", "false", "1", "0"], { error: "must be true or false (or 1 or 0)" })
      .transform((value) => value === "true" || value === "1")
      .default(false),
    /** Outgoing e-mail, e.g. smtp://user:pass@smtp.example:587 (STARTTLS when offered) or smtps://…:465; unset: e-mails are logged. */
    SMTP_URL: z
      .url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" })
      .max(2048)
      .optional(),
    /** The From of every e-mail, e.g. "Storefront <orders@shop.example>"; required with SMTP_URL. */
    MAIL_FROM: z
      .string()
      .min(3)
      .max(320)
      .regex(/@/, "must contain an e-mail address, e.g. Storefront <orders@shop.example>")
      .optional(),
    /**
     * Hours after a basket's last change that a shopper who agreed to it is e-mailed "You left something in your
     * basket"; the console's setting wins once saved.
     */
    RECOVERY_HOURS: z.coerce.number().int().min(1).max(168).default(4),
    /** Tests only: basket reminders after this many seconds instead of hours (and the second a day later likewise). */
    TEST_ONLY_RECOVERY_SECONDS: z.coerce.number().int().min(1).max(3600).optional(),
    /** Days after an order is marked shipped that the shopper is asked "How was your {product}?" (once per order). */
    REVIEW_REQUEST_DAYS: z.coerce.number().int().min(0).max(365).default(7),
    /**
     * Days an order takes to arrive after it is marked shipped: an EU or EEA shopper may withdraw until 14 days after
     * that ("Withdraw from contract here"). Generous rather than short: the law counts from receipt.
     */
    DELIVERY_DAYS: z.coerce.number().int().min(0).max(90).default(7),
    /** The shop's time zone (an IANA name) until the console's Settings save one: the sales dashboard's days start at its midnight. */
    SHOP_TIME_ZONE: z
      .string()
      .max(100)
      .refine(isKnownTimeZone, {
        error: (issue) =>
          `must be an IANA time zone such as Europe/Paris or America/New_York (${JSON.stringify(issue.input)} is not one)`,
      })
      .default("UTC"),
    // Running many instances (docs/scaling.md).
    /** Requests one process works on at once; more are answered 503 with Retry-After at once instead of queueing. */
    MAX_REQUESTS_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(200),
    /** After SIGTERM, how long /readyz answers 503 while requests are still served, so a load balancer stops sending any. */
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    /** Addresses and networks (CIDR) that may read /metrics, comma-separated. */
    METRICS_ALLOW: z
      .string()
      .max(4096)
      .transform((list) =>
        list
          .split(",")
          .map((entry) => entry.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.string().regex(/^[0-9a-fA-F.:]+(\/\d{1,3})?$/, "must be IP addresses or CIDR networks, comma-separated"),
        ),
      )
      .default(["127.0.0.1", "::1"]),
    /** Without PUBLIC_URL: host names (besides IP literals and localhost) the shop answers, comma-separated; any other Host gets 421. */
    ALLOWED_HOSTS: z
      .string()
      .max(4096)
      .transform((list) =>
        list
          .split(",")
          .map((entry) => entry.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().regex(/^[a-z0-9.-]+$/, "must be host names, comma-separated, without scheme or port")))
      .default([]),
    /** The operator made at start (the account created or its password set, the role given); never logged. */
    OPERATOR_EMAIL: z
      .email({ error: "must be an e-mail address" })
      .max(254)
      .transform((email) => email.trim().toLowerCase())
      .optional(),
    OPERATOR_PASSWORD: z.string().max(128, "must be at most 128 characters").optional(),
    /** A file holding the operator's password (a container secret), instead of OPERATOR_PASSWORD. */
    OPERATOR_PASSWORD_FILE: z.string().max(4096).optional(),
    /**
     * A lost phone with no recovery code left: true turns off two-step verification of OPERATOR_EMAIL's account at
     * this start (audit-logged). Remove it again once the operator has signed in and set it up anew.
     */
    OPERATOR_RESET_TWO_STEP: z
      .enum(["true", "false", "1", "0"], { error: "must be true or false (or 1 or 0)" })
      .transform((value) => value === "true" || value === "1")
      .default(false),
  })
  .superRefine((config, context) => {
    const stripeKeys = ["STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET"] as const;
    const missing = stripeKeys.filter((name) => !config[name]);
    if (missing.length > 0 && missing.length < stripeKeys.length) {
      for (const name of missing) {
        context.addIssue({
          code: "custom",
          path: [name],
          message: "is required when any Stripe key is set (set all three, or none for the built-in processor)",
        });
      }
    }
    // The embedded database is a trial on one machine; PostgreSQL is how the shop is deployed, where test-mode
    // payments (paid orders for test cards) must never happen by accident.
    if (config.DATABASE_URL && missing.length === stripeKeys.length && !config.ALLOW_TEST_PAYMENTS) {
      context.addIssue({
        code: "custom",
        path: ["ALLOW_TEST_PAYMENTS"],
        message:
          "DATABASE_URL is set but no Stripe keys are: set STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET, or ALLOW_TEST_PAYMENTS=true to take test payments only",
      });
    }
    if (config.SMTP_URL && !config.MAIL_FROM) {
      context.addIssue({
        code: "custom",
        path: ["MAIL_FROM"],
        message: "is required with SMTP_URL: the address e-mails are sent from, e.g. Storefront <orders@shop.example>",
      });
    }
    // Behind a proxy the shop cannot know its public address, and e-mailed links would point at localhost.
    if (config.SMTP_URL && config.TRUST_PROXY > 0 && !config.PUBLIC_URL) {
      context.addIssue({
        code: "custom",
        path: ["PUBLIC_URL"],
        message: "is required with SMTP_URL behind a proxy (TRUST_PROXY): links in e-mails must reach the shop",
      });
    }
    // A live secret key with a test publishable key (or the reverse) takes payments the browser and the server
    // disagree about: Stripe.js would confirm intents the server cannot see. Refused at start, like a partial set.
    const secretMode = config.STRIPE_SECRET_KEY?.match(/^(?:sk|rk)_(test|live)_/)?.[1];
    const publishableMode = config.STRIPE_PUBLISHABLE_KEY?.match(/^pk_(test|live)_/)?.[1];
    if (secretMode && publishableMode && secretMode !== publishableMode) {
      context.addIssue({
        code: "custom",
        path: ["STRIPE_PUBLISHABLE_KEY"],
        message: `is a ${publishableMode} key but STRIPE_SECRET_KEY is a ${secretMode} key: use both keys from the same mode (test or live) of the Dashboard`,
      });
    }
    if (config.OPERATOR_EMAIL && !config.OPERATOR_PASSWORD === !config.OPERATOR_PASSWORD_FILE) {
      context.addIssue({
        code: "custom",
        path: ["OPERATOR_PASSWORD"],
        message: "set OPERATOR_PASSWORD or OPERATOR_PASSWORD_FILE (one of them) with OPERATOR_EMAIL",
      });
    }
    if (config.OPERATOR_RESET_TWO_STEP && !config.OPERATOR_EMAIL) {
      context.addIssue({
        code: "custom",
        path: ["OPERATOR_RESET_TWO_STEP"],
        message: "needs OPERATOR_EMAIL: the account whose two-step verification is reset",
      });
    }
    if (!config.OPERATOR_EMAIL && (config.OPERATOR_PASSWORD || config.OPERATOR_PASSWORD_FILE)) {
      context.addIssue({
        code: "custom",
        path: ["OPERATOR_EMAIL"],
        message: "is required with OPERATOR_PASSWORD or OPERATOR_PASSWORD_FILE",
      });
    }
    if (config.TEST_ONLY_STRIPE_API_URL) {
      const refuse = (message: string) =>
        context.addIssue({ code: "custom", path: ["TEST_ONLY_STRIPE_API_URL"], message });
      // Real money must never be sent anywhere but Stripe: only test keys, only the shop's own host.
      if (missing.length > 0 || secretMode !== "test" || publishableMode !== "test")
        refuse("is for tests only: it needs all three Stripe keys, in test mode (sk_test_…, pk_test_…)");
      if (!["127.0.0.1", "localhost", "[::1]"].includes(new URL(config.TEST_ONLY_STRIPE_API_URL).hostname))
        refuse("must name this machine (127.0.0.1, localhost or [::1]): it is for a test processor");
      if (config.PROCESSOR_URL)
        refuse(
          "cannot be set with PROCESSOR_URL: one is Stripe mode against a test processor, the other the built-in mode",
        );
    }
    // A shop taking real money never fetches from its own machine's addresses on an import's say-so.
    if (config.TEST_ONLY_ALLOW_LOOPBACK_PICTURES && (secretMode === "live" || publishableMode === "live")) {
      context.addIssue({
        code: "custom",
        path: ["TEST_ONLY_ALLOW_LOOPBACK_PICTURES"],
        message: "is for tests only: it cannot be set with live Stripe keys",
      });
    }
    if (config.TEST_ONLY_RECOVERY_SECONDS !== undefined && (secretMode === "live" || publishableMode === "live")) {
      context.addIssue({
        code: "custom",
        path: ["TEST_ONLY_RECOVERY_SECONDS"],
        message: "is for tests only: it cannot be set with live Stripe keys",
      });
    }
    if (config.PROCESSOR_URL && missing.length > 0) {
      context.addIssue({
        code: "custom",
        path: ["PROCESSOR_URL"],
        message:
          "needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET: the keys the processor was started with",
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

/** Every variable the shop reads. */
export const configVariables = Object.keys(configSchema.shape);

export class ConfigError extends Error {}

/**
 * Reads a `.env` file into process.env when there is one (Node's own parser; see .env.example). Variables the
 * environment already sets win: an operator's `PORT=4000 npm start` is never overridden by the file.
 */
export function loadEnvFile(path = ".env"): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}

/**
 * The start-up operator's credentials, the password read from OPERATOR_PASSWORD_FILE when that is set (one trailing
 * newline dropped, as editors and `echo` add one). An unreadable file stops the server naming the variable, not the file's content.
 */
export function operatorCredentials(
  config: Config,
  readFile: (path: string) => string,
): { email: string; password: string } | undefined {
  if (!config.OPERATOR_EMAIL) return undefined;
  let password = config.OPERATOR_PASSWORD;
  if (config.OPERATOR_PASSWORD_FILE) {
    try {
      password = readFile(config.OPERATOR_PASSWORD_FILE).replace(/\r?\n$/, "");
    } catch (error) {
      throw new ConfigError(
        `Invalid configuration: OPERATOR_PASSWORD_FILE: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
  }
  return { email: config.OPERATOR_EMAIL, password: password ?? "" };
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "not set", as a shell user expects after `export DATABASE_URL=`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const result = configSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    // One line, so that a process manager's log shows the whole reason.
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  return result.data;
}
