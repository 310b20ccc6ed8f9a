import qs from "qs";

/**
 * Stripe's request encoding: application/x-www-form-urlencoded pairs whose names use bracket notation
 * (`metadata[basket]=…`, `payment_method_data[card][number]=…`, `payment_method_types[]=card`), read into a tree by
 * `qs`. qs is lenient where Stripe is not (it reads `a[b=1` as the key "[b", keeps the last of two values, drops
 * `__proto__`), so every name is checked first: how many pairs, how long a name, its grammar, how deep the nesting,
 * and that no parameter is given twice or both as a value and as a hash. Objects have no prototype.
 *
 * `name[]=x` appends to an array, and so does `name[0]=x` (the SDK sends arrays that way); a hash whose keys are all
 * indices therefore reads as an array, and the schemas accept a hash of indices wherever they expect an array.
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
  checkNames([...new URLSearchParams(encoded).keys()]);
  return qs.parse(encoded, {
    depth: FORM_LIMITS.maxDepth,
    strictDepth: true,
    parameterLimit: FORM_LIMITS.maxPairs,
    throwOnLimitExceeded: true,
    arrayLimit: FORM_LIMITS.maxPairs,
    plainObjects: true,
  }) as FormHash;
}

/** Refuses what Stripe refuses and qs would let through, before qs reads the body. */
function checkNames(names: string[]): void {
  if (names.length > FORM_LIMITS.maxPairs)
    throw new FormParseError(`Too many parameters: at most ${FORM_LIMITS.maxPairs} are accepted.`);
  /** Paths given a value, appended to as arrays, and holding a hash, as "\0"-joined segments. */
  const values = new Set<string>();
  const arrays = new Set<string>();
  const hashes = new Set<string>();
  for (const name of names) {
    if (name.length > FORM_LIMITS.maxNameLength)
      throw new FormParseError(`Parameter name too long: ${name.slice(0, 40)}…`);
    const match = NAME.exec(name);
    if (!match) throw new FormParseError(`Invalid parameter name: ${name}`);
    const segments = [
      match[1] as string,
      ...[...(match[2] ?? "").matchAll(/\[([^[\]]*)\]/g)].map((found) => found[1] as string),
    ];
    if (segments.length - 1 > FORM_LIMITS.maxDepth) throw new FormParseError(`Parameter nested too deeply: ${name}`);
    const appends = segments.at(-1) === "" && segments.length > 1;
    const path = appends ? segments.slice(0, -1) : segments;
    if (path.includes(""))
      throw new FormParseError(`Invalid parameter name: ${name} (only the last brackets may be empty)`);
    // qs drops these silently; a key that names an object's prototype is no key a caller means.
    if (path.includes("__proto__")) throw new FormParseError(`Invalid parameter name: ${name}`);
    for (let length = 1; length < path.length; length++) {
      const prefix = path.slice(0, length).join("\0");
      if (values.has(prefix) || arrays.has(prefix)) throw conflict(name);
      hashes.add(prefix);
    }
    const key = path.join("\0");
    if (appends) {
      if (values.has(key) || hashes.has(key)) throw conflict(name);
      arrays.add(key);
    } else {
      if (values.has(key) || arrays.has(key) || hashes.has(key))
        throw new FormParseError(`Parameter given more than once: ${name}`);
      values.add(key);
    }
  }
}

export function isHash(value: FormValue | undefined): value is FormHash {
  return typeof value === "object" && !Array.isArray(value);
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
