import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { findChromium } from "./tests/e2e/support/find-chromium";

const port = Number(process.env.E2E_PORT ?? 4173);
// Each run gets an empty embedded database, so stories start from a known shop.
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(join(tmpdir(), "storefront-e2e-"));

if (!existsSync("build/server/index.js")) {
  throw new Error("Browser tests run on a production build: run `npm run build` first (npm run test:e2e does).");
}

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  timeout: 30_000,
  use: {
    baseURL: `http://localhost:${port}`,
    launchOptions: {
      executablePath: findChromium(),
      // The machines have no network: Chromium's own background calls would only fail.
      args: ["--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-quic"],
    },
    trace: "retain-on-failure",
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: {
    command: "node scripts/start.js",
    url: `http://localhost:${port}/healthz`,
    // Every story signs in and starts baskets from 127.0.0.1: lift the per-address limits (their rules are tested in server/).
    env: {
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      AUTH_ATTEMPTS_PER_IP: "10000",
      NEW_SESSIONS_PER_IP: "100000",
      PAYMENT_ATTEMPTS_PER_IP: "100000",
      // The operator the console stories sign in as (tests/e2e/console.spec.ts).
      OPERATOR_EMAIL: "operator@storefront.test",
      OPERATOR_PASSWORD: "violet tractor harbour pickle",
    },
    reuseExistingServer: false,
    timeout: 120_000,
  },
});
