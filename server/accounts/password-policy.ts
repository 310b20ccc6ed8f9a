import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as english from "@zxcvbn-ts/language-en";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../shared/account";
import { AppError } from "../../shared/errors";

export const PASSWORD_TOO_SHORT = `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`;
export const PASSWORD_TOO_LONG = `Choose a password of at most ${PASSWORD_MAX_LENGTH} characters.`;
export const PASSWORD_TOO_COMMON =
  "This password is too common or too easy to guess. Choose another one: a few words that have nothing to do with each other make a strong password.";

/**
 * zxcvbn's score (0 to 4): at least 3, "safely unguessable: moderate protection from offline slow-hash scenarios".
 * Below that are the passwords of breach lists (the dictionary shipped with @zxcvbn-ts/language-common: the most
 * common passwords of public breaches) and their easy variants: a word and a year, l33t spellings, keyboard rows.
 */
const MIN_SCORE = 3;

// Built on first use: loading the dictionaries takes about a quarter of a second, which a shop that nobody
// registers with never needs to spend.
let estimator: ZxcvbnFactory | undefined;
function strengthEstimator(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  });
  return estimator;
}

/**
 * The rules for a new password (OWASP ASVS level 2): 12 to 128 characters, and not common, breached or easily
 * guessed, checked offline against the lists the shop ships. The e-mail address and the shop's name count as
 * guessable too.
 */
export function assertAcceptablePassword(password: string, email: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw new AppError("INVALID_PASSWORD", PASSWORD_TOO_SHORT);
  if (password.length > PASSWORD_MAX_LENGTH) throw new AppError("INVALID_PASSWORD", PASSWORD_TOO_LONG);
  const { score } = strengthEstimator().check(password, [email, email.split("@")[0] ?? "", "storefront"]);
  if (score < MIN_SCORE) throw new AppError("INVALID_PASSWORD", PASSWORD_TOO_COMMON);
}
