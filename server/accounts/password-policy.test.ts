import { describe, expect, it } from "vitest";
import { AppError } from "#shared/errors";
import { assertAcceptablePassword, PASSWORD_CHECKS_BUSY, PASSWORD_TOO_COMMON } from "./password-policy";

const EMAIL = "someone@example.com";

/** A made-up password of `length` characters that zxcvbn takes long to judge (a fixed stride through printable ASCII). */
const slowToJudge = (length: number, stride = 104_729) =>
  Array.from({ length }, (_, index) => String.fromCharCode(33 + ((index * stride) % 90))).join("");

const refusal = (password: string) =>
  assertAcceptablePassword(password, EMAIL).then(
    () => null,
    (error: unknown) =>
      error instanceof AppError
        ? { code: error.code, message: error.message, retryAfterSeconds: error.retryAfterSeconds }
        : error,
  );

describe("the password rules", () => {
  it("judge a password of more than 64 characters by its first 64", async () => {
    expect(await refusal(slowToJudge(128))).toBeNull();
    // Weak for 64 characters, whatever follows.
    expect(await refusal(`${"a".repeat(64)}${slowToJudge(64)}`)).toEqual({
      code: "INVALID_PASSWORD",
      message: PASSWORD_TOO_COMMON,
      retryAfterSeconds: undefined,
    });
  });

  it("are checked away from the requests of other shoppers: a long password's check does not hold them up", async () => {
    await refusal("violet tractor harbour pickle");
    // Timers stand for other requests: with the checks on the event loop, one would wait for all of them.
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    try {
      await Promise.all([0, 1, 2].map((index) => refusal(slowToJudge(64, 104_729 + index * 2))));
    } finally {
      clearInterval(ticker);
    }
    // The wait since the last timer counts too: a loop held the whole time would have run none.
    longestGap = Math.max(longestGap, performance.now() - last);
    const checking = performance.now() - started;
    expect(checking).toBeGreaterThan(150);
    expect(longestGap).toBeLessThan(checking / 3);
  });

  it("refuse a new check past 16 waiting, with 'try again', and judge the others", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 17 }, (_, index) => refusal(`${slowToJudge(40, 7_919 + index * 2)}`)),
    );
    expect(
      outcomes
        .slice(0, 16)
        .filter((outcome) => outcome !== null && (outcome as { code: string }).code === "SERVICE_UNAVAILABLE"),
    ).toEqual([]);
    expect(outcomes[16]).toEqual({ code: "SERVICE_UNAVAILABLE", message: PASSWORD_CHECKS_BUSY, retryAfterSeconds: 5 });
    // Once they are judged, checks are taken again.
    expect(await refusal("violet tractor harbour pickle")).toBeNull();
  });
});
