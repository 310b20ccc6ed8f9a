/**
 * Reading a product CSV into what it asks for, product by product, before anything is compared with the catalogue:
 * the file's text (UTF-8, a byte-order mark allowed, any line ends), its rows grouped by URL handle, and each
 * product's and variant's values checked one by one. What a cell leaves out (a column the file does not have, an empty
 * price on a variant that exists) keeps what the catalogue holds; product-csv-import.ts decides that.
 */

import { Readable } from "node:stream";
import { parse, CsvError } from "csv-parse";
import { compile } from "html-to-text";
import { slugFromTitle } from "#server/catalogue/catalogue-service";
import { MAX_PRICE_CENTS, parseDollars } from "#shared/admin-schemas";
import { undoNeutralisedFormula } from "./csv-cells";
import {
  readProductCsvHeader,
  readProductCsvRow,
  type ProductCsvHeader,
  type ProductCsvRow,
} from "./product-csv-layout";

/** The import route's own body limit is a little above this (the form's other fields). */
export const MAX_CSV_BYTES = 20 * 1024 * 1024;
export const MAX_CSV_ROWS = 100_000;
const MAX_VARIANTS = 250;
const MAX_OPTION_VALUES = 100;
const MAX_TAGS = 250;
const MAX_ON_HAND = 1_000_000;
const MAX_GRAMS = 10_000_000;

/** One variant as a row asks for it; undefined: the row does not say (its column is absent or the cell empty). */
export interface WantedVariant {
  line: number;
  optionValues: string[];
  sku: string | null | undefined;
  priceCents: number | undefined;
  compareAtCents: number | null | undefined;
  weightGrams: number | undefined;
  chargeTax: boolean | undefined;
  /** Tracked with a quantity on hand (undefined: as it is), or not tracked; undefined: as it is. */
  stock: { tracksStock: true; onHand: number | undefined } | { tracksStock: false } | undefined;
  continueSelling: boolean | undefined;
}

/** One product as its rows ask for it. */
export interface WantedProduct {
  /** The URL handle as an address ("Blue Mug" → "blue-mug"). */
  handle: string;
  /** The line of its first row. */
  line: number;
  title: string | undefined;
  /** Plain paragraphs (the file's HTML reduced). */
  description: string | undefined;
  vendor: string | undefined;
  productType: string | undefined;
  tags: string[] | undefined;
  status: "active" | "archived" | undefined;
  options: { name: string; values: string[] }[];
  variants: WantedVariant[];
  /** An absolute http(s) address; undefined: none given. */
  imageUrl: string | undefined;
  /** Each a path of one or two names; undefined: none given (the product stays where it is). */
  departments: string[][] | undefined;
  /** The rating the product came with (1 to 5, decimals kept) and how many ratings it stands for, shown until the
   * first review; undefined: none given (a rating without its count is not kept: nobody can tell who gave it). */
  rating: { value: number; count: number } | undefined;
  /** "Line 12: …", one a problem. */
  errors: string[];
}

export type ReadCsv =
  | { ok: true; header: ProductCsvHeader; rows: number; products: WantedProduct[] }
  | { ok: false; error: string; rows: number };

/** Shopify's HTML (Body (HTML), Description) as plain paragraphs: block elements become lines, nothing else is kept. */
const htmlToPlainText = compile({
  wordwrap: false,
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: "ul", options: { itemPrefix: "- " } },
    { selector: "table", format: "dataTable" },
  ],
});

/** Lines trimmed, runs of spaces as one, at most one blank line between paragraphs: how descriptions are compared. */
export function tidyParagraphs(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** A Description or Body (HTML) cell as the shop's plain paragraphs; a cell without any tag is plain text already. */
export function descriptionFromCell(cell: string): string {
  return tidyParagraphs(/<[a-z!/]/i.test(cell) ? htmlToPlainText(cell) : cell);
}

/** Reads the file's text and groups its rows by product; a file that cannot be read at all gets one sentence. */
export async function readProductCsv(bytes: Uint8Array): Promise<ReadCsv> {
  const fail = (error: string, rows = 0): ReadCsv => ({ ok: false, error, rows });
  if (bytes.byteLength > MAX_CSV_BYTES) return fail("The file is larger than 20 MB: split it into smaller files.");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    // A fatal TextDecoder answers bytes that are not UTF-8 with a TypeError: the file's fault, said in a sentence.
    if (!(error instanceof TypeError)) throw error;
    return fail("The file is not UTF-8 text: save it as “CSV UTF-8” and try again.");
  }
  if (text.includes("\u0000"))
    return fail("The file contains a NUL character, which no CSV file has: is it a CSV file?");

  let header: ProductCsvHeader | undefined;
  const rows: { line: number; row: ProductCsvRow }[] = [];
  // Lines as an editor numbers them: a quoted cell may span several.
  let line = 1;
  const parser = Readable.from([text]).pipe(parse({ bom: true, relax_column_count: true, raw: true }));
  try {
    for await (const { record, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
      const at = line;
      // The record's own text with the line end that closes it (csv-parse keeps \n, or the \r of a \r\n).
      line += raw.match(/\r\n|\n|\r/g)?.length ?? 0;
      if (record.every((cell) => cell.trim() === "")) continue;
      const cells = record.map(undoNeutralisedFormula);
      if (!header) {
        const read = readProductCsvHeader(cells);
        if ("error" in read) return fail(read.error);
        header = read;
        continue;
      }
      if (rows.length >= MAX_CSV_ROWS) {
        parser.destroy();
        return fail("The file has more than 100,000 rows: split it into files of at most 100,000 rows.", rows.length);
      }
      rows.push({ line: at, row: readProductCsvRow(header, cells) });
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    return fail(
      `Line ${(error as CsvError & { lines?: number }).lines ?? line}: the file could not be read as CSV (${csvProblem(error)}).`,
      rows.length,
    );
  }
  if (!header) return fail("The file is empty: it has no header row.");
  return { ok: true, header, rows: rows.length, products: groupProducts(header, rows) };
}

function csvProblem(error: CsvError): string {
  if (error.code === "CSV_QUOTE_NOT_CLOSED") return "a quoted cell is never closed";
  if (error.code === "CSV_INVALID_CLOSING_QUOTE") return "a quote inside a quoted cell is not doubled";
  return error.message.replace(/\.$/, "");
}

const cell = (row: ProductCsvRow, field: keyof ProductCsvRow) => row[field]?.trim() ?? "";

/** Rows by handle (a row without one, by its title), in the order each product first appears. */
function groupProducts(
  header: ProductCsvHeader,
  rows: readonly { line: number; row: ProductCsvRow }[],
): WantedProduct[] {
  const groups = new Map<string, { line: number; row: ProductCsvRow }[]>();
  const orphans: WantedProduct[] = [];
  for (const entry of rows) {
    const named = cell(entry.row, "handle") || cell(entry.row, "title");
    // A handle that already is an address is taken as it is (the export writes the shop's own, some longer than a
    // new one made from a title may be); anything else is made one ("Blue Mug" → "blue-mug").
    const handle = /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(named) && named.length <= 200 ? named : slugFromTitle(named);
    if (handle === "") {
      orphans.push({
        ...emptyProduct(named, entry.line),
        errors: [
          `Line ${entry.line}: ${named ? `the URL handle “${named}” has no letter or digit` : "the row has no URL handle and no title"}.`,
        ],
      });
      continue;
    }
    const group = groups.get(handle) ?? [];
    group.push(entry);
    groups.set(handle, group);
  }
  return [...[...groups].map(([handle, group]) => readProduct(header, handle, group)), ...orphans].sort(
    (a, b) => a.line - b.line,
  );
}

function emptyProduct(handle: string, line: number): WantedProduct {
  return {
    handle,
    line,
    title: undefined,
    description: undefined,
    vendor: undefined,
    productType: undefined,
    tags: undefined,
    status: undefined,
    options: [],
    variants: [],
    imageUrl: undefined,
    departments: undefined,
    rating: undefined,
    errors: [],
  };
}

function readProduct(
  header: ProductCsvHeader,
  handle: string,
  rows: readonly { line: number; row: ProductCsvRow }[],
): WantedProduct {
  const [first] = rows as [{ line: number; row: ProductCsvRow }];
  const product = emptyProduct(handle, first.line);
  const problem = (line: number, sentence: string) => product.errors.push(`Line ${line}: ${sentence}`);
  const has = (field: keyof ProductCsvRow) => header.columns.has(field);
  const row = first.row;

  const title = cell(row, "title");
  if (title.length > 200) problem(first.line, "the title is longer than 200 characters.");
  product.title = title || undefined;
  if (has("description")) {
    product.description = descriptionFromCell(row.description ?? "");
    if (product.description.length > 10_000)
      problem(first.line, "the description is longer than 10,000 characters (as plain text).");
  }
  for (const [field, key, label] of [
    ["vendor", "vendor", "vendor"],
    ["type", "productType", "type"],
  ] as const) {
    if (!has(field)) continue;
    const value = cell(row, field);
    if (value.length > 255) problem(first.line, `the ${label} is longer than 255 characters.`);
    product[key] = value;
  }
  if (has("tags")) {
    const tags: string[] = [];
    for (const tag of cell(row, "tags")
      .split(",")
      .map((entry) => entry.trim())) {
      if (tag !== "" && !tags.some((kept) => kept.toLowerCase() === tag.toLowerCase())) tags.push(tag);
    }
    if (tags.length > MAX_TAGS || tags.some((tag) => tag.length > 255))
      problem(first.line, `a product has at most ${MAX_TAGS} tags, each at most 255 characters.`);
    product.tags = tags;
  }
  product.status = readStatus(row, (sentence) => problem(first.line, sentence));
  product.departments = readDepartments(header, row, (sentence) => problem(first.line, sentence));
  const rating = cell(row, "rating");
  const ratingCount = cell(row, "ratingCount");
  const value = rating === "" ? undefined : readRating(rating);
  if (rating !== "" && value === undefined)
    problem(first.line, `the rating “${rating.slice(0, 40)}” is not a number from 1 to 5.`);
  const count = ratingCount === "" ? undefined : readRatingCount(ratingCount);
  if (ratingCount !== "" && count === undefined)
    problem(first.line, `the rating count “${ratingCount.slice(0, 40)}” is not a whole number.`);
  if (value !== undefined && count !== undefined && count > 0) product.rating = { value, count };

  const image = rows.map((entry) => cell(entry.row, "image")).find((url) => url !== "");
  if (image !== undefined) {
    if (image.length > 2048 || !/^https?:\/\//i.test(image) || !URL.canParse(image))
      problem(first.line, `the picture's address “${image.slice(0, 100)}” is not a web address (http:// or https://).`);
    else product.imageUrl = image;
  }

  // Options: the names on the product's first row; Shopify's "Title" / "Default Title" is a product without any.
  const names = [cell(row, "option1Name"), cell(row, "option2Name"), cell(row, "option3Name")];
  const isDefaultTitle =
    names[0] === "Title" &&
    names[1] === "" &&
    names[2] === "" &&
    rows.every((entry) => ["", "Default Title"].includes(cell(entry.row, "option1Value")));
  const optionCount = isDefaultTitle
    ? 0
    : names.findIndex((name) => name === "") === -1
      ? 3
      : names.findIndex((name) => name === "");
  if (names.slice(optionCount).some((name) => name !== "") && !isDefaultTitle)
    problem(first.line, "an option name follows an empty one: name Option1 first, then Option2, then Option3.");
  for (const name of names.slice(0, optionCount)) {
    if (name.length > 60) problem(first.line, "an option's name is at most 60 characters.");
    else if (product.options.some((option) => option.name.toLowerCase() === name.toLowerCase()))
      problem(first.line, `the option “${name}” is named twice.`);
    product.options.push({ name, values: [] });
  }

  const seen = new Map<string, number>();
  const skus = new Map<string, number>();
  for (const [index, { line, row: variantRow }] of rows.entries()) {
    const valueCells = [
      cell(variantRow, "option1Value"),
      cell(variantRow, "option2Value"),
      cell(variantRow, "option3Value"),
    ];
    const isVariantRow =
      index === 0 ||
      [
        ...valueCells,
        cell(variantRow, "sku"),
        cell(variantRow, "price"),
        cell(variantRow, "compareAt"),
        cell(variantRow, "quantity"),
        cell(variantRow, "grams"),
      ].some((value) => value !== "");
    // A row with the handle and a picture alone is one of Shopify's extra pictures: a product here has one.
    if (!isVariantRow) continue;
    const optionValues = isDefaultTitle ? [] : valueCells.slice(0, optionCount);
    const errorsBefore = product.errors.length;
    for (const [position, value] of optionValues.entries()) {
      const option = product.options[position]!;
      if (value === "") problem(line, `the ${option.name} value is empty.`);
      else if (value.length > 60 || value.includes("|"))
        problem(line, `the ${option.name} value “${value.slice(0, 60)}” is longer than 60 characters or has a |.`);
      else if (!option.values.includes(value)) option.values.push(value);
    }
    if (!isDefaultTitle && valueCells.slice(optionCount).some((value) => value !== ""))
      problem(line, `the row has a value for an option the product has not named (Option${optionCount + 1} name).`);
    if (optionCount === 0 && product.variants.length > 0) {
      problem(
        line,
        `a product without options has one variant: name an option (like Size) on line ${first.line}, or remove this row.`,
      );
      continue;
    }
    const key = JSON.stringify(optionValues.map((value) => value.toLowerCase()));
    if (product.errors.length === errorsBefore && seen.has(key))
      problem(line, `${optionValues.join(" / ")} is already on line ${seen.get(key)}.`);
    seen.set(key, line);
    const variant = readVariant(header, variantRow, line, optionValues, (sentence) => problem(line, sentence));
    if (variant.sku) {
      const lower = variant.sku.toLowerCase();
      if (skus.has(lower)) problem(line, `the SKU “${variant.sku}” is already on line ${skus.get(lower)}.`);
      skus.set(lower, line);
    }
    product.variants.push(variant);
  }
  if (product.variants.length > MAX_VARIANTS)
    problem(first.line, `a product has at most ${MAX_VARIANTS} variants; this one has ${product.variants.length}.`);
  if (product.options.some((option) => option.values.length > MAX_OPTION_VALUES))
    problem(first.line, `an option has at most ${MAX_OPTION_VALUES} values.`);
  return product;
}

function readStatus(row: ProductCsvRow, problem: (sentence: string) => void): WantedProduct["status"] {
  const status = cell(row, "status").toLowerCase();
  if (status !== "") {
    if (status === "active") return "active";
    // A draft is not on sale: the shop's nearest is archived (hidden, kept in the console).
    if (status === "draft" || status === "archived" || status === "unlisted") return "archived";
    problem(`the status “${cell(row, "status").slice(0, 40)}” is not active, draft or archived.`);
    return undefined;
  }
  const published = cell(row, "published");
  if (published === "") return undefined;
  const isPublished = readBoolean(published);
  if (isPublished === undefined) problem(`Published “${published.slice(0, 40)}” is neither TRUE nor FALSE.`);
  return isPublished === undefined ? undefined : isPublished ? "active" : "archived";
}

/** Our Departments column (names separated by ";", "Parent > Child"); without it, Type, or Product category's last part. */
function readDepartments(
  header: ProductCsvHeader,
  row: ProductCsvRow,
  problem: (sentence: string) => void,
): string[][] | undefined {
  let paths: string[][];
  if (header.columns.has("departments")) {
    paths = cell(row, "departments")
      .split(";")
      .map((entry) => entry.split(">").map((name) => name.trim()))
      .filter((path) => path.some((name) => name !== ""));
  } else {
    const named = cell(row, "type") || cell(row, "category").split(">").at(-1)?.trim() || "";
    if (named === "") return undefined;
    paths = [[named]];
  }
  for (const path of paths) {
    if (path.length > 2)
      problem(`departments go two levels deep: “${path.join(" > ").slice(0, 100)}” has ${path.length}.`);
    else if (path.some((name) => name.length > 80 || !/[\p{L}\p{N}]/u.test(name)))
      problem(
        `the department “${path.join(" > ").slice(0, 100)}” needs a name of 1 to 80 characters with a letter or digit.`,
      );
  }
  if (paths.length > 20) problem("a product is in at most 20 departments.");
  return paths;
}

function readVariant(
  header: ProductCsvHeader,
  row: ProductCsvRow,
  line: number,
  optionValues: string[],
  problem: (sentence: string) => void,
): WantedVariant {
  const has = (field: keyof ProductCsvRow) => header.columns.has(field);
  const sku = cell(row, "sku");
  if (sku.length > 64) problem(`the SKU “${sku.slice(0, 64)}…” is longer than 64 characters.`);
  const money = (field: "price" | "compareAt", label: string, minimum: number) => {
    const typed = cell(row, field);
    if (typed === "") return undefined;
    const cents = parseDollars(typed);
    if (cents === null || cents < minimum || cents > MAX_PRICE_CENTS) {
      problem(
        `the ${label} “${typed.slice(0, 40)}” is not an amount from $${(minimum / 100).toFixed(2)} to $999,999.99, like 12.99.`,
      );
      return undefined;
    }
    return cents;
  };
  const priceCents = money("price", "price", 1);
  const compareAt = money("compareAt", "compare-at price", 0);

  let weightGrams: number | undefined;
  const grams = cell(row, "grams");
  if (grams !== "") {
    const value = Number(grams);
    if (!/^\d+(\.\d+)?$/.test(grams) || value > MAX_GRAMS)
      problem(`the weight “${grams.slice(0, 40)}” is not a number of grams.`);
    else weightGrams = Math.round(value);
  }
  const flag = (field: "chargeTax", label: string) => {
    const typed = cell(row, field);
    if (typed === "") return undefined;
    const value = readBoolean(typed);
    if (value === undefined) problem(`${label} “${typed.slice(0, 40)}” is neither TRUE nor FALSE.`);
    return value;
  };
  const chargeTax = flag("chargeTax", "Charge tax");
  let continueSelling: boolean | undefined;
  const policy = cell(row, "continueSelling").toLowerCase();
  if (policy !== "") {
    continueSelling = policy === "continue" ? true : policy === "deny" ? false : readBoolean(policy);
    if (continueSelling === undefined)
      problem(
        `“Continue selling when out of stock” is “${policy.slice(0, 40)}”: write CONTINUE or DENY (or TRUE or FALSE).`,
      );
  }

  // Tracked: a tracker named ("shopify"), not tracked: the tracker left empty; in a file without that column, a
  // quantity given means tracked, and an empty one leaves the variant's tracking as it is.
  let stock: WantedVariant["stock"];
  const quantity = cell(row, "quantity");
  const isTracked = has("tracker") ? cell(row, "tracker") !== "" : quantity !== "" ? true : undefined;
  if (isTracked === true) {
    let onHand: number | undefined;
    if (quantity !== "") {
      if (!/^-?\d+$/.test(quantity) || Math.abs(Number(quantity)) > MAX_ON_HAND)
        problem(`the inventory quantity “${quantity.slice(0, 40)}” is not a whole number.`);
      else onHand = Number(quantity);
    }
    stock = { tracksStock: true, onHand };
  } else if (isTracked === false) {
    stock = { tracksStock: false };
  }
  return {
    line,
    optionValues,
    sku: has("sku") ? sku || null : undefined,
    priceCents,
    compareAtCents: has("compareAt") ? (compareAt ?? null) : undefined,
    weightGrams,
    chargeTax,
    stock,
    continueSelling,
  };
}

function readBoolean(typed: string): boolean | undefined {
  const value = typed.trim().toLowerCase();
  if (["true", "yes", "y", "1"].includes(value)) return true;
  if (["false", "no", "n", "0"].includes(value)) return false;
  return undefined;
}

/** A rating count cell: a whole number (Shopify's rating_count metafield). */
function readRatingCount(text: string): number | undefined {
  return /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

/**
 * A rating cell: a number from 1 to 5, or Shopify's rating metafield as JSON ({"value": "4.5", "scale_min": "1.0",
 * "scale_max": "5.0"}); its decimals kept (cards draw it to the half star).
 */
function readRating(text: string): number | undefined {
  let value: unknown = text;
  if (text.startsWith("{")) {
    try {
      value = (JSON.parse(text) as { value?: unknown }).value;
    } catch (error) {
      // Not JSON after all: refused like any other text that is no rating.
      if (!(error instanceof SyntaxError)) throw error;
      return undefined;
    }
  }
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^\d+(\.\d+)?$/.test(value.trim())
        ? Number(value)
        : NaN;
  if (!(number >= 1 && number <= 5)) return undefined;
  return number;
}
