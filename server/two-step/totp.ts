/**
 * Time-based one-time passwords as every authenticator app computes them: RFC 6238 over RFC 4226's HOTP, with
 * HMAC-SHA-1, 30-second steps and 6 digits (the parameters the apps assume when a QR code names no others). Secrets
 * travel as RFC 4648 base32, the alphabet the apps type and scan.
 */

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
const BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** 20 random bytes (160 bits, RFC 4226's recommended length for SHA-1), as 32 base32 characters. */
export function newTotpSecret(): string {
  return encodeBase32(randomBytes(20));
}

export function encodeBase32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let output = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      output += BASE32_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) output += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  return output;
}

export function decodeBase32(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const character of clean) {
    const index = BASE32_ALPHABET.indexOf(character);
    if (index < 0) throw new Error("Not a base32 secret");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** RFC 4226 HOTP: the HMAC of the counter, dynamically truncated, the last `digits` decimal digits. */
export function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac("sha1", key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The 30-second step a moment falls in (RFC 6238's T, with T0 = 0). */
export function timeStep(atMs: number): number {
  return Math.floor(atMs / 1000 / TOTP_STEP_SECONDS);
}

/** The code of a moment, as the authenticator app shows it then. */
export function totp(key: Uint8Array, atMs: number, digits = TOTP_DIGITS): string {
  return hotp(key, timeStep(atMs), digits);
}

/**
 * The step whose code this is, looking one step either side of now (a phone's clock a little off, a code typed as
 * it changed), or null. Compared in constant time: the answer says nothing about how close a guess came.
 */
export function matchingStep(key: Uint8Array, code: string, atMs: number): number | null {
  const now = timeStep(atMs);
  const given = Buffer.from(code.padEnd(TOTP_DIGITS, "x").slice(0, 16));
  let found: number | null = null;
  for (const step of [now - 1, now, now + 1]) {
    const expected = Buffer.from(hotp(key, step));
    if (expected.length === given.length && timingSafeEqual(expected, given) && found === null) found = step;
  }
  return found;
}

/** The otpauth:// address the QR code carries (Google Authenticator's Key URI format, which every app reads). */
export function otpauthUri({ secret, account, issuer }: { secret: string; account: string; issuer: string }): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({
    secret,
    issuer,
    algorithm: "SHA1",
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}
