import { describe, expect, it } from "vitest";
import { decodeBase32, encodeBase32, hotp, matchingStep, otpauthUri, timeStep, totp } from "./totp";

/** RFC 6238 appendix B's seed for SHA-1: the ASCII of "12345678901234567890". */
const RFC_SEED = Buffer.from("12345678901234567890", "ascii");

describe("TOTP", () => {
  // RFC 6238, appendix B, the SHA-1 column: 8-digit codes, of which an authenticator shows the last 6.
  it.each([
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    [20000000000, "65353130"],
  ])("at %i s gives RFC 6238's %s (its last 6 digits in 6-digit mode)", (seconds, rfcCode) => {
    expect(totp(RFC_SEED, seconds * 1000, 8)).toBe(rfcCode);
    expect(totp(RFC_SEED, seconds * 1000)).toBe(rfcCode.slice(-6));
  });

  // RFC 4226, appendix D: HOTP values for counters 0 to 9 with the same seed.
  it("gives RFC 4226's HOTP values", () => {
    const expected = [
      "755224",
      "287082",
      "359152",
      "969429",
      "338314",
      "254676",
      "287922",
      "162583",
      "399871",
      "520489",
    ];
    expect(expected.map((_, counter) => hotp(RFC_SEED, counter))).toEqual(expected);
  });

  it("reads base32 secrets as authenticator apps write them", () => {
    expect(encodeBase32(RFC_SEED)).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    expect(decodeBase32("gezd gnbv gy3t qojq gezd gnbv gy3t qojq")).toEqual(RFC_SEED);
    expect(() => decodeBase32("not base32 1")).toThrow();
  });

  it("accepts the code of the step before or after now, and nothing further", () => {
    const now = 1_800_000_000_000;
    const step = timeStep(now);
    expect(matchingStep(RFC_SEED, totp(RFC_SEED, now), now)).toBe(step);
    expect(matchingStep(RFC_SEED, totp(RFC_SEED, now - 30_000), now)).toBe(step - 1);
    expect(matchingStep(RFC_SEED, totp(RFC_SEED, now + 30_000), now)).toBe(step + 1);
    expect(matchingStep(RFC_SEED, totp(RFC_SEED, now - 60_000), now)).toBeNull();
    expect(matchingStep(RFC_SEED, totp(RFC_SEED, now + 60_000), now)).toBeNull();
    expect(matchingStep(RFC_SEED, "12345", now)).toBeNull();
  });

  it("names the shop and the account in the QR code's address", () => {
    const uri = new URL(otpauthUri({ secret: "ABC", account: "ops@shop.example", issuer: "Storefront" }));
    expect(`${uri.protocol}//${uri.host}`).toBe("otpauth://totp");
    expect(decodeURIComponent(uri.pathname)).toBe("/Storefront:ops@shop.example");
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: "ABC",
      issuer: "Storefront",
      algorithm: "SHA1",
      digits: "6",
      period: "30",
    });
  });
});
