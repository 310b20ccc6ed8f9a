// The one error a shopper can be shown: a stable code for callers, a sentence for people, and the HTTP status each code
// means.

/**
 * The one error type a shopper can be shown. `code` is stable for callers; `message` is a sentence for people.
 * The HTTP status follows from the code, in one table, so a route never picks a status by hand.
 */
export const errorStatus = {
  BAD_REQUEST: 400,
  BASKET_EMPTY: 400,
  ADDRESS_REQUIRED: 400,
  NOT_DELIVERABLE: 400,
  INVALID_INPUT: 400,
  ALREADY_IN_ZONE: 409,
  ADDRESS_INVALID: 422,
  ORDER_TRANSITION_REFUSED: 409,
  DEPARTMENT_NOT_EMPTY: 409,
  PROMOTION_REFUSED: 409,
  PROMOTION_IN_USE: 409,
  WRONG_CREDENTIALS: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BASKET_FULL: 409,
  BASKET_LINE_FULL: 409,
  OUT_OF_STOCK: 409,
  GIFT_CARD_LINE_TAKEN: 409,
  STOCK_SHORT: 409,
  ALREADY_IN_STOCK: 409,
  EMAIL_TAKEN: 409,
  TOTAL_MISMATCH: 409,
  PAYMENT_NOT_COMPLETE: 409,
  PAYMENT_NEEDS_REVIEW: 409,
  UNKNOWN_PRODUCT: 422,
  OPTION_REQUIRED: 422,
  NO_SUCH_COMBINATION: 422,
  REVIEW_NOT_ELIGIBLE: 403,
  INVALID_PASSWORD: 422,
  TOO_MANY_ATTEMPTS: 429,
  TOO_MANY_NEW_SESSIONS: 429,
  PAYLOAD_TOO_LARGE: 413,
  MISDIRECTED_REQUEST: 421,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYMENT_PROVIDER_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  readonly code: ErrorCode;
  /** For TOO_MANY_ATTEMPTS, TOO_MANY_NEW_SESSIONS and SERVICE_UNAVAILABLE: when the caller may try again (sent as Retry-After). */
  readonly retryAfterSeconds?: number;
  /** Facts a caller can act on, sent in the error body (e.g. the current total after TOTAL_MISMATCH). */
  readonly details?: Record<string, unknown>;
  constructor(
    code: ErrorCode,
    message: string,
    options?: ErrorOptions & { retryAfterSeconds?: number; details?: Record<string, unknown> },
  ) {
    super(message, options);
    this.name = "AppError";
    this.code = code;
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.details = options?.details;
  }
  get status(): number {
    return errorStatus[this.code];
  }
}

/** The body of every error response from a JSON route. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId?: string; details?: Record<string, unknown> };
}
