import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, configVariables, loadEnvFile, operatorCredentials, parseConfig } from "./config";

describe("parseConfig", () => {
  it("defaults to the embedded database in ./data on port 3000", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({ PORT: 3000, DATA_DIR: "./data", NODE_ENV: "production" });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it("takes PORT, DATA_DIR and DATABASE_URL from the environment", () => {
    const config = parseConfig({
      PORT: "8080",
      DATA_DIR: "/var/shop",
      DATABASE_URL: "postgres://shop@db/shop",
      ALLOW_TEST_PAYMENTS: "true",
    });
    expect(config).toMatchObject({ PORT: 8080, DATA_DIR: "/var/shop", DATABASE_URL: "postgres://shop@db/shop" });
  });

  it("caps connections per process at MAX_CONNECTIONS, 1,000 unless set, and refuses a cap that is not a positive integer", () => {
    expect(parseConfig({}).MAX_CONNECTIONS).toBe(1_000);
    expect(parseConfig({ MAX_CONNECTIONS: "250" }).MAX_CONNECTIONS).toBe(250);
    for (const bad of ["0", "-5", "1.5", "many"])
      expect(() => parseConfig({ MAX_CONNECTIONS: bad })).toThrow(/MAX_CONNECTIONS/);
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

describe("SHOP_TIME_ZONE", () => {
  it("is UTC unless set, and takes an IANA time zone", () => {
    expect(parseConfig({}).SHOP_TIME_ZONE).toBe("UTC");
    expect(parseConfig({ SHOP_TIME_ZONE: "America/New_York" }).SHOP_TIME_ZONE).toBe("America/New_York");
    expect(parseConfig({ SHOP_TIME_ZONE: "Asia/Kolkata" }).SHOP_TIME_ZONE).toBe("Asia/Kolkata");
  });

  it("stops the start with one line naming it and the value for a zone that does not exist", () => {
    for (const bad of ["Mars/Olympus", "Eastern", "Europe/Pariss"]) {
      expect(() => parseConfig({ SHOP_TIME_ZONE: bad })).toThrow(
        `Invalid configuration: SHOP_TIME_ZONE: must be an IANA time zone such as Europe/Paris or America/New_York ("${bad}" is not one)`,
      );
    }
  });
});

describe("Stripe keys", () => {
  const keys = {
    STRIPE_SECRET_KEY: "sk_test_abc123",
    STRIPE_PUBLISHABLE_KEY: "pk_test_abc123",
    STRIPE_WEBHOOK_SECRET: "whsec_abc123",
  };

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

  it("stop the server when the secret and publishable keys are of different modes (test and live)", () => {
    expect(() => parseConfig({ ...keys, STRIPE_SECRET_KEY: "sk_live_abc123" })).toThrow(
      /STRIPE_PUBLISHABLE_KEY: is a test key but STRIPE_SECRET_KEY is a live key/,
    );
    expect(() => parseConfig({ ...keys, STRIPE_PUBLISHABLE_KEY: "pk_live_abc123" })).toThrow(
      /is a live key but STRIPE_SECRET_KEY is a test key/,
    );
    expect(() => parseConfig({ ...keys, STRIPE_SECRET_KEY: "rk_live_abc123" })).toThrow(ConfigError);
    expect(
      parseConfig({ ...keys, STRIPE_SECRET_KEY: "sk_live_abc123", STRIPE_PUBLISHABLE_KEY: "pk_live_abc123" })
        .STRIPE_SECRET_KEY,
    ).toBe("sk_live_abc123");
  });
});

describe("guest sessions per address", () => {
  it("default to 300 an hour and stop the server on a value that is not a positive whole number", () => {
    expect(parseConfig({}).NEW_SESSIONS_PER_IP).toBe(300);
    expect(parseConfig({ NEW_SESSIONS_PER_IP: "5000" }).NEW_SESSIONS_PER_IP).toBe(5000);
    for (const bad of ["0", "-1", "1.5", "lots"])
      expect(() => parseConfig({ NEW_SESSIONS_PER_IP: bad })).toThrow(/NEW_SESSIONS_PER_IP/);
  });
});

describe("PUBLIC_URL", () => {
  it("is optional, and when set an http or https URL", () => {
    expect(parseConfig({}).PUBLIC_URL).toBeUndefined();
    expect(parseConfig({ PUBLIC_URL: "https://shop.example" }).PUBLIC_URL?.protocol).toBe("https:");
    for (const bad of ["shop.example", "ftp://shop.example", "javascript:alert(1)"])
      expect(() => parseConfig({ PUBLIC_URL: bad })).toThrow(/PUBLIC_URL/);
  });
});

describe("TRUST_PROXY", () => {
  it("is a number of proxy hops; true and false mean 1 and 0", () => {
    expect(parseConfig({}).TRUST_PROXY).toBe(0);
    expect(parseConfig({ TRUST_PROXY: "true" }).TRUST_PROXY).toBe(1);
    expect(parseConfig({ TRUST_PROXY: "false" }).TRUST_PROXY).toBe(0);
    expect(parseConfig({ TRUST_PROXY: "2" }).TRUST_PROXY).toBe(2);
  });

  it("refuses anything else, naming the variable", () => {
    expect(() => parseConfig({ TRUST_PROXY: "lots" })).toThrow(
      /TRUST_PROXY: must be true, false or the number of proxy hops/,
    );
    expect(() => parseConfig({ TRUST_PROXY: "-1" })).toThrow(/TRUST_PROXY/);
  });
});

describe("test payments", () => {
  it("are the embedded default's: no Stripe keys and no DATABASE_URL start the shop in test mode", () => {
    expect(parseConfig({}).ALLOW_TEST_PAYMENTS).toBe(false);
  });

  it("take only true, false, 1 or 0: anything else stops the start with one line naming the variable", () => {
    const postgres = { DATABASE_URL: "postgres://shop@db/shop" };
    expect(parseConfig({ ...postgres, ALLOW_TEST_PAYMENTS: "1" }).ALLOW_TEST_PAYMENTS).toBe(true);
    expect(parseConfig({ ALLOW_TEST_PAYMENTS: "0" }).ALLOW_TEST_PAYMENTS).toBe(false);
    expect(parseConfig({ ALLOW_TEST_PAYMENTS: "false" }).ALLOW_TEST_PAYMENTS).toBe(false);
    for (const value of ["yes", "on", "y", "enabled", "TRUE ", "no"]) {
      const start = () => parseConfig({ ...postgres, ALLOW_TEST_PAYMENTS: value });
      expect(start, value).toThrow(ConfigError);
      try {
        start();
      } catch (error) {
        expect((error as Error).message, value).toMatch(/ALLOW_TEST_PAYMENTS.*true.*false/);
        expect((error as Error).message.trim().split("\n"), value).toHaveLength(1);
      }
    }
  });

  it("on PostgreSQL must be asked for: DATABASE_URL without Stripe keys stops, naming both variables", () => {
    const withoutKeys = () => parseConfig({ DATABASE_URL: "postgres://shop@db/shop" });
    expect(withoutKeys).toThrow(ConfigError);
    expect(withoutKeys).toThrow(/DATABASE_URL is set but no Stripe keys are: .*ALLOW_TEST_PAYMENTS=true/);
    expect(
      parseConfig({ DATABASE_URL: "postgres://shop@db/shop", ALLOW_TEST_PAYMENTS: "true" }).ALLOW_TEST_PAYMENTS,
    ).toBe(true);
    const keys = {
      STRIPE_SECRET_KEY: "sk_live_abc123",
      STRIPE_PUBLISHABLE_KEY: "pk_live_abc123",
      STRIPE_WEBHOOK_SECRET: "whsec_abc123",
    };
    expect(parseConfig({ DATABASE_URL: "postgres://shop@db/shop", ...keys }).DATABASE_URL).toBe(
      "postgres://shop@db/shop",
    );
  });
});

describe("the start-up operator", () => {
  it("takes OPERATOR_EMAIL with OPERATOR_PASSWORD or OPERATOR_PASSWORD_FILE, never both, never one without the e-mail", () => {
    const config = parseConfig({
      OPERATOR_EMAIL: "Owner@Shop.Example",
      OPERATOR_PASSWORD: "violet tractor harbour pickle",
    });
    expect(operatorCredentials(config, () => "unused")).toEqual({
      email: "owner@shop.example",
      password: "violet tractor harbour pickle",
    });
    expect(operatorCredentials(parseConfig({}), () => "unused")).toBeUndefined();
    expect(() => parseConfig({ OPERATOR_EMAIL: "owner@shop.example" })).toThrow(
      /OPERATOR_PASSWORD: set OPERATOR_PASSWORD or OPERATOR_PASSWORD_FILE/,
    );
    expect(() =>
      parseConfig({
        OPERATOR_EMAIL: "owner@shop.example",
        OPERATOR_PASSWORD: "a",
        OPERATOR_PASSWORD_FILE: "/run/secret",
      }),
    ).toThrow(/one of them/);
    expect(() => parseConfig({ OPERATOR_PASSWORD: "violet tractor harbour pickle" })).toThrow(
      /OPERATOR_EMAIL: is required/,
    );
    expect(() => parseConfig({ OPERATOR_EMAIL: "not an address", OPERATOR_PASSWORD: "x" })).toThrow(/OPERATOR_EMAIL/);
  });

  it("takes OPERATOR_RESET_TWO_STEP as true or false, only with OPERATOR_EMAIL", () => {
    const operator = { OPERATOR_EMAIL: "owner@shop.example", OPERATOR_PASSWORD: "violet tractor harbour pickle" };
    expect(parseConfig(operator).OPERATOR_RESET_TWO_STEP).toBe(false);
    expect(parseConfig({ ...operator, OPERATOR_RESET_TWO_STEP: "true" }).OPERATOR_RESET_TWO_STEP).toBe(true);
    expect(() => parseConfig({ ...operator, OPERATOR_RESET_TWO_STEP: "yes" })).toThrow(
      /OPERATOR_RESET_TWO_STEP: must be true or false/,
    );
    expect(() => parseConfig({ OPERATOR_RESET_TWO_STEP: "true" })).toThrow(
      /OPERATOR_RESET_TWO_STEP: needs OPERATOR_EMAIL/,
    );
  });

  it("reads the password from its file without the trailing newline, and names the variable, not the content, when it cannot", () => {
    const directory = mkdtempSync(join(tmpdir(), "storefront-operator-"));
    const path = join(directory, "password");
    writeFileSync(path, "violet tractor harbour pickle\n");
    try {
      const config = parseConfig({ OPERATOR_EMAIL: "owner@shop.example", OPERATOR_PASSWORD_FILE: path });
      expect(operatorCredentials(config, (file) => readFileSync(file, "utf8"))?.password).toBe(
        "violet tractor harbour pickle",
      );
      const missing = parseConfig({
        OPERATOR_EMAIL: "owner@shop.example",
        OPERATOR_PASSWORD_FILE: join(directory, "missing"),
      });
      expect(() => operatorCredentials(missing, (file) => readFileSync(file, "utf8"))).toThrow(
        /^Invalid configuration: OPERATOR_PASSWORD_FILE: cannot be read \(ENOENT\)$/,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("every variable", () => {
  it("is listed in .env.example and in docs/configuration.md's table", () => {
    const example = readFileSync(".env.example", "utf8");
    const table = readFileSync("docs/configuration.md", "utf8");
    for (const name of configVariables) {
      expect(example, name).toMatch(new RegExp(`^#? ?${name}=`, "m"));
      expect(table, name).toContain(`\`${name}\``);
    }
  });
});

describe(".env", () => {
  it("is read when present, without overriding what the environment already sets", () => {
    const directory = mkdtempSync(join(tmpdir(), "storefront-env-"));
    const path = join(directory, ".env");
    writeFileSync(path, "STOREFRONT_TEST_FROM_FILE=file\nSTOREFRONT_TEST_SET_TWICE=file\n");
    process.env.STOREFRONT_TEST_SET_TWICE = "environment";
    try {
      expect(loadEnvFile(join(directory, "missing.env"))).toBe(false);
      expect(loadEnvFile(path)).toBe(true);
      expect(process.env.STOREFRONT_TEST_FROM_FILE).toBe("file");
      expect(process.env.STOREFRONT_TEST_SET_TWICE).toBe("environment");
    } finally {
      delete process.env.STOREFRONT_TEST_FROM_FILE;
      delete process.env.STOREFRONT_TEST_SET_TWICE;
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("PROCESSOR_URL", () => {
  const keys = {
    STRIPE_SECRET_KEY: "sk_test_abc123",
    STRIPE_PUBLISHABLE_KEY: "pk_test_abc123",
    STRIPE_WEBHOOK_SECRET: "whsec_abc123",
  };

  it("points the shop at a test processor run as its own process, with the keys it was started with", () => {
    expect(parseConfig({ ...keys, PROCESSOR_URL: "http://127.0.0.1:4242" }).PROCESSOR_URL).toBe(
      "http://127.0.0.1:4242",
    );
    expect(() => parseConfig({ PROCESSOR_URL: "http://127.0.0.1:4242" })).toThrow(
      /PROCESSOR_URL: needs STRIPE_SECRET_KEY/,
    );
    expect(() => parseConfig({ ...keys, PROCESSOR_URL: "ftp://127.0.0.1:4242" })).toThrow(/PROCESSOR_URL/);
  });
});

describe("TEST_ONLY_STRIPE_API_URL", () => {
  const keys = {
    STRIPE_SECRET_KEY: "sk_test_abc123",
    STRIPE_PUBLISHABLE_KEY: "pk_test_abc123",
    STRIPE_WEBHOOK_SECRET: "whsec_abc123",
  };

  it("points Stripe mode's server calls at a test processor on this machine, with test keys", () => {
    expect(parseConfig({ ...keys, TEST_ONLY_STRIPE_API_URL: "http://127.0.0.1:4242" }).TEST_ONLY_STRIPE_API_URL).toBe(
      "http://127.0.0.1:4242",
    );
    expect(parseConfig({ ...keys, TEST_ONLY_STRIPE_API_URL: "http://localhost:4242" }).TEST_ONLY_STRIPE_API_URL).toBe(
      "http://localhost:4242",
    );
  });

  it("is refused with live keys, without keys, with PROCESSOR_URL, and for another machine or scheme", () => {
    const live = {
      STRIPE_SECRET_KEY: "sk_live_abc123",
      STRIPE_PUBLISHABLE_KEY: "pk_live_abc123",
      STRIPE_WEBHOOK_SECRET: "whsec_abc123",
    };
    expect(() => parseConfig({ ...live, TEST_ONLY_STRIPE_API_URL: "http://127.0.0.1:4242" })).toThrow(
      /TEST_ONLY_STRIPE_API_URL: is for tests only/,
    );
    expect(() =>
      parseConfig({
        ...keys,
        STRIPE_SECRET_KEY: "rk_live_abc123",
        STRIPE_PUBLISHABLE_KEY: "pk_live_abc123",
        TEST_ONLY_STRIPE_API_URL: "http://127.0.0.1:4242",
      }),
    ).toThrow(/TEST_ONLY_STRIPE_API_URL: is for tests only/);
    expect(() => parseConfig({ TEST_ONLY_STRIPE_API_URL: "http://127.0.0.1:4242" })).toThrow(
      /TEST_ONLY_STRIPE_API_URL: is for tests only/,
    );
    expect(() =>
      parseConfig({
        ...keys,
        PROCESSOR_URL: "http://127.0.0.1:4242",
        TEST_ONLY_STRIPE_API_URL: "http://127.0.0.1:4242",
      }),
    ).toThrow(/cannot be set with PROCESSOR_URL/);
    expect(() => parseConfig({ ...keys, TEST_ONLY_STRIPE_API_URL: "http://api.stripe.example" })).toThrow(
      /must name this machine/,
    );
    expect(() => parseConfig({ ...keys, TEST_ONLY_STRIPE_API_URL: "https://127.0.0.1:4242" })).toThrow(
      /TEST_ONLY_STRIPE_API_URL: must be an http:\/\/ URL/,
    );
  });
});

describe("TEST_ONLY_ALLOW_LOOPBACK_PICTURES", () => {
  it("lets a CSV import fetch pictures from this machine in tests, and is refused with live keys", () => {
    expect(parseConfig({}).TEST_ONLY_ALLOW_LOOPBACK_PICTURES).toBe(false);
    expect(parseConfig({ TEST_ONLY_ALLOW_LOOPBACK_PICTURES: "true" }).TEST_ONLY_ALLOW_LOOPBACK_PICTURES).toBe(true);
    const live = {
      STRIPE_SECRET_KEY: "sk_live_abc123",
      STRIPE_PUBLISHABLE_KEY: "pk_live_abc123",
      STRIPE_WEBHOOK_SECRET: "whsec_abc123",
    };
    expect(() => parseConfig({ ...live, TEST_ONLY_ALLOW_LOOPBACK_PICTURES: "true" })).toThrow(
      /TEST_ONLY_ALLOW_LOOPBACK_PICTURES: is for tests only/,
    );
    expect(() => parseConfig({ TEST_ONLY_ALLOW_LOOPBACK_PICTURES: "yes" })).toThrow(
      /TEST_ONLY_ALLOW_LOOPBACK_PICTURES: must be true or false/,
    );
  });
});

describe("basket reminders", () => {
  it("are due RECOVERY_HOURS after a change (4 by default); seconds instead only in tests, never with live keys", () => {
    expect(parseConfig({}).RECOVERY_HOURS).toBe(4);
    expect(parseConfig({ RECOVERY_HOURS: "12" }).RECOVERY_HOURS).toBe(12);
    expect(() => parseConfig({ RECOVERY_HOURS: "0" })).toThrow(/RECOVERY_HOURS/);
    expect(() => parseConfig({ RECOVERY_HOURS: "169" })).toThrow(/RECOVERY_HOURS/);
    expect(parseConfig({ TEST_ONLY_RECOVERY_SECONDS: "2" }).TEST_ONLY_RECOVERY_SECONDS).toBe(2);
    const live = {
      STRIPE_SECRET_KEY: "sk_live_abc123",
      STRIPE_PUBLISHABLE_KEY: "pk_live_abc123",
      STRIPE_WEBHOOK_SECRET: "whsec_abc123",
    };
    expect(() => parseConfig({ ...live, TEST_ONLY_RECOVERY_SECONDS: "2" })).toThrow(
      /TEST_ONLY_RECOVERY_SECONDS: is for tests only/,
    );
  });
});

describe("outgoing e-mail", () => {
  it("is off without SMTP_URL, and takes smtp:// or smtps:// with MAIL_FROM", () => {
    expect(parseConfig({}).SMTP_URL).toBeUndefined();
    const config = parseConfig({
      SMTP_URL: "smtps://user:secret@smtp.example:465",
      MAIL_FROM: "Storefront <orders@shop.example>",
    });
    expect(config).toMatchObject({
      SMTP_URL: "smtps://user:secret@smtp.example:465",
      MAIL_FROM: "Storefront <orders@shop.example>",
    });
  });

  it("refuses to start with SMTP_URL but no MAIL_FROM, naming it, and refuses an SMTP_URL of another scheme", () => {
    expect(() => parseConfig({ SMTP_URL: "smtp://localhost:1025" })).toThrow(/MAIL_FROM: is required with SMTP_URL/);
    expect(() => parseConfig({ SMTP_URL: "http://localhost:1025", MAIL_FROM: "a@b.example" })).toThrow(/SMTP_URL/);
  });

  it("needs PUBLIC_URL behind a proxy, where links in e-mails could not reach the shop otherwise", () => {
    expect(() =>
      parseConfig({ SMTP_URL: "smtp://localhost:1025", MAIL_FROM: "a@b.example", TRUST_PROXY: "1" }),
    ).toThrow(/PUBLIC_URL/);
    expect(
      parseConfig({
        SMTP_URL: "smtp://localhost:1025",
        MAIL_FROM: "a@b.example",
        TRUST_PROXY: "1",
        PUBLIC_URL: "https://shop.example",
      }).PUBLIC_URL?.origin,
    ).toBe("https://shop.example");
  });
});
