/**
 * Stripe's error objects (docs.stripe.com/api/errors): `{ error: { type, code, message, param, … } }` with the
 * HTTP status the SDK turns into its error classes (400/404 StripeInvalidRequestError, 401
 * StripeAuthenticationError, 402 StripeCardError, 409/500 StripeAPIError, idempotency_error StripeIdempotencyError).
 * Messages never carry a card number or a whole API key.
 */

export type StripeErrorType = "api_error" | "card_error" | "idempotency_error" | "invalid_request_error";

export interface StripeErrorObject {
  type: StripeErrorType;
  code?: string;
  decline_code?: string;
  message: string;
  param?: string;
  doc_url?: string;
  /** For card errors and state errors: the PaymentIntent as it is now. */
  payment_intent?: object;
  payment_method?: object;
}

export class StripeApiError extends Error {
  readonly status: number;
  readonly body: StripeErrorObject;
  constructor(status: number, body: StripeErrorObject) {
    super(body.message);
    this.name = "StripeApiError";
    this.status = status;
    this.body = body;
  }
}

/** Where Stripe documents an error code, as it links it in every error object. */
export function docUrl(code: string): string {
  return `https://stripe.com/docs/error-codes/${code.replaceAll("_", "-")}`;
}

export function invalidRequest(
  message: string,
  details: { code?: string; param?: string; status?: number; paymentIntent?: object } = {},
): StripeApiError {
  const { code, param, status = 400, paymentIntent } = details;
  return new StripeApiError(status, {
    type: "invalid_request_error",
    message,
    ...(code ? { code, doc_url: docUrl(code) } : {}),
    ...(param ? { param } : {}),
    ...(paymentIntent ? { payment_intent: paymentIntent } : {}),
  });
}

/** Parameter names are echoed to help the caller, but never at unbounded length. */
function shown(param: string): string {
  return param.length > 100 ? `${param.slice(0, 100)}…` : param;
}

export const parameterUnknown = (param: string) =>
  invalidRequest(`Received unknown parameter: ${shown(param)}`, { code: "parameter_unknown", param: shown(param) });

export const parameterMissing = (param: string) =>
  invalidRequest(`Missing required param: ${shown(param)}.`, { code: "parameter_missing", param: shown(param) });

export const resourceMissing = (id: string) =>
  invalidRequest(`No such payment_intent: '${shown(id)}'`, { code: "resource_missing", param: "intent", status: 404 });

export const unexpectedState = (message: string, paymentIntent: object) =>
  invalidRequest(message, { code: "payment_intent_unexpected_state", paymentIntent });

export const unrecognizedUrl = (method: string, path: string) =>
  invalidRequest(
    `Unrecognized request URL (${method}: ${shown(path)}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    { status: 404 },
  );

export const missingApiKey = () =>
  invalidRequest(
    "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
    { status: 401 },
  );

export const invalidApiKey = (maskedKey: string) =>
  invalidRequest(`Invalid API Key provided: ${maskedKey}`, { code: "api_key_invalid", status: 401 });

export const secretKeyRequired = () =>
  invalidRequest("This API call cannot be made with a publishable API key. Please use a secret API key.", {
    code: "secret_key_required",
    status: 401,
  });

export const idempotencyMismatch = (key: string) =>
  new StripeApiError(400, {
    type: "idempotency_error",
    message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${shown(key)}' if you meant to execute a different request.`,
  });

export const idempotencyKeyInUse = (key: string) =>
  invalidRequest(
    `There is currently another in-progress request using this idempotency key ('${shown(key)}'). Please try again later.`,
    { code: "idempotency_key_in_use", status: 409 },
  );

export const internalError = () =>
  new StripeApiError(500, { type: "api_error", message: "An unknown error occurred." });
