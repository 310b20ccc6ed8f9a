// `npm run images`: draws the shop's pictures (the SVG sources in images/) as WebP files, which the pages use (the
// build names each by a hash of its bytes: shared/shop-pictures.ts).
// A picture in SVG is drawn by the browser's main thread on every load (its text laid out, its blurs filtered):
// on the home page, about 400 ms of a phone's main thread in Lighthouse's mobile run (`BENCH_ONLY=pages npm run bench`). A WebP is decoded off the main thread.
// Run it after changing an SVG, and commit both; it uses the same local Chromium as the browser tests.
import { readFileSync, writeFileSync } from "node:fs";
import { chromium } from "@playwright/test";
import { findChromium } from "../tests/e2e/support/find-chromium.ts";
import { BANNERS, BANNER_SIZE, BANNER_WIDTHS, bannerPath } from "../shared/banners.ts";
import { catalogue, NO_PICTURE, PRODUCT_IMAGE_SIZE, productImagePath } from "../server/catalogue/catalogue-data.ts";

const projectDir = new URL("../", import.meta.url);
/** A picture's path ("/images/…") as a file under the project. */
const fileOf = (path: string) => new URL(`.${path}`, projectDir);
const QUALITY = 0.8;

const jobs: { source: string; target: string; width: number; height: number }[] = [];
for (let banner = 1; banner <= BANNERS.length; banner++) {
  for (const width of BANNER_WIDTHS) {
    const height = (width * BANNER_SIZE.height) / BANNER_SIZE.width;
    jobs.push({ source: bannerPath(banner, "svg"), target: bannerPath(banner, { webpWidth: width }), width, height });
  }
}
for (const { id } of catalogue) {
  jobs.push({ source: productImagePath(id, "svg"), target: productImagePath(id, "webp"), ...PRODUCT_IMAGE_SIZE });
}
jobs.push({ source: NO_PICTURE.source, target: NO_PICTURE.src, ...PRODUCT_IMAGE_SIZE });

const browser = await chromium.launch({ executablePath: findChromium() });
try {
  const page = await browser.newPage();
  for (const job of jobs) {
    const svg = readFileSync(fileOf(job.source), "utf8");
    const base64 = await page.evaluate(
      async ({ svg, width, height, quality }) => {
        const image = new Image();
        image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
        await image.decode();
        const canvas = new OffscreenCanvas(width, height);
        canvas.getContext("2d")!.drawImage(image, 0, 0, width, height);
        const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: "image/webp", quality })).arrayBuffer());
        let binary = "";
        for (const byte of bytes) binary += String.fromCharCode(byte);
        return btoa(binary);
      },
      { svg, width: job.width, height: job.height, quality: QUALITY },
    );
    const webp = Buffer.from(base64, "base64");
    writeFileSync(fileOf(job.target), webp);
    console.log(`${job.target}: ${job.width}×${job.height}, ${(webp.length / 1000).toFixed(1)} kB`);
  }
} finally {
  await browser.close();
}
