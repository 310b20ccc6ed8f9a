import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import { accessibilityViolations } from "./support/delivery";
import { gotoHydrated } from "./support/hydrated";
import { signInAsOperator } from "./support/operator";

/** A variants table input by its accessible name: the column's and the row's ("Weight (g) Red", tests/e2e/stock.spec.ts). */
const cell = (page: Page, row: string, column: string) =>
  page.getByRole("textbox", { name: `${column} ${row}`, exact: true });

test("the operator gives one colour a weight and a picture of its own; the product page shows that picture when the colour is chosen, with and without JavaScript", async ({
  page,
  browser,
}) => {
  // Two saves with pictures, then two shoppers' visits.
  test.setTimeout(90_000);
  const title = `Picture Story Mug ${Date.now()}`;
  const square = (r: number, g: number, b: number) =>
    sharp({ create: { width: 600, height: 600, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer();
  const [white, red] = await Promise.all([square(240, 240, 240), square(200, 20, 30)]);

  await signInAsOperator(page);
  await page.goto("/admin/products/new");
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Description").fill("A mug in two colours.");
  await page.getByLabel("Price", { exact: true }).fill("12.00");
  await page
    .getByLabel("Picture", { exact: true })
    .setInputFiles({ name: "mug.png", mimeType: "image/png", buffer: white });
  await page.getByLabel("Option name").first().fill("Colour");
  await page.getByLabel("Option values").first().fill("White, Red");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

  // A fractional weight is answered under its field, and nothing is saved.
  const table = page.getByRole("table", { name: "Variants" });
  await cell(page, "Red", "Weight (g)").fill("350.5");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(cell(page, "Red", "Weight (g)")).toHaveAccessibleDescription(
    "Enter the weight in whole grams, like 250.",
  );
  await expect(table.getByRole("img")).toHaveCount(0);

  await cell(page, "Red", "Weight (g)").fill("350");
  await page
    .getByLabel("Picture Red", { exact: true })
    .setInputFiles({ name: "red.png", mimeType: "image/png", buffer: red });
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await expect(cell(page, "Red", "Weight (g)")).toHaveValue("350");
  await expect(cell(page, "White", "Weight (g)")).toHaveValue("0");
  const thumbnail = table.getByRole("img", { name: "Current picture of Red" });
  await expect(thumbnail).toBeVisible();
  await expect(page.getByRole("checkbox", { name: "Remove picture Red" })).not.toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Remove picture White" })).toHaveCount(0);
  expect(await accessibilityViolations(page)).toEqual([]);
  const redPicture = await thumbnail.getAttribute("src");
  expect(redPicture).toMatch(/^\/pictures\/[a-f0-9]{32}\.webp$/);
  const productPage = (await page.getByRole("link", { name: "View on the shop" }).getAttribute("href")) ?? "";

  // With JavaScript: choosing Red shows its picture at once; White, the product's.
  const shopper = await browser.newPage();
  await gotoHydrated(shopper, productPage);
  const picture = shopper.getByRole("img", { name: title });
  const productPicture = await picture.getAttribute("src");
  expect(productPicture).not.toBe(redPicture);
  await shopper.getByRole("group", { name: "Colour" }).getByRole("radio", { name: "Red" }).check();
  await expect(picture).toHaveAttribute("src", redPicture!);
  await expect(picture).toHaveAccessibleName(`${title} (Colour: Red)`);
  await expect(shopper).toHaveURL(/\?variant=/);
  const redAddress = new URL(shopper.url()).pathname + new URL(shopper.url()).search;
  await shopper.getByRole("group", { name: "Colour" }).getByRole("radio", { name: "White" }).check();
  await expect(picture).toHaveAttribute("src", productPicture!);
  await expect(picture).toHaveAccessibleName(title);

  // Without JavaScript: the shared link, and the "Choose" button, answer with Red's picture.
  const plain = await browser.newContext({ javaScriptEnabled: false });
  const plainPage = await plain.newPage();
  await plainPage.goto(redAddress);
  await expect(plainPage.getByRole("img", { name: `${title} (Colour: Red)` })).toHaveAttribute("src", redPicture!);
  await plainPage.goto(productPage);
  await expect(plainPage.getByRole("img", { name: title })).toHaveAttribute("src", productPicture!);
  await plainPage.getByRole("radio", { name: "Red" }).check();
  await plainPage.getByRole("button", { name: "Choose" }).click();
  await expect(plainPage.getByRole("img", { name: title })).toHaveAttribute("src", redPicture!);
  await plain.close();
});
