// A refused form's errors by field, the one mapping from a zod error to what a page shows under each field.

import type { z } from "zod";

/**
 * A refused form's errors by field, first message each, as its page shows them (app/components/form/): the one
 * mapping from a zod error to that map, used by the actions and services that parse a form. Components never see zod,
 * only this plain map.
 */
export type FieldErrors = Partial<Record<string, string>>;

export interface FieldErrorsOptions {
  /** The sentence for fields nobody asked for (a stale or forged form); gets the unknown names when it is a function. */
  unknownFields?: string | ((names: string[]) => string);
  /** The form's field names: an issue on any other path is the form's own ("form"). Unset: every top-level name. */
  fields?: readonly string[];
}

/** The sentence a shop form shows for fields it does not know. */
export const UNKNOWN_FIELDS_SHOP = "Please check the form and try again.";
/** The console's sentence for the same (an operator can reload the page, which brings the current form). */
export const UNKNOWN_FIELDS_CONSOLE = "The form was not understood. Reload the page and try again.";

export function fieldErrorsOf(
  error: Pick<z.ZodError, "issues">,
  { unknownFields = UNKNOWN_FIELDS_SHOP, fields }: FieldErrorsOptions = {},
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      errors.form ??= typeof unknownFields === "function" ? unknownFields(issue.keys) : unknownFields;
      continue;
    }
    const head = issue.path[0];
    const field = head === undefined || (fields && !fields.includes(String(head))) ? "form" : String(head);
    errors[field] ??= issue.message;
  }
  return errors;
}
