import { afterAll, beforeAll, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const BOOK = "12321341"; // The Lean Startup, $11.96: featured on the home page, found by "lean".
/**
 * A page as a browser reads it. Each response has its own CSP nonce; everything else of a shopper's page is the same
 * from one request to the next. A kept part's pictures are preloaded with react-dom's preload(), which writes the same
 * attributes as React's own preload of an <img> in another order: the attributes of a preload are compared as a set.
 */
const asRead = (html: string) =>
  html
    .replaceAll(/nonce="[^"]+"/g, 'nonce=""')
    .replaceAll(/<link rel="preload"([^>]*)\/>/g, (_tag, attributes: string) => {
      const sorted = [...attributes.matchAll(/ [A-Za-z]+="[^"]*"/g)].map((match) => match[0]).sort();
      return `<link rel="preload"${sorted.join("")}/>`;
    });

/**
 * A shopper's pages render only the shopper's own parts per request: the parts the same for everyone at an address
 * (app/components/kept-html.tsx) are rendered once per catalogue version and written again from what that render
 * made. A shopper must not be able to tell: the page written from kept parts is the page rendered afresh, byte for
 * byte, and a change to the catalogue is on the next page.
 */
describeEachDatabase("a shopper's pages, their shared parts rendered once per catalogue version", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let browser: ReturnType<typeof createBrowser>;
  beforeAll(async () => {
    shop = await createPageShop(getDatabase());
    browser = createBrowser(shop.app);
    expect((await browser.postJson("/basket/add", { productId: BOOK }, { accept: "application/json" })).status).toBe(
      201,
    );
  }, 60_000);
  afterAll(() => shop.close());

  const page = async (path: string) => {
    const response = await browser.send(path, { headers: { accept: "text/html" } });
    expect(response.status, path).toBe(200);
    return asRead(await response.text());
  };

  for (const path of ["/", "/products/the-lean-startup", "/search?q=lean"]) {
    it(`${path}: the page written from kept parts is the page rendered afresh, and shows the next price at once`, async () => {
      // A new catalogue version: nothing is kept for it yet, so the first page is rendered whole.
      await shop.services.catalogue.updateProduct(BOOK, { priceCents: 1_197 });
      try {
        const fresh = await page(path);
        expect(fresh).toContain("$11.97");
        expect(fresh).toMatch(/data-kept="[a-z-]+"/);
        expect(fresh).toMatch(/aria-label="Basket, 1 item|>1</);
        expect(await page(path)).toBe(fresh);
        await shop.services.catalogue.updateProduct(BOOK, { priceCents: 1_198 });
        const changed = await page(path);
        expect(changed).toContain("$11.98");
        expect(changed).not.toContain("$11.97");
      } finally {
        await shop.services.catalogue.updateProduct(BOOK, { priceCents: 1_196 });
      }
    });
  }
});
