import { AppError } from "./errors";

/** A form's fields as a plain object, refusing files and repeated fields (which a strict schema cannot see). */
export async function readFormFields(request: Request): Promise<Record<string, string>> {
  const form = await request.formData().catch(() => {
    throw new AppError("BAD_REQUEST", "The request was not understood. The form could not be read.");
  });
  const fields = new Map<string, string>();
  for (const [name, value] of form) {
    if (typeof value !== "string") throw new AppError("BAD_REQUEST", `The request was not understood. ${name}: files are not accepted.`);
    if (fields.has(name)) throw new AppError("BAD_REQUEST", `The request was not understood. ${name}: sent more than once.`);
    fields.set(name, value);
  }
  return Object.fromEntries(fields);
}
