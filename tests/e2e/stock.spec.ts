import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import { gotoHydrated } from "./support/hydrated";
import { signInAsOperator } from "./support/operator";

/**
 * The variants table's input for one row ("M / Black") and column ("Stock"), by its accessible name: the column's
 * header and the row's, joined (aria-labelledby). Not getByLabel: Playwright matches each labelling element on its
 * own ("Stock", "M / Black"), never the name they make together, so it waits for an input that never comes.
 */
const cell = (page: Page, row: string, column: string) =>
  page.getByRole(column === "Track stock" || column.startsWith("Continue selling") ? "checkbox" : "textbox", {
    name: `${column} ${row}`,
    exact: true,
  });

test('the console creates a product with two options and sets stock; a shopper sees "Only 2 left", an out-of-stock size, and a basket capped at what is available', async ({
  page,
  browser,
}) => {
  // Two saves with a picture each, then a shopper's visit: longer than one page's story.
  test.setTimeout(90_000);
  const title = `Stock Story Tee ${Date.now()}`;
  const picture = await sharp({ create: { width: 600, height: 600, channels: 3, background: { r: 20, g: 20, b: 20 } } })
    .png()
    .toBuffer();

  await signInAsOperator(page);
  await page.goto("/admin/products/new");
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Description").fill("A plain tee.");
  await page.getByLabel("Price", { exact: true }).fill("20.00");
  await page.getByLabel("Picture").setInputFiles({ name: "tee.png", mimeType: "image/png", buffer: picture });
  await page.getByLabel("Option name").first().fill("Size");
  await page.getByLabel("Option values").first().fill("S, M, M");
  await page.getByRole("button", { name: "Save" }).click();
  // A duplicate value is answered under its field, and nothing is saved.
  await expect(page.getByText("Each value appears once in an option.").first()).toBeVisible();
  await page.getByLabel("Option values").first().fill("S, M");
  await page.getByRole("button", { name: "Add option" }).click();
  await page.getByLabel("Option name").nth(1).fill("Colour");
  await page.getByLabel("Option values").nth(1).fill("Black, White");
  // Exact: each variant row has a Picture of its own now ("Picture S").
  await page
    .getByLabel("Picture", { exact: true })
    .setInputFiles({ name: "tee.png", mimeType: "image/png", buffer: picture });
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

  // The variants table: one row per combination; stock set on two of them.
  await expect(page.getByRole("table", { name: "Variants" }).getByRole("row")).toHaveCount(5);
  await cell(page, "M / Black", "Stock").fill("2");
  await cell(page, "M / Black", "Track stock").check();
  await cell(page, "S / White", "Stock").fill("0");
  await cell(page, "S / White", "Track stock").check();
  await cell(page, "S / Black", "Stock").fill("-3");
  await cell(page, "S / Black", "Track stock").check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Stock can't be below zero.").first()).toBeVisible();
  await cell(page, "S / Black", "Stock").fill("7");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Stock movements" })).toBeVisible();
  const productPage = await page.getByRole("link", { name: "View on the shop" }).getAttribute("href");

  // A shopper (a guest) chooses on the product page.
  const shopper = await browser.newPage();
  // The choices are taken by script once it runs: a radio clicked before that is set back by hydration.
  await gotoHydrated(shopper, productPage ?? "/");
  const size = shopper.getByRole("group", { name: "Size" });
  const colour = shopper.getByRole("group", { name: "Colour" });
  await expect(size.getByRole("radio")).toHaveCount(2);
  await colour.getByRole("radio", { name: /White/ }).check();
  await expect(shopper.getByTestId("availability")).toHaveText("Out of stock");
  await expect(shopper.getByRole("button", { name: "Add to Basket" })).toBeDisabled();
  await expect(size.getByText("S (out of stock)")).toBeVisible();
  await expect(shopper).toHaveURL(/\?variant=/);

  await size.getByRole("radio", { name: /^M/ }).check();
  await colour.getByRole("radio", { name: /Black/ }).check();
  await expect(shopper.getByTestId("availability")).toHaveText("Only 2 left in stock - order soon.");
  await shopper.getByRole("button", { name: "Add to Basket" }).click();
  await expect(shopper.getByRole("status").filter({ hasText: "Added to basket" })).toBeAttached();

  await gotoHydrated(shopper, "/checkout");
  await expect(shopper.getByText("Size: M, Colour: Black")).toBeVisible();
  await shopper.getByRole("combobox", { name: `Quantity of ${title}` }).selectOption("3");
  await expect(shopper.getByText("Only 2 left in stock", { exact: true })).toBeVisible();
  await shopper.reload();
  await expect(shopper.getByRole("combobox", { name: `Quantity of ${title}` })).toHaveValue("2");
});
