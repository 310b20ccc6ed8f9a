// A test helper: the AppError a call rejects with, failing the test on anything else.

import { AppError } from "#shared/errors";

/** The AppError a call rejects with; anything else (or success) fails the test. */
export async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}
