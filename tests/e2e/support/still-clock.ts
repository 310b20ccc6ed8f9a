import { expect, type Page } from "@playwright/test";
import { HYDRATION_TIMEOUT_MS, hydratedMark } from "./hydrated";

/** Any fixed moment: the stories that use it care about time passing on the page, not about the date. */
const START = new Date("2026-01-05T09:00:00Z").getTime();

/** A clock that stands still until the story moves it, for the pages this one opens next. */
export async function installStillClock(page: Page): Promise<void> {
  await page.clock.install({ time: START });
  // Installed, the clock runs until paused: pausing a minute on (not a millisecond, which a busy machine had already
  // passed: "Cannot fast-forward to the past") fires nothing, as no page has a timer yet.
  await page.clock.pauseAt(START + 60_000);
}

/**
 * Opens a page on a clock that stands still until the story moves it (`page.clock.runFor()`), and waits until its
 * scripts have hydrated it. Playwright's `clock.install()` alone lets the page's time flow as the wall clock's does,
 * so on a busy machine the banner (a slide every 3 s) moved on by itself while a story was still reading the slide
 * it had opened on.
 */
export async function gotoHydratedOnStillClock(page: Page, path: string): Promise<void> {
  await installStillClock(page);
  await page.goto(path);
  // The page starts its scripts on timers and animation frames on that clock, after its first paint
  // (app/entry.server.tsx): a frame at a time until it has hydrated. The banner's 3 s start at hydration.
  await expect
    .poll(
      async () => {
        await page.clock.runFor(16);
        return hydratedMark(page).count();
      },
      { message: "the page hydrates", timeout: HYDRATION_TIMEOUT_MS, intervals: [20] },
    )
    .toBe(1);
}
