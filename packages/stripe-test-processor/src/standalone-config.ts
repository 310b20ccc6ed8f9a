import { z } from "zod";

/**
 * The processor's settings when it runs as its own process (main.ts), parsed once from the environment: a missing
 * or malformed variable stops it with one line naming the variable. Its keys come from here, so that the operator
 * gives the shop the same three (STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET) and nothing secret
 * is ever printed.
 */
const standaloneConfigSchema = z.strictObject({
  PORT: z.coerce.number().int().min(0).max(65535).default(4242),
  HOST: z.string().min(1).max(255).default("127.0.0.1"),
  DATA_DIR: z.string().min(1).max(4096).default("./data-processor"),
  DATABASE_URL: z
    .string()
    .max(4096)
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** Where webhook events go: the shop's POST /webhooks/stripe. */
  WEBHOOK_URL: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .default("http://127.0.0.1:3000/webhooks/stripe"),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^sk_test_[A-Za-z0-9]{8,200}$/, "must be a test secret key (sk_test_ and 8 or more letters or digits)"),
  STRIPE_PUBLISHABLE_KEY: z
    .string()
    .regex(/^pk_test_[A-Za-z0-9]{8,200}$/, "must be a test publishable key (pk_test_ and 8 or more letters or digits)"),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9]{8,200}$/, "must be a webhook secret (whsec_ and 8 or more letters or digits)"),
  /** Compresses Stripe's test-mode webhook retry schedule (0.001: an hour becomes 3.6 s), for trying retries out. */
  WEBHOOK_RETRY_TIME_SCALE: z.coerce.number().positive().max(1).default(1),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

export type StandaloneConfig = z.infer<typeof standaloneConfigSchema>;

const NAMES = Object.keys(standaloneConfigSchema.shape);

/** Reads the processor's variables (and only those) from the environment; throws one line per problem. */
export function parseStandaloneConfig(env: Record<string, string | undefined>): StandaloneConfig {
  // An empty variable means "not set"; other variables belong to other programs.
  const present = Object.fromEntries(
    Object.entries(env).filter(([name, value]) => NAMES.includes(name) && value !== undefined && value !== ""),
  );
  const result = standaloneConfigSchema.safeParse(present);
  if (!result.success) {
    throw new Error(
      `Invalid configuration: ${result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`,
    );
  }
  return result.data;
}
