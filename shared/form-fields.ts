// Reading a form post into plain fields, refusing files, repeated fields and unstorable text with a 400 that names the
// field.

import { AppError } from "./errors";
import { isStorableText, unstorableTextMessage } from "./storable-text";

/**
 * A form's fields as a plain object, refusing files, repeated fields (which a strict schema cannot see) and text
 * PostgreSQL cannot store (storable-text.ts), each with a 400 naming the field.
 */
export async function readFormFields(request: Request): Promise<Record<string, string>> {
  const form = await request.formData().catch(() => {
    throw new AppError("BAD_REQUEST", "The request was not understood. The form could not be read.");
  });
  const fields = new Map<string, string>();
  for (const [name, value] of form) {
    if (typeof value !== "string")
      throw new AppError("BAD_REQUEST", `The request was not understood. ${name}: files are not accepted.`);
    if (fields.has(name))
      throw new AppError("BAD_REQUEST", `The request was not understood. ${name}: sent more than once.`);
    if (!isStorableText(name) || !isStorableText(value)) throw new AppError("BAD_REQUEST", unstorableTextMessage(name));
    fields.set(name, value);
  }
  return Object.fromEntries(fields);
}

/**
 * A form with one file field (multipart/form-data) as plain fields and that file's bytes and name: null when none was chosen
 * (browsers send an empty, unnamed file then). Files in other fields and repeated fields are refused, as above, but
 * for the `repeatable` ones (a multi-select), whose values come joined by commas.
 */
export async function readFormWithFile(
  request: Request,
  fileField: string,
  options: { repeatable?: readonly string[] } = {},
): Promise<{ fields: Record<string, string>; file: Uint8Array | null; fileName: string }> {
  const { fields, files } = await readFormWithFiles(request, (name) => name === fileField, options);
  const chosen = files.get(fileField);
  return { fields, file: chosen?.bytes ?? null, fileName: chosen?.name ?? "" };
}

/**
 * A form with several file fields (those `isFileField` names: the product form's picture and each variant's) as
 * plain fields and the chosen files by field name; a file field left empty is absent. Each file field may come
 * once; files in any other field, and repeated fields but the `repeatable` ones, are refused as above.
 */
export async function readFormWithFiles(
  request: Request,
  isFileField: (name: string) => boolean,
  { repeatable = [] }: { repeatable?: readonly string[] } = {},
): Promise<{ fields: Record<string, string>; files: Map<string, { bytes: Uint8Array; name: string }> }> {
  const form = await request.formData().catch(() => {
    throw new AppError("BAD_REQUEST", "The request was not understood. The form could not be read.");
  });
  const fields = new Map<string, string>();
  const files = new Map<string, { bytes: Uint8Array; name: string }>();
  const seenFiles = new Set<string>();
  for (const [name, value] of form) {
    if (isFileField(name)) {
      if (seenFiles.has(name))
        throw new AppError("BAD_REQUEST", `The request was not understood. ${name}: sent more than once.`);
      if (!isStorableText(name)) throw new AppError("BAD_REQUEST", unstorableTextMessage(name));
      seenFiles.add(name);
      if (typeof value !== "string" && value.size > 0) {
        files.set(name, {
          bytes: new Uint8Array(await value.arrayBuffer()),
          name: isStorableText(value.name) ? value.name.slice(0, 255) : "",
        });
      }
      continue;
    }
    if (typeof value !== "string")
      throw new AppError("BAD_REQUEST", `The request was not understood. ${name}: files are not accepted.`);
    if (fields.has(name) && repeatable.includes(name)) {
      fields.set(name, `${fields.get(name)},${value}`);
      continue;
    }
    if (fields.has(name))
      throw new AppError("BAD_REQUEST", `The request was not understood. ${name}: sent more than once.`);
    if (!isStorableText(name) || !isStorableText(value)) throw new AppError("BAD_REQUEST", unstorableTextMessage(name));
    fields.set(name, value);
  }
  return { fields: Object.fromEntries(fields), files };
}
