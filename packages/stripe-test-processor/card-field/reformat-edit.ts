export type Deletion = "backward" | "forward" | null;

export interface EditedValue {
  value: string;
  caret: number;
}

interface Edit {
  /** The field's value before the edit, as last formatted. */
  previous: string;
  /** The value the browser holds after the edit. */
  raw: string;
  /** The caret in `raw`. */
  caret: number;
  /** Whether the edit removed characters, and on which side of the caret. */
  deletion: Deletion;
  format: (raw: string, isDeleting: boolean) => string;
}

/**
 * Formats an edited value and says where the caret goes, so formatting never throws the caret to the end:
 * it stays after the same digit it followed (or at the end if it was at the end). Deleting only a separator the
 * formatter would put straight back (backspace just after the space in "4242 |4242") deletes the digit beyond it,
 * as the shopper meant, instead of doing nothing.
 */
export function reformatEdit({ previous, raw, caret, deletion, format }: Edit): EditedValue {
  let source = raw;
  let sourceCaret = caret;
  let value = format(source, deletion !== null);
  if (deletion !== null && value === previous) {
    const index = deletion === "backward" ? lastDigitBefore(source, sourceCaret) : firstDigitFrom(source, sourceCaret);
    if (index !== -1) {
      source = source.slice(0, index) + source.slice(index + 1);
      if (deletion === "backward") sourceCaret = index;
      value = format(source, true);
    }
  }
  if (sourceCaret >= source.length) return { value, caret: value.length };
  return { value, caret: indexAfterDigits(value, countDigits(source.slice(0, sourceCaret))) };
}

const isDigit = (character: string | undefined) => character !== undefined && character >= "0" && character <= "9";

function countDigits(text: string): number {
  let count = 0;
  for (const character of text) if (isDigit(character)) count++;
  return count;
}

/** The index just after the `count`-th digit of `text` (0 when count is 0). */
function indexAfterDigits(text: string, count: number): number {
  if (count === 0) return 0;
  let seen = 0;
  for (let index = 0; index < text.length; index++) {
    if (isDigit(text[index]) && ++seen === count) return index + 1;
  }
  return text.length;
}

function lastDigitBefore(text: string, caret: number): number {
  for (let index = caret - 1; index >= 0; index--) if (isDigit(text[index])) return index;
  return -1;
}

function firstDigitFrom(text: string, caret: number): number {
  for (let index = caret; index < text.length; index++) if (isDigit(text[index])) return index;
  return -1;
}
