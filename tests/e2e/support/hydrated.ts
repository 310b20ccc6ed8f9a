import { expect, type Page } from "@playwright/test";

/**
 * Opens a page and waits until its scripts have hydrated it. Pages work as plain HTML before that (forms post), and
 * their scripts start only after the first paint; stories about the enhanced page (optimistic basket, network
 * failures caught by script) must not click before it.
 */
export async function gotoHydrated(page: Page, path: string): Promise<void> {
  await page.goto(path);
  // A production build hydrates in well under a second here, but on CI's two busy cores it once took over 5 s.
  await expect(page.locator("html[data-hydrated]")).toHaveCount(1, { timeout: 15_000 });
}
