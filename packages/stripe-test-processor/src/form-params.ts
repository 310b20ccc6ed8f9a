/**
 * Stripe's request encoding: application/x-www-form-urlencoded pairs whose names use bracket notation
 * (`metadata[basket]=…`, `payment_method_data[card][number]=…`, `payment_method_types[]=card`), read into a tree.
 * No form parser that understands brackets is installed, so this small one is bounded on purpose: how many pairs,
 * how long a name, how deep the nesting. Objects have no prototype, so a name such as `__proto__` is just a key.
 *
 * `name[]=x` appends to an array; `name[0]=x` is the key "0" of a hash (as Rack reads it, and as the Stripe SDK
 * sends arrays); the schemas accept such a hash wherever they expect an array.
 */

export type FormValue = string | FormValue[] | FormHash;
export interface FormHash {
  [name: string]: FormValue;
}

export const FORM_LIMITS = {
  /** More pairs than any request the processor accepts (50 metadata keys plus the rest). */
  maxPairs: 200,
  maxNameLength: 200,
  /** Brackets after the name: payment_method_data[billing_details][address][postal_code] uses three. */
  maxDepth: 4,
} as const;

export class FormParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FormParseError";
  }
}

const NAME = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

/** Parses a form body (or a query string) into a tree of hashes, arrays and strings. */
export function parseFormParams(encoded: string): FormHash {
  const root = emptyHash();
  let pairs = 0;
  for (const [name, value] of new URLSearchParams(encoded)) {
    if (++pairs > FORM_LIMITS.maxPairs) throw new FormParseError(`Too many parameters: at most ${FORM_LIMITS.maxPairs} are accepted.`);
    insert(root, name, value);
  }
  return root;
}

export function emptyHash(): FormHash {
  return Object.create(null) as FormHash;
}

export function isHash(value: FormValue | undefined): value is FormHash {
  return typeof value === "object" && !Array.isArray(value);
}

function insert(root: FormHash, name: string, value: string): void {
  if (name.length > FORM_LIMITS.maxNameLength) throw new FormParseError(`Parameter name too long: ${name.slice(0, 40)}…`);
  const match = NAME.exec(name);
  if (!match) throw new FormParseError(`Invalid parameter name: ${name}`);
  const segments = [match[1] as string, ...[...(match[2] ?? "").matchAll(/\[([^[\]]*)\]/g)].map((found) => found[1] as string)];
  if (segments.length - 1 > FORM_LIMITS.maxDepth) throw new FormParseError(`Parameter nested too deeply: ${name}`);

  let hash = root;
  for (let index = 0; index < segments.length - 1; index++) {
    const segment = segments[index] as string;
    const isLast = index === segments.length - 2;
    if (segment === "") throw new FormParseError(`Invalid parameter name: ${name} (only the last brackets may be empty)`);
    if (isLast && segments[index + 1] === "") {
      const existing = hash[segment];
      if (existing === undefined) hash[segment] = [value];
      else if (Array.isArray(existing)) existing.push(value);
      else throw conflict(name);
      return;
    }
    const existing = hash[segment];
    if (existing === undefined) hash = hash[segment] = emptyHash();
    else if (isHash(existing)) hash = existing;
    else throw conflict(name);
  }
  const leaf = segments[segments.length - 1] as string;
  if (hash[leaf] !== undefined) throw new FormParseError(`Parameter given more than once: ${name}`);
  hash[leaf] = value;
}

function conflict(name: string): FormParseError {
  return new FormParseError(`Parameter given both as a value and as a hash or array: ${name}`);
}

/** The bracket name of a path in the tree: ["metadata", "basket"] → "metadata[basket]". */
export function bracketName(path: readonly PropertyKey[]): string {
  const [first, ...rest] = path.map(String);
  return `${first ?? ""}${rest.map((segment) => `[${segment}]`).join("")}`;
}

/** The value at a path, if any. */
export function valueAt(tree: FormValue, path: readonly PropertyKey[]): FormValue | undefined {
  let value: FormValue | undefined = tree;
  for (const segment of path) {
    if (value === undefined || typeof value === "string") return undefined;
    value = Array.isArray(value) ? value[Number(segment)] : value[String(segment)];
  }
  return value;
}
