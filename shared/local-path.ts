// The way back after a form post: only a path on this site, never one that could lead off it.

/**
 * A path on this site to come back to after a form post without JavaScript ("/checkout?x=1"). Anything that could
 * lead off-site ("//evil.example", "https://…", backslashes) is refused, and so are control characters: browsers
 * drop tabs and line breaks while parsing a URL, so "/\t/evil.example" would become "//evil.example". Only plain
 * printable ASCII is a way back: a Location header carries nothing else (a browser percent-encodes the rest), and
 * compatibility forms such as "／／evil.example" (full-width solidi) become "//evil.example" once normalised.
 *
 * Plain functions, no zod: the header links to sign-in on every page, so this module is in the home page's
 * JavaScript. The schema that forms validate with is `returnToSchema` in shared/return-to-schema.ts.
 */
export function isLocalPath(path: string): boolean {
  return (
    path.length <= MAX_LOCAL_PATH_LENGTH &&
    path.startsWith("/") &&
    !path.startsWith("//") &&
    !path.includes("\\") &&
    isPlainAscii(path)
  );
}

/** The longest way back a form carries. */
export const MAX_LOCAL_PATH_LENGTH = 2048;

/** Printable ASCII only (space to tilde): no controls, no DEL, nothing a header cannot carry. */
function isPlainAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

/** C0 controls and DEL: never part of a path the shop links to. */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The query parameter of /login that names where to go once signed in. */
export const RETURN_TO_PARAM = "returnTo";

/**
 * The sign-in page, coming back to `path` once signed in or registered, as a shop does when sign-in interrupts
 * something ("Your Account", the orders). Home is where sign-in goes anyway, so it is not named.
 */
export function signInPath(path: string): string {
  return path === "/" || !isLocalPath(path) ? "/login" : `/login?${new URLSearchParams({ [RETURN_TO_PARAM]: path })}`;
}
