// The CSV injection rule, both ways: an exported cell that a spreadsheet would run as a formula gets a leading
// apostrophe, and an import takes it off.

import { decimalAmount } from "#shared/money";

/**
 * A spreadsheet runs a cell that starts with =, +, - or @ as a formula ("CSV injection": OWASP's CSV Injection page).
 * Every exported cell that starts so is written with a leading apostrophe, which a spreadsheet shows as text; an
 * import drops such an apostrophe again, so a round trip keeps "+1 Cable" as it was. A negative number ("-3" on hand,
 * an oversold variant) is no formula and is written as it is.
 */
const FORMULA_START = /^[=+\-@]/;
const NEUTRALISED = /^'[=+\-@]/;
const NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?$/;

export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) && !NEGATIVE_NUMBER.test(cell) ? `'${cell}` : cell;
}

export function undoNeutralisedFormula(cell: string): string {
  return NEUTRALISED.test(cell) ? cell.slice(1) : cell;
}

/** Money as Shopify's files write it: dollars with two decimals, no symbol or separators ("1299.00"). */
export function csvMoney(cents: number | null): string {
  return cents === null ? "" : decimalAmount(cents);
}

/** TRUE and FALSE, as Shopify writes its yes-or-no columns. */
export function csvBoolean(value: boolean): string {
  return value ? "TRUE" : "FALSE";
}
