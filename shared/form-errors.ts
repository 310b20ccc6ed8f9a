import type { z } from "zod";

/** A form's errors by field, first message each, as the page shows them under the fields. */
export type FieldErrors = Partial<Record<string, string>>;

export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path[0] === undefined ? "form" : String(issue.path[0]);
    errors[field] ??= issue.code === "unrecognized_keys" ? "Please check the form and try again." : issue.message;
  }
  return errors;
}
