import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { enterCard } from "./support/card";
import { accessibilityViolations, fillDeliveryAddress } from "./support/delivery";
import { signInAsOperator } from "./support/operator";
import { expectHydrated } from "./support/hydrated";

/** The CSV file the story imports: three products, one with Size and Colour and stock. Handles and SKUs of its own run. */
function threeProducts(run: string) {
  return [
    "URL handle,Title,Description,Vendor,Type,Tags,Status,Option1 name,Option1 value,Option2 name,Option2 value,SKU,Price,Inventory tracker,Inventory quantity,Departments",
    `story-tee-${run},Story Tee ${run},"<p>Soft <b>organic</b> cotton, cut long.</p>",Acme,Shirts,"cotton, summer",active,Size,S,Colour,Red,TEE-S-RED-${run},18.00,shopify,4,Clothing > T-shirts`,
    `story-tee-${run},,,,,,,,S,,Blue,TEE-S-BLU-${run},18.00,shopify,0,`,
    `story-tee-${run},,,,,,,,M,,Red,TEE-M-RED-${run},19.00,shopify,2,`,
    `story-mug-${run},Story Mug ${run},A mug for tea.,,Mugs,,active,Title,Default Title,,,MUG-${run},7.50,,,Home & Kitchen`,
    `story-pen-${run},Story Pen ${run},,,Stationery,,active,Title,Default Title,,,PEN-${run},2.25,,,Stationery`,
  ].join("\n");
}

async function chooseFile(page: Page, name: string, text: string) {
  await page.getByLabel("CSV file").setInputFiles({ name, mimeType: "text/csv", buffer: Buffer.from(text) });
}

test("the operator imports three products from a CSV with Preview first, finds them in the shop, and re-imports their export unchanged", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const run = String(Date.now());
  await signInAsOperator(page);
  await page.goto("/admin/products");
  await page.getByRole("link", { name: "Import CSV" }).click();
  await expect(page.getByRole("heading", { name: "Import products" })).toBeVisible();
  await expectHydrated(page);

  // Preview first: what each product would be, nothing written.
  await chooseFile(page, "three.csv", threeProducts(run));
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(
    page.getByRole("status").filter({
      hasText: "5 rows, 3 products (Shopify's current layout): 3 created, 0 updated, 0 unchanged, 0 with errors.",
    }),
  ).toBeVisible();
  await expect(page.getByRole("row", { name: new RegExp(`Story Tee ${run}`) })).toContainText("Stock S / Red: 0 -> 4");
  expect(await accessibilityViolations(page)).toEqual([]);
  expect((await page.request.get(`/products/story-mug-${run}`)).status()).toBe(404);

  // The same file, imported: the report of the import.
  await page.getByRole("button", { name: "Import" }).click();
  await expect(page).toHaveURL(/\/admin\/products\/import\?import=[0-9a-f-]{36}$/);
  await expect(
    page.getByRole("status").filter({ hasText: /Imported 5 rows at .*: 3 created, 0 updated, 0 unchanged\./ }),
  ).toBeVisible();
  expect(await accessibilityViolations(page)).toEqual([]);

  // A shopper finds them: the tee with its options and its stock, the mug in its department.
  const shopper = await browser.newPage();
  await shopper.goto(`/search?q=${encodeURIComponent(`Story Tee ${run}`)}`);
  await shopper
    .getByRole("link", { name: `Story Tee ${run}` })
    .first()
    .click();
  await expect(shopper).toHaveURL(`/products/story-tee-${run}`);
  await expect(shopper.getByRole("heading", { level: 1, name: `Story Tee ${run}`, exact: true })).toBeVisible();
  await expect(shopper.getByText("Soft organic cotton, cut long.")).toBeVisible();
  const size = shopper.getByRole("group", { name: "Size" });
  const colour = shopper.getByRole("group", { name: "Colour" });
  await expect(size.getByRole("radio")).toHaveCount(2);
  await size.getByRole("radio", { name: /^M/ }).check();
  await colour.getByRole("radio", { name: /Red/ }).check();
  await expect(shopper.getByTestId("availability")).toHaveText("Only 2 left in stock - order soon.");
  await shopper.goto("/departments/home-kitchen");
  await expect(shopper.getByRole("link", { name: `Story Mug ${run}` }).first()).toBeVisible();

  // Export: the products' rows come back as they went in, and importing them again changes nothing.
  await page.goto("/admin/products");
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^products-\d{4}-\d{2}-\d{2}\.csv$/);
  const exported = readFileSync((await download.path())!, "utf8").replace(/^\uFEFF/, "");
  const [header, ...rows] = exported.trimEnd().split("\n");
  const ours = rows.filter((row) => row.startsWith(`story-`) && row.includes(run));
  expect(ours).toHaveLength(5);
  expect(ours).toContain(`story-tee-${run},,,,,,,,S,,Blue,,,TEE-S-BLU-${run},18.00,,TRUE,shopify,0,DENY,0,,`);
  await page.getByRole("link", { name: "Import CSV" }).click();
  await expectHydrated(page);
  // Only this story's products: the shop's others may be changing under the other stories meanwhile.
  await chooseFile(page, "exported.csv", [header, ...ours].join("\n"));
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(
    page.getByRole("status").filter({
      hasText: "5 rows, 3 products (Shopify's current layout): 0 created, 0 updated, 3 unchanged, 0 with errors.",
    }),
  ).toBeVisible();
  await page.getByRole("button", { name: "Import" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: /Imported 5 rows at .*: 0 created, 0 updated, 3 unchanged\./ }),
  ).toBeVisible();
});

test("the operator exports the orders of a search as CSV, and the file holds that order's lines", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const run = String(Date.now());
  const email = `csv.orders.${run}@example.com`;
  await signInAsOperator(page);
  await page.goto("/admin/products/import");
  await expectHydrated(page);
  await chooseFile(page, "mug.csv", threeProducts(run));
  await page.getByRole("button", { name: "Import" }).click();
  await expect(page.getByRole("status").filter({ hasText: /3 created/ })).toBeVisible();

  // A guest buys two of the imported mug.
  const shopper = await browser.newPage();
  await shopper.goto(`/products/story-mug-${run}`);
  await expectHydrated(shopper);
  await shopper.getByRole("button", { name: "Add to Basket" }).click();
  await expect(shopper.getByRole("status").filter({ hasText: "Added to basket" })).toBeAttached();
  await shopper.goto("/checkout");
  await shopper.getByRole("combobox", { name: `Quantity of Story Mug ${run}` }).selectOption("2");
  await expect(shopper.getByRole("banner").getByRole("link", { name: /^Basket,/ })).toHaveAccessibleName(
    "Basket, 2 items",
  );
  await shopper.getByRole("link", { name: "Proceed to Checkout" }).click();
  await fillDeliveryAddress(shopper, { email });
  await enterCard(shopper, "4242424242424242");
  await shopper.getByRole("button", { name: "Buy Now" }).click();
  await expect(shopper).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
  const number = new URL(shopper.url()).searchParams.get("placed") ?? "";

  await page.goto("/admin/orders");
  await page.getByLabel("Order number or e-mail").fill(email);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByRole("link", { name: number })).toBeVisible();
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^orders-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = readFileSync((await download.path())!, "utf8")
    .replace(/^\uFEFF/, "")
    .trimEnd()
    .split("\n");
  expect(lines[0]).toBe(
    "Name,Email,Financial Status,Fulfillment Status,Paid at,Subtotal,Shipping,Taxes,Total,Discount Code,Discount Amount,Refunded Amount,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem returned quantity,Shipping Name,Shipping Address1,Shipping City,Shipping Zip,Shipping Province,Shipping Country",
  );
  expect(lines).toHaveLength(2);
  // (Shipping and tax are whatever the shop's zones and rates make them; the items are the story's.)
  const money = "\\d+\\.\\d{2}";
  expect(lines[1]).toMatch(
    new RegExp(
      `^${number},${email.replaceAll(".", "\\.")},paid,unfulfilled,\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\+0000,15\\.00,${money},${money},${money},,0\\.00,0\\.00,2,Story Mug ${run},7\\.50,MUG-${run},0,Ada Lovelace,1 Main Street,Los Angeles,90001,CA,US$`,
    ),
  );
});
