import { expect, test, type Page } from "@playwright/test";
import { gotoHydrated } from "./support/hydrated";
import { gotoHydratedOnStillClock } from "./support/still-clock";

const products = [
  {
    title: "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses",
    price: "$11.96",
    rating: 5,
  },
  {
    title:
      "Kenwood kMix Stand Mixer for Baking, Stylish Kitchen Mixer with K-beater, Dough Hook and Whisk, 5 Litre Glass Bowl",
    price: "$239.00",
    rating: 4,
  },
  {
    title: "Samsung LC49HG90DMUXEN 49' Curved QLED Gaming Monitor - Double Full HD 3840 x 1080",
    price: "$199.99",
    rating: 3,
  },
  { title: "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric", price: "$98.99", rating: 5 },
  { title: "New Apple iPad Pro (12.9-inch, Wi-Fi, 128GB) - Silver (4th Generation)", price: "$598.99", rating: 4 },
  {
    title: "Samsung LC49RG90SSUXEN 49' Curved LED Gaming Monitor - Super Ultra Wide Dual WQHD 5120 x 1440",
    price: "$1,094.98",
    rating: 4,
  },
];

/** Fails the story on any error the page logs, such as a script or image blocked by the Content-Security-Policy. */
function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return errors;
}

test("the server's HTML already holds every product title and price", async ({ request }) => {
  const response = await request.get("/");
  expect(response.status()).toBe(200);
  const html = await response.text();
  for (const product of products) {
    expect(html).toContain(product.price);
    expect(html).toContain(product.title.replaceAll("'", "&#x27;"));
  }
});

test("the page paints from its HTML alone, and its scripts are fetched only after the first paint", async ({
  page,
  request,
}) => {
  const html = await (await request.get("/")).text();
  // The stylesheet is inlined (nothing render-blocking) and React Router's module preloads are held back.
  expect(html).toMatch(/<style nonce="[^"]+">:root\{/);
  expect(html).not.toContain('<link rel="modulepreload"');
  expect(html).not.toContain('rel="stylesheet"');

  const errors = collectPageErrors(page);
  await page.goto("/");
  // Then it hydrates: the carousel's stop button, disabled until its script runs, answers a click.
  await page.getByRole("button", { name: "Stop slide rotation" }).click();
  await expect(page.getByRole("button", { name: "Start slide rotation" })).toBeVisible();
  const timings = await page.evaluate(() => ({
    // When the first content was painted on the main thread (paintTime; startTime is when it reached the screen).
    firstContentfulPaint: ((entry) =>
      entry ? ((entry as PerformanceEntry & { paintTime?: number }).paintTime ?? entry.startTime) : Infinity)(
      performance.getEntriesByName("first-contentful-paint")[0],
    ),
    scripts: performance
      .getEntriesByType("resource")
      .filter((entry) => entry.name.endsWith(".js"))
      .map((entry) => entry.startTime),
  }));
  expect(timings.scripts.length).toBeGreaterThan(3);
  for (const start of timings.scripts) expect(start).toBeGreaterThanOrEqual(timings.firstContentfulPaint);
  expect(errors).toEqual([]);
});

test("a shopper sees the header with its links and a basket count of 0", async ({ page }) => {
  const errors = collectPageErrors(page);
  await page.goto("/");
  await expect(page).toHaveTitle(/Storefront/);
  const header = page.getByRole("banner");
  await expect(header.getByRole("link", { name: "Storefront home" })).toHaveAttribute("href", "/");
  await expect(header.getByRole("searchbox", { name: "Search Storefront" })).toBeVisible();
  await expect(header.getByRole("link", { name: /Hello Guest\s*Sign In/ })).toHaveAttribute("href", "/login");
  await expect(header.getByRole("link", { name: /Returns\s*& Orders/ })).toHaveAttribute("href", "/orders");
  await expect(header.getByText("Prime")).toHaveCount(0);
  const basket = header.getByRole("link", { name: "Basket, 0 items" });
  await expect(basket).toHaveAttribute("href", "/checkout");
  await expect(basket).toContainText("0");
  expect(errors).toEqual([]);
});

test("a shopper sees six products in rows of 2, 3 and 1, each with price, stars and button", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/");
  // The featured shelf; products the other stories made may fill "More to explore" below it.
  const rows = page.locator(".product-shelf").first().getByTestId("product-row");
  await expect(rows).toHaveCount(3);
  const counts = await rows.evaluateAll((elements) => elements.map((row) => row.querySelectorAll("article").length));
  expect(counts).toEqual([2, 3, 1]);

  // Cards of one row sit side by side at desktop width.
  const secondRowTops = await rows
    .nth(1)
    .locator("article")
    .evaluateAll((cards) => cards.map((card) => card.getBoundingClientRect().top));
  expect(new Set(secondRowTops).size).toBe(1);

  for (const product of products) {
    const card = page.getByRole("article", { name: product.title, exact: true });
    await expect(card).toContainText(product.price);
    await expect(card.getByRole("img", { name: `Rated ${product.rating} out of 5` })).toHaveText(
      "⭐".repeat(product.rating),
    );
    await expect(card.getByRole("button", { name: "Add to Basket" })).toBeVisible();
  }
});

test("every image on the home page loads, with alt text and explicit dimensions", async ({ page }) => {
  // Hydrated: the banners after the first are drawn by the script (only it can show them), in a render just after
  // hydration, so the count is waited for.
  await gotoHydrated(page, "/");
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const images = page.locator("img");
  await expect.poll(() => images.count()).toBeGreaterThanOrEqual(12); // 6 banners, 6 products (the wordmark is inline SVG)
  await expect
    .poll(
      () =>
        images.evaluateAll(
          (all) =>
            all.filter(
              (image) => !(image as HTMLImageElement).complete || (image as HTMLImageElement).naturalWidth === 0,
            ).length,
        ),
      {
        message: "images still loading or broken",
      },
    )
    .toBe(0);
  const missing = await images.evaluateAll((all) =>
    all
      .filter(
        (image) => !image.getAttribute("width") || !image.getAttribute("height") || image.getAttribute("alt") === null,
      )
      .map((image) => image.getAttribute("src")),
  );
  expect(missing).toEqual([]);
});

test("the banner carousel has six slides and advances by itself", async ({ page }) => {
  await gotoHydratedOnStillClock(page, "/");
  const carousel = page.locator('[aria-roledescription="carousel"]');
  await expect(carousel).toHaveAttribute("aria-label", "Featured offers");
  const slides = carousel.locator('[aria-roledescription="slide"]');
  await expect(slides).toHaveCount(6);
  const current = carousel.locator('[aria-roledescription="slide"]:not([aria-hidden="true"])');
  await expect(current).toHaveCount(1);
  await expect(current).toHaveAccessibleName("Books for curious minds");
  // Keep the pointer and focus away from the carousel, which would pause it.
  await page.mouse.move(5, 700);
  // Three seconds a banner, on the page's clock.
  await page.clock.runFor(3_100);
  await expect(current).toHaveAccessibleName("Bake something wonderful");
  await page.clock.runFor(3_000);
  await expect(current).toHaveAccessibleName("Game on: ultra-wide monitors");
  // No dots or "1 of 6" status.
  await expect(carousel).not.toContainText(/\d of \d/);
});

test("the carousel's buttons work from the keyboard, and it loops backwards from the first slide", async ({ page }) => {
  await gotoHydratedOnStillClock(page, "/");
  const carousel = page.locator('[aria-roledescription="carousel"]');
  const current = carousel.locator('[aria-roledescription="slide"]:not([aria-hidden="true"])');
  // Disabled until the page's script runs (a button that did nothing would be worse).
  await expect(carousel.getByRole("button", { name: "Previous slide" })).toBeEnabled();
  await carousel.getByRole("button", { name: "Previous slide" }).focus();
  await page.keyboard.press("Enter");
  await expect(current).toHaveAccessibleName("Find it here: search every product");
  await carousel.getByRole("button", { name: "Next slide" }).focus();
  await page.keyboard.press("Enter");
  await expect(current).toHaveAccessibleName("Books for curious minds");
  // Focus inside pauses the rotation: ten seconds on the page's clock (three rotations) change nothing.
  await page.clock.runFor(10_000);
  await expect(current).toHaveAccessibleName("Books for curious minds");
});

test("under reduced motion the carousel does not move by itself", async ({ browser }) => {
  // The same page twice, each hydrated, then ten seconds (three rotations) on the page's clock: the carousel moves
  // for a shopper who did not ask for reduced motion, and stays put for one who did.
  const slideAfterTenSeconds = async (reducedMotion: "reduce" | "no-preference") => {
    const context = await browser.newContext({ reducedMotion });
    const page = await context.newPage();
    await gotoHydratedOnStillClock(page, "/");
    await page.mouse.move(5, 700);
    await page.clock.runFor(10_000);
    const label = await page
      .locator('[aria-roledescription="slide"]:not([aria-hidden="true"])')
      .getByRole("heading")
      .textContent();
    await context.close();
    return label;
  };
  expect(await slideAfterTenSeconds("no-preference")).not.toBe("Books for curious minds");
  expect(await slideAfterTenSeconds("reduce")).toBe("Books for curious minds");
});

test("on a 375 px phone the page reflows with no sideways scrolling", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto("/");
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBe(0);
  await expect(page.getByRole("button", { name: "Add to Basket" }).first()).toBeVisible();
});

test("without Stripe keys every page says it is in test mode, in a thin line at the top that covers nothing, on a phone too", async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 812 });
  for (const path of ["/", "/checkout", "/login", "/no-such-page"]) {
    await page.goto(path);
    const ribbon = page.getByText("Test mode: no real payments", { exact: true });
    await expect(ribbon).toBeVisible();
    const box = await ribbon.boundingBox();
    expect(box?.y).toBe(0);
    expect(box?.height).toBeLessThan(40);
    // Everything else starts below it: it pushes the page down instead of lying over it.
    const nextTop = await ribbon.evaluate(
      (element) => element.nextElementSibling?.getBoundingClientRect().top ?? Infinity,
    );
    expect(nextTop).toBeGreaterThanOrEqual((box?.y ?? 0) + (box?.height ?? 0));
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
  }
});

test("an unknown address shows a 404 page with the header and a way home", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("banner")).toBeVisible();
  await page.getByRole("link", { name: "Go to the home page" }).click();
  await expect(page).toHaveURL("/");
});

test("robots.txt and the favicon exist", async ({ request }) => {
  const robots = await request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  expect(await robots.text()).toContain("User-agent: *");
  const favicon = await request.get("/favicon.svg");
  expect(favicon.status()).toBe(200);
  expect(favicon.headers()["content-type"]).toContain("image/svg+xml");
});
