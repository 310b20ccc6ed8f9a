import { z } from "zod";
import { bracketName, isHash, valueAt, type FormHash, type FormValue } from "./form-params.ts";
import { invalidRequest, parameterMissing, parameterUnknown, type StripeApiError } from "./stripe-errors.ts";

/**
 * The parameters of each PaymentIntent call, one strict zod schema per call, read from the bracket-notation tree.
 * Anything the schema does not name is refused as Stripe does ("Received unknown parameter: x"). Messages echo
 * parameter names, and values only where they cannot be card data.
 */

/** Stripe's limits (docs.stripe.com/api/metadata, docs.stripe.com/api/payment_intents/create). */
export const LIMITS = {
  maxAmount: 99_999_999,
  metadataKeys: 50,
  metadataKeyLength: 40,
  metadataValueLength: 500,
  descriptionLength: 1000,
  clientSecretLength: 200,
  returnUrlLength: 2048,
  expandItems: 20,
  /** Each field of `shipping` (Stripe documents no limit below this; its own address fields are shorter in practice). */
  shippingText: 5000,
  /** Stripe's smallest charge in US dollars (docs.stripe.com/currencies#minimum-and-maximum-charge-amounts). */
  minAmountUsd: 50,
  emailLength: 800,
  statementDescriptorLength: 22,
} as const;

/** A refusal with Stripe's error code, raised inside a schema and carried out by readParams. */
function refuse(ctx: z.RefinementCtx, message: string, stripeCode?: string): typeof z.NEVER {
  ctx.addIssue({ code: "custom", message, params: { stripeCode } });
  return z.NEVER;
}

const shortened = (value: string) => (value.length > 40 ? `${value.slice(0, 40)}…` : value);

const text = (max: number) =>
  z
    .string()
    .transform((value, ctx) =>
      value.length > max
        ? refuse(ctx, `Invalid string: ${shortened(value)}; must be at most ${max} characters`)
        : value,
    );

/** Form values are strings: an integer is its decimal digits. */
const integer = z
  .string()
  .transform((value, ctx) =>
    /^-?[0-9]{1,15}$/.test(value)
      ? Number(value)
      : refuse(ctx, `Invalid integer: ${shortened(value)}`, "parameter_invalid_integer"),
  );

const amount = integer.transform((value, ctx) => {
  if (value < 1) return refuse(ctx, "This value must be greater than or equal to 1.", "amount_too_small");
  if (value > LIMITS.maxAmount) return refuse(ctx, "Amount must be no more than $999,999.99", "amount_too_large");
  return value;
});

const boolean = z
  .string()
  .transform((value, ctx) =>
    value === "true" ? true : value === "false" ? false : refuse(ctx, `Invalid boolean: ${shortened(value)}`),
  );

function oneOf<const Values extends readonly [string, ...string[]]>(name: string, values: Values) {
  const list = values.length > 1 ? `${values.slice(0, -1).join(", ")}, or ${values.at(-1)}` : values[0];
  return z
    .string()
    .transform((value, ctx) =>
      (values as readonly string[]).includes(value)
        ? (value as Values[number])
        : refuse(ctx, `Invalid ${name}: must be one of ${list}`),
    );
}

/** An array, sent as `name[]=…` or (the SDK's way) `name[0]=…&name[1]=…`. */
function list<Item extends z.ZodType>(item: Item, max: number) {
  return z.preprocess((value) => {
    if (!isHash(value as FormValue)) return value;
    const keys = Object.keys(value as FormHash);
    if (!keys.every((key, index) => key === String(index))) return value;
    return keys.map((key) => (value as FormHash)[key]);
  }, z.array(item).max(max));
}

/** `metadata[key]=value` pairs, in order. An empty value unsets a key; `metadata=` (empty) unsets them all. */
export interface MetadataChange {
  clearAll: boolean;
  entries: [string, string][];
}

const metadata = z
  .custom<FormValue>((value) => value !== undefined)
  .transform((value, ctx): MetadataChange => {
    if (value === "") return { clearAll: true, entries: [] };
    if (!isHash(value)) return refuse(ctx, "Invalid hash");
    if (Object.keys(value).length > LIMITS.metadataKeys)
      return refuse(ctx, `Invalid metadata: metadata cannot contain more than ${LIMITS.metadataKeys} keys.`);
    const entries: [string, string][] = [];
    for (const [key, entry] of Object.entries(value)) {
      if (typeof entry !== "string") return refuse(ctx, "Invalid metadata: metadata values must be strings.");
      if (key.length > LIMITS.metadataKeyLength)
        return refuse(
          ctx,
          `Invalid metadata: metadata keys must be at most ${LIMITS.metadataKeyLength} characters long.`,
        );
      if (entry.length > LIMITS.metadataValueLength)
        return refuse(
          ctx,
          `Invalid metadata: metadata values must be at most ${LIMITS.metadataValueLength} characters long.`,
        );
      entries.push([key, entry]);
    }
    return { clearAll: false, entries };
  });

/** Refuses amounts under Stripe's minimum charge, with Stripe's words. */
function atLeastMinimum(params: { amount?: number }, ctx: z.RefinementCtx): void {
  if (params.amount !== undefined && params.amount < LIMITS.minAmountUsd) {
    ctx.addIssue({
      code: "custom",
      path: ["amount"],
      message: "Amount must be at least $0.50 usd",
      params: { stripeCode: "amount_too_small" },
    });
  }
}

/** Parameters Stripe accepts that the processor keeps (receipt_email) or has no use for (statement descriptors). */
const acceptedExtras = {
  receipt_email: text(LIMITS.emailLength).optional(),
  statement_descriptor: text(LIMITS.statementDescriptorLength).optional(),
  statement_descriptor_suffix: text(LIMITS.statementDescriptorLength).optional(),
};

/** Accepted so that calls written for Stripe parse; the route refuses any field, as none can be expanded here. */
const expand = list(text(200), LIMITS.expandItems).optional();

/** Stripe's `shipping` hash: `name` and `address` are required; an empty `shipping=` on update removes it. */
const shippingHash = z.strictObject({
  name: text(LIMITS.shippingText),
  address: z.strictObject({
    line1: text(LIMITS.shippingText).optional(),
    line2: text(LIMITS.shippingText).optional(),
    city: text(LIMITS.shippingText).optional(),
    state: text(LIMITS.shippingText).optional(),
    postal_code: text(LIMITS.shippingText).optional(),
    country: text(LIMITS.shippingText).optional(),
  }),
  carrier: text(LIMITS.shippingText).optional(),
  phone: text(LIMITS.shippingText).optional(),
  tracking_number: text(LIMITS.shippingText).optional(),
});

/** What a call said about shipping: set it, remove it (`shipping=`), or nothing. */
export type ShippingChange = { kind: "set"; shipping: z.output<typeof shippingHash> } | { kind: "remove" };

const shipping = z.union([
  z.literal("").transform((): ShippingChange => ({ kind: "remove" })),
  shippingHash.transform((value): ShippingChange => ({ kind: "set", shipping: value })),
]);

export const createParams = z
  .strictObject({
    amount,
    currency: z.string().transform((value, ctx) => {
      const currency = value.toLowerCase();
      return currency === "usd"
        ? currency
        : refuse(ctx, `Invalid currency: ${shortened(value)}. The test-mode processor supports only usd.`);
    }),
    metadata: metadata.optional(),
    description: text(LIMITS.descriptionLength).optional(),
    shipping: shippingHash.optional(),
    automatic_payment_methods: z
      .strictObject({ enabled: boolean, allow_redirects: oneOf("allow_redirects", ["always", "never"]).optional() })
      .optional(),
    payment_method_types: list(oneOf("payment_method_types", ["card"]), 1).optional(),
    /** The newer name of payment_method_types (the SDK's current API version knows only this one). */
    allowed_payment_method_types: list(oneOf("allowed_payment_method_types", ["card"]), 1).optional(),
    /** Card payments are captured at once either way; `automatic_async` is the newer default's name. */
    capture_method: oneOf("capture_method", ["automatic", "automatic_async"]).optional(),
    ...acceptedExtras,
    expand,
  })
  .superRefine((params, ctx) => {
    atLeastMinimum(params, ctx);
    const listed = params.payment_method_types
      ? "payment_method_types"
      : params.allowed_payment_method_types
        ? "allowed_payment_method_types"
        : null;
    if (params.automatic_payment_methods?.enabled && listed) {
      ctx.addIssue({
        code: "custom",
        path: [listed],
        message: `You may only specify one of these parameters: automatic_payment_methods, ${listed}.`,
        params: { stripeCode: "parameters_exclusive" },
      });
    }
  });

export const updateParams = z
  .strictObject({
    amount: amount.optional(),
    metadata: metadata.optional(),
    shipping: shipping.optional(),
    description: text(LIMITS.descriptionLength).optional(),
    ...acceptedExtras,
    expand,
  })
  .superRefine(atLeastMinimum);

export const cancelParams = z.strictObject({
  cancellation_reason: oneOf("cancellation_reason", [
    "duplicate",
    "fraudulent",
    "requested_by_customer",
    "abandoned",
  ]).optional(),
  expand,
});

export const retrieveParams = z.strictObject({
  client_secret: text(LIMITS.clientSecretLength).optional(),
  /** Stripe.js sends the publishable key as a query parameter. */
  key: z.string().optional(),
  expand,
});

/** Card fields stay strings: the card rules check them, and nothing here repeats their values. */
const cardField = z.string();

export const confirmParams = z.strictObject({
  client_secret: text(LIMITS.clientSecretLength).optional(),
  /** Stripe.js sends the publishable key in the body rather than the Authorization header. */
  key: z.string().optional(),
  payment_method_data: z
    .strictObject({
      type: oneOf("payment_method_data[type]", ["card"]),
      card: z.strictObject({ number: cardField, exp_month: cardField, exp_year: cardField, cvc: cardField.optional() }),
      billing_details: z
        .strictObject({
          address: z
            .strictObject({
              postal_code: text(20).optional(),
              country: text(2).optional(),
              line1: text(200).optional(),
              line2: text(200).optional(),
              city: text(200).optional(),
              state: text(200).optional(),
            })
            .optional(),
          name: text(200).optional(),
          email: text(200).optional(),
          phone: text(40).optional(),
        })
        .optional(),
    })
    .optional(),
  /** A test PaymentMethod (`pm_card_visa`, …), as a server confirms with the secret key. */
  payment_method: text(100).optional(),
  receipt_email: text(LIMITS.emailLength).optional(),
  return_url: text(LIMITS.returnUrlLength).optional(),
  use_stripe_sdk: boolean.optional(),
  expected_payment_method_type: oneOf("expected_payment_method_type", ["card"]).optional(),
  expand,
});

/** The processor's own test helper: how a processing payment ends. */
export const finishProcessingParams = z.strictObject({
  outcome: oneOf("outcome", ["succeed", "fail"]),
  expand,
});

/** POST /v1/refunds: a payment's charge named by intent or charge id; all that is left when no amount is given. */
export const refundCreateParams = z
  .strictObject({
    payment_intent: text(100).optional(),
    charge: text(100).optional(),
    amount: integer
      .transform((value, ctx) => (value < 1 ? refuse(ctx, "This value must be greater than or equal to 1.") : value))
      .optional(),
    reason: oneOf("reason", ["duplicate", "fraudulent", "requested_by_customer"]).optional(),
    metadata: metadata.optional(),
    expand,
  })
  .superRefine((params, ctx) => {
    if (!params.payment_intent && !params.charge) {
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "One of the following params should be provided for this request: payment_intent or charge.",
        params: { stripeCode: "parameter_missing" },
      });
    }
  });

export const refundListParams = z.strictObject({
  payment_intent: text(100).optional(),
  charge: text(100).optional(),
  limit: integer
    .transform((value, ctx) =>
      value < 1 || value > 100 ? refuse(ctx, "This value must be between 1 and 100.") : value,
    )
    .optional(),
  starting_after: text(100).optional(),
  expand,
});

export const plainRetrieveParams = z.strictObject({ expand });

export const authenticateParams = z.strictObject({
  client_secret: text(LIMITS.clientSecretLength).optional(),
  key: z.string().optional(),
  outcome: oneOf("outcome", ["complete", "fail"]),
  expand,
});

/** Validates a parameter tree against a call's schema, or throws the Stripe error for the first problem. */
export function readParams<Schema extends z.ZodType>(schema: Schema, params: FormHash): z.output<Schema> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  throw toStripeError(result.error.issues[0], params);
}

function toStripeError(issue: z.core.$ZodIssue | undefined, params: FormHash): StripeApiError {
  if (!issue) return invalidRequest("Invalid request.");
  if (issue.code === "unrecognized_keys") return parameterUnknown(bracketName([...issue.path, issue.keys[0] ?? ""]));
  const param = bracketName(issue.path);
  if (issue.code === "custom") {
    const stripeCode = (issue.params as { stripeCode?: string } | undefined)?.stripeCode;
    return invalidRequest(issue.message, { code: stripeCode, param });
  }
  const value = valueAt(params, issue.path);
  if (value === undefined) return parameterMissing(param);
  if (issue.code === "too_big")
    return invalidRequest(`Invalid array: ${param} must have at most ${String(issue.maximum)} items`, { param });
  const expected = issue.code === "invalid_type" ? issue.expected : "value";
  const kind =
    expected === "object"
      ? "a hash"
      : expected === "array"
        ? "an array"
        : expected === "string"
          ? "a string"
          : "a valid value";
  return invalidRequest(`Invalid value for ${param}: expected ${kind}.`, { param });
}
