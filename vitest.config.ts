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
    // React Router's Vite plugin regenerates route types (.react-router/types) whenever a dev server starts, by
    // removing the folder and writing it again; two test files starting page shops at once (or one beside
    // server/startup.test.ts's build) can remove it under the other's write. Those files are only for the editor and
    // tsc, never read by a test: that one failure is not the shop's. Anything else still fails the run.
    onUnhandledError: (error) => !isRouteTypesRace(error),
    hookTimeout: 60_000,
  },
});

function isRouteTypesRace(error: { code?: unknown; path?: unknown; message?: string }): boolean {
  return (
    (error.code === "ENOENT" || error.code === "ENOTEMPTY") &&
    typeof error.path === "string" &&
    /[\\/]\.react-router[\\/]types([\\/]|$)/.test(error.path)
  );
}
