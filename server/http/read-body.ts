// Reading a request's body as a form post or JSON, within the size limit, refusing one that cannot be read rather than
// taking it as empty.

import type { z } from "zod";
import { AppError } from "#shared/errors";
import { readFormFields } from "#shared/form-fields";
import { unstorableFieldOf, unstorableTextMessage } from "#shared/storable-text";

/** The kinds of body a request may carry: a form post (no JavaScript) or JSON (the enhanced page). */
export type BodyKind = "form" | "json";

export function bodyKind(request: Request): BodyKind | null {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/json") return "json";
  if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") return "form";
  return null;
}

/**
 * Reads and validates a request body against a strict zod schema, from a form or from JSON. Repeated form fields,
 * files, malformed JSON, unknown fields and wrong types all become one clear 400; nothing reaches a service unchecked.
 * A body with no content type counts as empty, so posts that carry no body validate as {}.
 */
export async function readBody<Schema extends z.ZodType>(request: Request, schema: Schema): Promise<z.infer<Schema>> {
  const raw = await readRaw(request);
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    const message =
      issue?.code === "unrecognized_keys"
        ? `Unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}.`
        : `${where}${issue?.message ?? "invalid request"}.`;
    throw new AppError("BAD_REQUEST", `The request was not understood. ${message}`);
  }
  return result.data;
}

/** The body as sent (a form's fields or parsed JSON), for a route whose schema depends on what the body holds. */
export function readRawBody(request: Request): Promise<unknown> {
  return readRaw(request);
}

async function readRaw(request: Request): Promise<unknown> {
  const kind = bodyKind(request);
  if (kind === null) {
    if ((await request.arrayBuffer()).byteLength === 0) return {};
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the request as a form or as JSON.");
  }
  if (kind === "json") {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      throw new AppError("BAD_REQUEST", "The request was not understood. The body is not valid JSON.");
    }
    const unstorable = unstorableFieldOf(body);
    if (unstorable !== undefined) throw new AppError("BAD_REQUEST", unstorableTextMessage(unstorable));
    return body;
  }
  return readFormFields(request);
}
