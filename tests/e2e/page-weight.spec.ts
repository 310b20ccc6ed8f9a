import { gzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { JS_BUDGET_BYTES } from "../../bench/scenarios/page-weight.ts";
import { expectHydrated } from "./support/hydrated";

/**
 * The home page's budget: 120 KB (120 × 1,024 = 122,880 bytes) of gzipped JavaScript, as bench/scenarios/page-weight.ts
 * states it, here counted as a browser fetches it.
 */
const HOME_PAGE_JS_BUDGET_BYTES = JS_BUDGET_BYTES;

test("the home page's JavaScript, as a browser fetches it, stays within 120 KB gzipped", async ({ page }) => {
  // Every script the browser asks for until the network is idle, each body gzipped at level 9 on its own, as it is
  // served: the unit the budget has been stated in from the start (brotli and zstd transfer sizes are smaller).
  const scripts = new Map<string, Promise<number>>();
  page.on("response", (response) => {
    if (response.request().resourceType() !== "script") return;
    scripts.set(
      response.url(),
      response.body().then((body) => gzipSync(body, { level: 9 }).length),
    );
  });
  await page.goto("/", { waitUntil: "networkidle" });
  await expectHydrated(page);
  const sizes = await Promise.all(
    [...scripts].map(async ([url, size]) => [new URL(url).pathname, await size] as const),
  );
  const total = sizes.reduce((sum, [, size]) => sum + size, 0);
  const listing = sizes.map(([path, size]) => `${path}: ${size}`).join("\n");
  expect(sizes.length, "scripts loaded by /").toBeGreaterThan(0);
  expect(total, `gzipped JavaScript of / (${sizes.length} scripts):\n${listing}`).toBeLessThanOrEqual(
    HOME_PAGE_JS_BUDGET_BYTES,
  );
});
