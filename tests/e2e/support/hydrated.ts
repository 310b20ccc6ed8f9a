import { expect, type Page } from "@playwright/test";

/** The mark the root route sets on <html> once the page's scripts have hydrated it (app/root.tsx). */
export const hydratedMark = (page: Page) => page.locator("html[data-hydrated]");

/** How long a page may take to hydrate: well under a second here, but on CI's two busy cores it once took over 5 s. */
export const HYDRATION_TIMEOUT_MS = 15_000;

/**
 * Opens a page and waits until its scripts have hydrated it. Pages work as plain HTML before that (forms post), and
 * their scripts start only after the first paint; stories about the enhanced page (optimistic basket, network
 * failures caught by script) must not click before it.
 */
export async function gotoHydrated(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expectHydrated(page);
}

/** Waits until the page a story opened, reloaded or was sent to has hydrated, as long as `gotoHydrated` waits. */
export async function expectHydrated(page: Page, message?: string): Promise<void> {
  await expect(hydratedMark(page), message).toHaveCount(1, { timeout: HYDRATION_TIMEOUT_MS });
}
