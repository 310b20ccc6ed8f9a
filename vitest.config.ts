import { defineConfig } from "vitest/config";

// Unit and server integration tests. Browser stories live in tests/e2e and run under Playwright.
export default defineConfig({
  test: {
    include: ["{app,server,shared}/**/*.test.{ts,tsx}", "packages/*/{src,card-field,browser}/**/*.test.{ts,tsx}"],
    // The fault stories (vitest.faults.config.ts) run under `npm run test:faults`.
    exclude: ["**/node_modules/**", "**/*.faults.test.ts"],
    globalSetup: ["./server/testing/global-setup.ts", "./packages/stripe-test-processor/testing/global-setup.ts"],
    environment: "node",
    // Each test file opens its own databases; PGlite holds a few hundred MB, so keep parallelism modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
