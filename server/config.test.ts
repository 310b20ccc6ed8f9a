import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./config";

describe("parseConfig", () => {
  it("defaults to the embedded database in ./data on port 3000", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({ PORT: 3000, DATA_DIR: "./data", NODE_ENV: "production" });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it("takes PORT, DATA_DIR and DATABASE_URL from the environment", () => {
    const config = parseConfig({ PORT: "8080", DATA_DIR: "/var/shop", DATABASE_URL: "postgres://shop@db/shop" });
    expect(config).toMatchObject({ PORT: 8080, DATA_DIR: "/var/shop", DATABASE_URL: "postgres://shop@db/shop" });
  });

  it("treats an empty variable as unset", () => {
    expect(parseConfig({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it("stops with a message naming the bad variable", () => {
    expect(() => parseConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => parseConfig({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
  });
});

describe("Stripe keys", () => {
  const keys = { STRIPE_SECRET_KEY: "sk_test_abc123", STRIPE_PUBLISHABLE_KEY: "pk_test_abc123", STRIPE_WEBHOOK_SECRET: "whsec_abc123" };

  it("are all optional together: none means the built-in processor", () => {
    expect(parseConfig({}).STRIPE_SECRET_KEY).toBeUndefined();
    expect(parseConfig(keys)).toMatchObject(keys);
  });

  it("stop the server with the missing names when only some are set", () => {
    const partial = () => parseConfig({ STRIPE_SECRET_KEY: keys.STRIPE_SECRET_KEY });
    expect(partial).toThrow(ConfigError);
    expect(partial).toThrow(/STRIPE_PUBLISHABLE_KEY: is required when any Stripe key is set/);
    expect(partial).toThrow(/STRIPE_WEBHOOK_SECRET/);
  });

  it("must look like Stripe's keys (a publishable key in the secret's place is refused)", () => {
    expect(() => parseConfig({ ...keys, STRIPE_SECRET_KEY: "pk_test_abc123" })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => parseConfig({ ...keys, STRIPE_WEBHOOK_SECRET: "secret" })).toThrow(/STRIPE_WEBHOOK_SECRET/);
  });
});

describe("PROCESSOR_URL", () => {
  const keys = { STRIPE_SECRET_KEY: "sk_test_abc123", STRIPE_PUBLISHABLE_KEY: "pk_test_abc123", STRIPE_WEBHOOK_SECRET: "whsec_abc123" };

  it("points the shop at a test processor run as its own process, with the keys it was started with", () => {
    expect(parseConfig({ ...keys, PROCESSOR_URL: "http://127.0.0.1:4242" }).PROCESSOR_URL).toBe("http://127.0.0.1:4242");
    expect(() => parseConfig({ PROCESSOR_URL: "http://127.0.0.1:4242" })).toThrow(/PROCESSOR_URL: needs STRIPE_SECRET_KEY/);
    expect(() => parseConfig({ ...keys, PROCESSOR_URL: "ftp://127.0.0.1:4242" })).toThrow(/PROCESSOR_URL/);
  });
});
