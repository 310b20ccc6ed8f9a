// Text PostgreSQL cannot store (NUL, lone surrogates), refused once when a body is read, with the field it came in.

/**
 * Text PostgreSQL cannot store: NUL (22P05 in a text column or parameter) and UTF-16 surrogates without their
 * partner (22P02 once encoded). JSON can carry both ("\u0000", "\ud800") and a form can carry NUL (%00); every body
 * the shop reads is checked once, when it is read (form-fields.ts, server/http/read-body.ts), and refused with a 400
 * naming the field, before any schema or query sees it.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what is looked for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_TEXT_MESSAGE = "contains a character that cannot be stored (a NUL or a broken character)";

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** The path ("line1", "items.0.name") of the first string in a parsed body, or a key, that cannot be stored; none: undefined. */
export function unstorableFieldOf(value: unknown, path = "", depth = 0): string | undefined {
  if (typeof value === "string") return isStorableText(value) ? undefined : path || "body";
  if (value === null || typeof value !== "object" || depth > 64) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const here = path ? `${path}.${key}` : key;
    if (!isStorableText(key)) return here.replace(UNSTORABLE, "?");
    const found = unstorableFieldOf(inner, here, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function unstorableTextMessage(field: string): string {
  return `The request was not understood. ${field.replace(new RegExp(UNSTORABLE.source, "g"), "?").slice(0, 100)}: ${UNSTORABLE_TEXT_MESSAGE}.`;
}
