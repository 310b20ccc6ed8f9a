// The one way a page action reads its form: anything unreadable answered with a clear 4xx naming the field, and ids
// from the address checked.

import { data } from "react-router";
import { AppError } from "#shared/errors";
import { readFormFields, readFormWithFile, readFormWithFiles } from "#shared/form-fields";
import { isUuid } from "#shared/ids";
import { isStorableText } from "#shared/storable-text";

/**
 * The one way a page action reads its form. A form that cannot be read (a JSON or text/plain body, a repeated field,
 * a file where none is taken, a NUL or a broken character, one too large) is answered with the clear 4xx page naming
 * the field: thrown as React Router data, which the root's error boundary shows with its sentence. Never an empty
 * form in its place: a route module imports these, not shared/form-fields.ts (eslint.config.js holds it).
 */
export async function readFormOrRefuse(request: Request): Promise<Record<string, string>> {
  try {
    return await readFormFields(request);
  } catch (error) {
    throw refusal(error);
  }
}

export async function readFormWithFileOrRefuse(
  request: Request,
  fileField: string,
): ReturnType<typeof readFormWithFile> {
  try {
    return await readFormWithFile(request, fileField);
  } catch (error) {
    throw refusal(error);
  }
}

export async function readFormWithFilesOrRefuse(
  ...args: Parameters<typeof readFormWithFiles>
): ReturnType<typeof readFormWithFiles> {
  try {
    return await readFormWithFiles(...args);
  } catch (error) {
    throw refusal(error);
  }
}

/** A page for an id in its address (`/admin/products/{id}`) that is no id at all: the 404 page, before any query. */
export function requireIdParam(value: string | undefined): string {
  if (value === undefined || !isUuid(value)) throw data(null, { status: 404 });
  return value;
}

/**
 * A page for a catalogue id in its address (`/admin/products/{id}`: text, a UUID or a catalogue number) that no row
 * could have (a NUL, a broken character, far too long): the 404 page, before any query.
 */
export function requireTextIdParam(value: string | undefined): string {
  if (value === undefined || value.length > 200 || !isStorableText(value)) throw data(null, { status: 404 });
  return value;
}

function refusal(error: unknown): unknown {
  return error instanceof AppError ? data({ message: error.message }, { status: error.status }) : error;
}
