import { existsSync } from "node:fs";
import { chromium } from "@playwright/test";

/**
 * The browser the stories drive: CHROME_PATH, else Debian's /usr/bin/chromium, else one Playwright installed.
 * With none, stop with the command that installs one (nothing is downloaded behind anyone's back).
 */
export function findChromium(): string {
  const candidates = [process.env.CHROME_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", safePlaywrightPath()];
  const found = candidates.find((path): path is string => Boolean(path) && existsSync(path as string));
  if (!found) {
    throw new Error(
      "No Chromium found for the browser tests. Install one with `sudo apt-get install chromium` " +
        "(or `npx playwright install chromium`), or set CHROME_PATH to a Chromium or Chrome binary.",
    );
  }
  return found;
}

function safePlaywrightPath(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}
