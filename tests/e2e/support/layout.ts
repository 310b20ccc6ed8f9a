import type { Page } from "@playwright/test";

/**
 * Words on the page that the layout breaks across two lines ("Sams-ung" as "Sams" / "ung"), up to 24 characters
 * long (a longer run, such as a long e-mail address, may rightly wrap). Words are split where a browser may break
 * anyway: spaces, hyphens, slashes.
 */
export async function wordsBrokenMidWord(page: Page, selector = "main"): Promise<string[]> {
  return page.evaluate((rootSelector) => {
    const broken: string[] = [];
    for (const root of document.querySelectorAll(rootSelector)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        const parent = node.parentElement;
        if (
          !parent ||
          parent.closest("script, style, [hidden], .visually-hidden") ||
          parent.getClientRects().length === 0
        )
          continue;
        for (const match of text.matchAll(/[^\s\-/]{2,24}/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set(
            [...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top / 4)),
          );
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  }, selector);
}

/** How far the page scrolls sideways (0: it fits the screen). */
export async function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}
