import { z } from "zod";

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
  /** Set only behind a reverse proxy you run: client addresses are then read from X-Forwarded-For. */
  TRUST_PROXY: z.stringbool().default(false),
  /** Sign-in and registration attempts allowed per client address per 15 minutes (per e-mail it is 10). */
  AUTH_ATTEMPTS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(50),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Stripe mode: all three, or none for the built-in test-mode processor. */
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_\w+$/, "must be a Stripe secret key (sk_test_… or sk_live_…)").optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().regex(/^pk_(test|live)_\w+$/, "must be a Stripe publishable key (pk_test_… or pk_live_…)").optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_\w+$/, "must be a Stripe webhook signing secret (whsec_…)").optional(),
  /**
   * The built-in test processor run as its own process (npm run processor), e.g. http://127.0.0.1:4242: the shop
   * mounts none and reaches that one instead, with the three STRIPE_* keys the processor was given.
   */
  PROCESSOR_URL: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  })
  .superRefine((config, context) => {
    const stripeKeys = ["STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET"] as const;
    const missing = stripeKeys.filter((name) => !config[name]);
    if (missing.length > 0 && missing.length < stripeKeys.length) {
      for (const name of missing) {
        context.addIssue({ code: "custom", path: [name], message: "is required when any Stripe key is set (set all three, or none for the built-in processor)" });
      }
    }
    if (config.PROCESSOR_URL && missing.length > 0) {
      context.addIssue({ code: "custom", path: ["PROCESSOR_URL"], message: "needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET: the keys the processor was started with" });
    }
  });

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "not set", as a shell user expects after `export DATABASE_URL=`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const result = configSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  return result.data;
}
