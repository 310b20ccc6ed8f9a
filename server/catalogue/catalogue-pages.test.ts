import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { applyDemoCatalogue, demoHandle } from "#server/imports/demo-catalogue";
import { DEMO_PRODUCTS, demoColours } from "#server/imports/demo-catalogue-data";
import { describeOptionValues } from "#shared/catalogue";
import { catalogue as specProducts } from "./catalogue-data";
import { createCatalogueService } from "./catalogue-service";

const ECHO = specProducts.find((product) => product.id === "23445930")!;

/** Product pages, search, the sitemap and robots.txt, rendered by React Router as in production. */
describeEachDatabase("catalogue pages", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  beforeAll(async () => {
    shop = await createPageShop(getDatabase());
  }, 60_000);
  afterAll(() => shop.close());

  const get = (path: string) => createBrowser(shop.app).send(path, { headers: { accept: "text/html" } });
  const structuredData = (html: string) => {
    const match = /<script type="application\/ld\+json"[^>]*>([^<]*)<\/script>/.exec(html);
    return match ? (JSON.parse(match[1]!) as Record<string, unknown>) : undefined;
  };
  async function restoreEcho() {
    await shop.services.catalogue.updateProduct(ECHO.id, { slug: ECHO.slug, title: ECHO.title, status: "active" });
    await getDatabase().db.deleteFrom("product_slug_history").execute();
  }

  it("writes absolute links on the shop's public origin: PUBLIC_URL when set, else the scheme a trusted proxy reports", async () => {
    const behindPublicUrl = await createPageShop(getDatabase(), { publicUrl: new URL("https://shop.example") });
    const behindProxy = await createPageShop(getDatabase(), { trustedProxyHops: 1 });
    try {
      const page = await (
        await createBrowser(behindPublicUrl.app).send("/products/the-lean-startup", {
          headers: { accept: "text/html" },
        })
      ).text();
      expect(page).toContain('<link rel="canonical" href="https://shop.example/products/the-lean-startup"/>');
      const sitemap = await (await createBrowser(behindPublicUrl.app).send("/sitemap.xml")).text();
      expect(sitemap).toContain("<loc>https://shop.example/products/the-lean-startup</loc>");
      const proxied = await createBrowser(behindProxy.app).send("/products/the-lean-startup", {
        headers: { accept: "text/html", "x-forwarded-proto": "https" },
      });
      expect(await proxied.text()).toContain(
        '<link rel="canonical" href="https://shop.test/products/the-lean-startup"/>',
      );
    } finally {
      await behindPublicUrl.close();
      await behindProxy.close();
    }
  }, 60_000);

  it("shows a product's page with its picture, price, stars, description, Add to Basket and what search engines read", async () => {
    const response = await get("/products/the-lean-startup");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(
      '<h1 class="product-page__title">The Lean Startup: How Constant Innovation Creates Radically Successful Businesses</h1>',
    );
    expect(html).toContain("$11.96");
    expect(html).toContain('aria-label="Rated 5 out of 5"');
    expect(html).toMatch(/<img[^>]*src="\/images\/products\/12321341.webp"[^>]*width="400"[^>]*height="400"/);
    expect(html).toContain("Paperback, 336 pages.");
    expect(html).toMatch(
      /action="\/basket\/add"[^>]*><input type="hidden" name="productId" value="12321341"\/><input type="hidden" name="returnTo" value="\/products\/the-lean-startup"\/>.*?<button type="submit" class="button"[^>]*>Add to Basket/s,
    );
    expect(html).toContain('<link rel="canonical" href="http://shop.test/products/the-lean-startup"/>');
    expect(html).toContain(
      '<meta property="og:title" content="The Lean Startup: How Constant Innovation Creates Radically Successful Businesses"/>',
    );
    expect(html).toContain('<meta property="og:image" content="http://shop.test/images/products/12321341.webp"/>');
    expect(structuredData(html)).toMatchObject({
      "@type": "Product",
      name: "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses",
      offers: [
        {
          "@type": "Offer",
          sku: "12321341",
          price: "11.96",
          priceCurrency: "USD",
          availability: "https://schema.org/InStock",
        },
      ],
    });
  });

  it("after the demo catalogue: the home page's second row, and a picture of each colour named by it on the product page", async () => {
    const { db } = getDatabase();
    const picturesDir = fileURLToPath(new URL("../../images/demo", import.meta.url));
    await applyDemoCatalogue(db, { remove: false, picturesDir });
    try {
      // The shop sees the import with its next version check (within a second), like any other catalogue change.
      let home = "";
      await expect
        .poll(async () => (home = await (await get("/")).text()), { timeout: 5_000 })
        .toContain(">More to explore</h2>");
      const row = home.slice(home.indexOf(">More to explore</h2>"));
      expect(row.split('class="product-card"').length - 1).toBe(12);
      const shown = DEMO_PRODUCTS.filter((product) => row.includes(`href="/products/${demoHandle(product)}"`));
      expect(shown).toHaveLength(12);
      for (const featured of specProducts) expect(row).not.toContain(`href="/products/${featured.slug}"`);

      const catalogue = createCatalogueService(db);
      const coloured = DEMO_PRODUCTS.filter((product) => demoColours(product));
      expect(coloured.length).toBeGreaterThanOrEqual(3);
      for (const demo of coloured) {
        const page = await catalogue.findProductPage(demoHandle(demo));
        if (page.kind !== "product") throw new Error(`${demo.title}: ${page.kind}`);
        const { product } = page;
        const pictureOf = new Map<string, string>();
        for (const variant of product.variants) {
          const colour = variant.optionValues[demoColours(demo)!.index]!;
          expect(variant.image?.src, `${demo.title} ${colour}`).toMatch(/^\/pictures\/[a-f0-9]{32}\.webp$/);
          expect(pictureOf.get(colour) ?? variant.image!.src, "one picture per colour").toBe(variant.image!.src);
          pictureOf.set(colour, variant.image!.src);
          const alt = `${product.title} (${describeOptionValues(
            product.options.map((option) => option.name),
            variant.optionValues,
          )})`;
          expect(alt).toContain(`Colour: ${colour}`);
          const html = await (await get(`/products/${product.slug}?variant=${variant.id}`)).text();
          const picture = /<img class="product-page__image"[^>]*>/.exec(html)?.[0];
          expect(picture).toContain(` src="${variant.image!.src}"`);
          expect(picture).toContain(` alt="${alt}"`);
        }
        expect(new Set(pictureOf.values()).size, `${demo.title}: a different picture for each colour`).toBe(
          pictureOf.size,
        );
        expect(pictureOf.size).toBe(demoColours(demo)!.values.length);
      }
    } finally {
      await applyDemoCatalogue(db, { remove: true, picturesDir });
    }
  }, 120_000);

  it("keeps a title that closes the script element inside its JSON-LD", async () => {
    const title = 'Echo </script><script>alert("x")</script> & more';
    await shop.services.catalogue.updateProduct(ECHO.id, { title, slug: "echo-escaped" });
    try {
      const html = await (await get("/products/echo-escaped")).text();
      expect(html).not.toContain('<script>alert("x")');
      expect(structuredData(html)).toMatchObject({ name: title });
    } finally {
      await restoreEcho();
    }
  });

  it("sends an old slug to the new one with a 301, and an unknown one to the 404 page", async () => {
    await shop.services.catalogue.updateProduct(ECHO.id, { title: "Amazon Echo Smart Speaker" });
    try {
      const moved = await get(`/products/${ECHO.slug}`);
      expect(moved.status).toBe(301);
      expect(moved.headers.get("location")).toBe("/products/amazon-echo-smart-speaker");
      expect((await get("/products/amazon-echo-smart-speaker")).status).toBe(200);
    } finally {
      await restoreEcho();
    }
    const unknown = await get("/products/no-such-thing");
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("Page not found");
  });

  it("answers an archived product's page with 404 and says it is no longer available; search and home leave it out", async () => {
    await shop.services.catalogue.updateProduct(ECHO.id, { status: "archived" });
    try {
      const response = await get(`/products/${ECHO.slug}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain("This product is no longer available");
      expect(await (await get("/search?q=echo")).text()).toContain("No results for “echo”");
      expect(await (await get("/")).text()).not.toContain(ECHO.title);
    } finally {
      await restoreEcho();
    }
  });

  it("links each card's title and picture on the home page to the product's page", async () => {
    const html = await (await get("/")).text();
    for (const product of specProducts) {
      expect(html.split(`href="/products/${product.slug}"`).length - 1, product.slug).toBe(2);
    }
  });

  it("finds products from the search box's query, counts them, and pages them", async () => {
    const monitor = await get("/search?q=monitor");
    expect(monitor.status).toBe(200);
    const html = await monitor.text();
    expect(html).toContain("3 results for “monitor”");
    expect(html).toContain('href="/products/samsung-49-inch-curved-gaming-monitor"');
    expect(html).toContain('<meta name="robots" content="noindex, follow"/>');
    expect(html).toContain('value="monitor"');
    expect(await (await get("/search?q=ipda")).text()).toContain("1 result for “ipda”");
    expect(await (await get("/search")).text()).toContain("All products (6)");
    const none = await (await get("/search?q=zzzzqqq")).text();
    expect(none).toContain("No results for “zzzzqqq”");
    expect(none).toMatch(/<a[^>]*href="\/"[^>]*>Back to the shop<\/a>/);
  });

  it("shows what was typed escaped, and cuts a long query to 200 characters", async () => {
    const hostile = '<img src=x onerror=alert(1)> "\\ -- & | !';
    const response = await get(`/search?q=${encodeURIComponent(hostile)}&page=abc`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    const long = await (await get(`/search?q=${"monitor ".repeat(60)}`)).text();
    expect(long).toContain(`for “${"monitor ".repeat(25).trim()}”`);
  });

  it("lists the home page, the departments and every product in the sitemap, which robots.txt names", async () => {
    const sitemap = await get("/sitemap.xml");
    expect(sitemap.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    const xml = await sitemap.text();
    const locations = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);
    const departments = ["books", "home-kitchen", "electronics", "computers", "monitors", "tablets"].map(
      (slug) => `http://shop.test/departments/${slug}`,
    );
    expect(locations).toEqual([
      "http://shop.test/",
      "http://shop.test/departments",
      ...departments,
      ...specProducts.map((product) => `http://shop.test/products/${product.slug}`),
    ]);
    expect(await (await get("/robots.txt")).text()).toContain("Sitemap: http://shop.test/sitemap.xml");
  });

  it("answers /favicon.ico with the shop's icon", async () => {
    const response = await get("/favicon.ico");
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/favicon.svg");
  });
});
