// Which new passwords the shop accepts: long enough, not too long for argon2, and not guessable by zxcvbn's measure
// (judged in a worker thread, so a request never waits on another's check).

import { Worker } from "node:worker_threads";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "#shared/account";
import { AppError } from "#shared/errors";

export const PASSWORD_TOO_SHORT = `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`;
export const PASSWORD_TOO_LONG = `Choose a password of at most ${PASSWORD_MAX_LENGTH} characters.`;
export const PASSWORD_TOO_COMMON =
  "This password is too common or too easy to guess. Choose another one: a few words that have nothing to do with each other make a strong password.";
export const PASSWORD_CHECKS_BUSY =
  "We are checking many new passwords right now. Nothing was changed; please try again in a moment.";

/**
 * zxcvbn's score (0 to 4): at least 3, "safely unguessable: moderate protection from offline slow-hash scenarios".
 * Below that are the passwords of breach lists (the dictionary shipped with @zxcvbn-ts/language-common: the most
 * common passwords of public breaches) and their easy variants: a word and a year, l33t spellings, keyboard rows.
 */
const MIN_SCORE = 3;

/**
 * zxcvbn's work grows steeply with length: a made-up 128-character password took 0.4–0.8 s of CPU, 64 characters
 * 0.2–0.3 s. A password is judged by its first 64 characters: if they are strong, so is the
 * whole (the zxcvbn-ts option `maxLength`, made for this after zxcvbn was used to stall servers).
 */
const CHECKED_LENGTH = 64;

/** Checks waiting for the estimator past which a new one is refused ("try again"): a flood of sign-ups stays bounded. */
const MAX_WAITING_CHECKS = 16;

/**
 * The estimator runs in a worker thread of its own, so that a long password's check never holds up the requests
 * of other shoppers. The worker's code is this string, started as a data: URL so that the build needs no file of
 * its own; it loads zxcvbn from the shop's node_modules, found from this module's address.
 */
const WORKER_SOURCE = `
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
const require = createRequire(workerData.base);
const { ZxcvbnFactory } = require("@zxcvbn-ts/core");
const common = require("@zxcvbn-ts/language-common");
const english = require("@zxcvbn-ts/language-en");
const estimator = new ZxcvbnFactory({
  maxLength: workerData.checkedLength,
  dictionary: { ...common.dictionary, ...english.dictionary },
  graphs: common.adjacencyGraphs,
  translations: english.translations,
});
parentPort.on("message", ({ id, password, userInputs }) => {
  try {
    parentPort.postMessage({ id, score: estimator.check(password, userInputs).score });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error) });
  }
});
`;

interface Check {
  resolve(score: number): void;
  reject(error: Error): void;
}

/**
 * The one worker, started on first use (loading the dictionaries takes about a quarter of a second, which a shop
 * that nobody registers with never needs to spend) and never keeping the process alive. A worker that fails fails
 * the checks it holds; the next check starts another.
 */
function createStrengthEstimator() {
  let worker: Worker | undefined;
  const waiting = new Map<number, Check>();
  let nextId = 0;

  function started(): Worker {
    if (worker) return worker;
    const current = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER_SOURCE)}`), {
      workerData: { base: import.meta.url, checkedLength: CHECKED_LENGTH },
    });
    current.unref();
    current.on("message", ({ id, score, error }: { id: number; score?: number; error?: string }) => {
      const check = waiting.get(id);
      waiting.delete(id);
      if (score === undefined) check?.reject(new Error(`the password strength check failed: ${error}`));
      else check?.resolve(score);
    });
    const fail = (error: Error) => {
      if (worker === current) worker = undefined;
      for (const check of waiting.values()) check.reject(error);
      waiting.clear();
    };
    current.on("error", fail);
    current.on("exit", (code) => fail(new Error(`the password strength worker stopped (exit code ${code})`)));
    worker = current;
    return current;
  }

  return {
    score(password: string, userInputs: string[]): Promise<number> {
      if (waiting.size >= MAX_WAITING_CHECKS)
        throw new AppError("SERVICE_UNAVAILABLE", PASSWORD_CHECKS_BUSY, { retryAfterSeconds: 5 });
      const id = nextId++;
      return new Promise<number>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        started().postMessage({ id, password, userInputs });
      });
    },
  };
}

const strengthEstimator = createStrengthEstimator();

/**
 * The rules for a new password (OWASP ASVS level 2): 12 to 128 characters, and not common, breached or easily
 * guessed, checked offline against the lists the shop ships. The e-mail address and the shop's name count as
 * guessable too.
 */
export async function assertAcceptablePassword(password: string, email: string): Promise<void> {
  if (password.length < PASSWORD_MIN_LENGTH) throw new AppError("INVALID_PASSWORD", PASSWORD_TOO_SHORT);
  if (password.length > PASSWORD_MAX_LENGTH) throw new AppError("INVALID_PASSWORD", PASSWORD_TOO_LONG);
  const score = await strengthEstimator.score(password, [email, email.split("@")[0] ?? "", "storefront"]);
  if (score < MIN_SCORE) throw new AppError("INVALID_PASSWORD", PASSWORD_TOO_COMMON);
}
