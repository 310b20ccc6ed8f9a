import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { NO_PICTURE } from "#server/catalogue/catalogue-data";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const OPERATOR = { id: null, email: "importer@example.com" };
const SLOW = { timeout: 120_000 };
const NOT_PUBLIC =
  "The picture's address is not a public one (a loopback, private, link-local or metadata address): it was not fetched.";

/**
 * A picture server on the loopback: a PNG, a redirect to a private address, an 11 MB body, a text file. It counts the
 * requests it was sent, so a test can tell a refusal before any request from one after.
 */
async function startPictureServer() {
  const png = await sharp({ create: { width: 600, height: 500, channels: 3, background: { r: 200, g: 60, b: 90 } } })
    .png()
    .toBuffer();
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? "");
    if (request.url === "/lamp.png") return response.writeHead(200, { "content-type": "image/png" }).end(png);
    // 10.20.30.40 is a private address: the fetcher refuses it before opening any connection.
    if (request.url === "/to-private")
      return response.writeHead(302, { location: "http://10.20.30.40/lamp.png" }).end();
    if (request.url === "/to-lamp") return response.writeHead(301, { location: "/lamp.png" }).end();
    if (request.url === "/huge.png")
      return response.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(11 * 1024 * 1024));
    if (request.url === "/notes.txt")
      return response.writeHead(200, { "content-type": "image/png" }).end("not a picture at all");
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const importFile = (rows: string[]) => ({
  name: "pictures.csv",
  bytes: new TextEncoder().encode(["URL handle,Title,Price,Product image URL", ...rows].join("\n")),
});

describeEachDatabase("a CSV import's pictures from a shop that admits only public addresses", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let pictures: Awaited<ReturnType<typeof startPictureServer>>;
  beforeAll(async () => {
    pictures = await startPictureServer();
    shop = await createTestShop(getDatabase());
    shop.services.pictureFetcher.start();
  }, SLOW.timeout);
  afterAll(async () => {
    await shop.services.pictureFetcher.stop();
    await pictures.close();
  });

  it("refuses a picture on a loopback address, by number or by name, without sending it a request", SLOW, async () => {
    const outcome = await shop.services.productCsv.importFile(
      OPERATOR,
      importFile([
        `by-number,By Number,5.00,${pictures.origin}/lamp.png`,
        `by-name,By Name,5.00,http://localhost:${pictures.port}/lamp.png`,
        // IPv4-compatible IPv6 (::/96), as its IPv4 form.
        `by-compatible,By Compatible,5.00,http://[::127.0.0.1]:${pictures.port}/lamp.png`,
      ]),
    );
    expect(outcome.ok).toBe(true);
    await shop.services.pictureFetcher.idle();
    const report = outcome.ok ? await shop.services.productCsv.getImport(outcome.id) : undefined;
    expect(report?.pictures.map((picture) => [picture.slug, picture.status, picture.reason])).toEqual([
      ["by-number", "failed", NOT_PUBLIC],
      ["by-name", "failed", NOT_PUBLIC],
      ["by-compatible", "failed", NOT_PUBLIC],
    ]);
    expect(pictures.hits).toEqual([]);
    // The products are there, without a picture.
    const rows = await getDatabase()
      .db.selectFrom("products")
      .select(["slug", "image"])
      .where("slug", "in", ["by-number", "by-name"])
      .orderBy("slug")
      .execute();
    expect(rows).toEqual([
      { slug: "by-name", image: NO_PICTURE.src },
      { slug: "by-number", image: NO_PICTURE.src },
    ]);
  });
});

describeEachDatabase("a CSV import's pictures, with the tests' loopback picture server admitted", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let pictures: Awaited<ReturnType<typeof startPictureServer>>;
  beforeAll(async () => {
    pictures = await startPictureServer();
    shop = await createTestShop(getDatabase(), { allowLoopbackPictures: true });
    shop.services.pictureFetcher.start();
  }, SLOW.timeout);
  afterAll(async () => {
    await shop.services.pictureFetcher.stop();
    await pictures.close();
  });

  it(
    "fetches a picture after the import commits, through the upload's checks, and lists every failure on the import's report",
    SLOW,
    async () => {
      const rows = [
        `fetched-lamp,Fetched Lamp,25.00,${pictures.origin}/to-lamp`,
        `private-lamp,Private Lamp,25.00,${pictures.origin}/to-private`,
        `huge-lamp,Huge Lamp,25.00,${pictures.origin}/huge.png`,
        `text-lamp,Text Lamp,25.00,${pictures.origin}/notes.txt`,
        `missing-lamp,Missing Lamp,25.00,${pictures.origin}/gone.png`,
        "metadata-lamp,Metadata Lamp,25.00,http://169.254.169.254/latest/meta-data/",
      ];
      const outcome = await shop.services.productCsv.importFile(OPERATOR, importFile(rows));
      if (!outcome.ok) throw new Error(JSON.stringify(outcome.report));
      await shop.services.pictureFetcher.idle();
      const report = await shop.services.productCsv.getImport(outcome.id);
      expect(report?.pictures.map((picture) => [picture.line, picture.slug, picture.status, picture.reason])).toEqual([
        [2, "fetched-lamp", "stored", null],
        [3, "private-lamp", "failed", NOT_PUBLIC],
        [4, "huge-lamp", "failed", "The picture is larger than 10 MB."],
        [5, "text-lamp", "failed", "The picture must be a JPEG, PNG or WebP file."],
        [6, "missing-lamp", "failed", "The picture's address answered 404 Not Found."],
        [7, "metadata-lamp", "failed", NOT_PUBLIC],
      ]);
      // The redirect to a private address was followed no further than the check.
      expect(pictures.hits.filter((hit) => hit === "/to-private")).toHaveLength(1);

      const lamp = await getDatabase()
        .db.selectFrom("products")
        .select(["image", "image_srcset"])
        .where("slug", "=", "fetched-lamp")
        .executeTakeFirstOrThrow();
      expect(lamp.image).toMatch(/^\/pictures\/[a-f0-9]{32}\.webp$/);
      expect(lamp.image_srcset).toMatch(
        /^\/pictures\/[a-f0-9]{32}\.webp 200w, \/pictures\/[a-f0-9]{32}\.webp 400w, \/pictures\/[a-f0-9]{32}\.webp 600w$/,
      );

      // The same file again: the picture is not fetched twice, the product is unchanged.
      const lampHits = pictures.hits.filter((hit) => hit === "/lamp.png").length;
      const again = await shop.services.productCsv.preview(importFile(rows.slice(0, 1)));
      expect(again.products[0]).toMatchObject({ handle: "fetched-lamp", outcome: "unchanged" });
      const applied = await shop.services.productCsv.importFile(OPERATOR, importFile(rows.slice(0, 1)));
      await shop.services.pictureFetcher.idle();
      expect(applied.ok && (await shop.services.productCsv.getImport(applied.id))?.pictures).toEqual([]);
      expect(pictures.hits.filter((hit) => hit === "/lamp.png")).toHaveLength(lampHits);
    },
  );

  it("keeps a picture the operator gave the product while its import's picture was on its way", SLOW, async () => {
    // The fetcher held back: the operator's own picture arrives before the import's.
    await shop.services.pictureFetcher.stop();
    const outcome = await shop.services.productCsv.importFile(
      OPERATOR,
      importFile([`raced-lamp,Raced Lamp,25.00,${pictures.origin}/lamp.png`]),
    );
    if (!outcome.ok) throw new Error("refused");
    const { db } = getDatabase();
    const product = await db
      .selectFrom("products")
      .select("id")
      .where("slug", "=", "raced-lamp")
      .executeTakeFirstOrThrow();
    const ownPicture = await shop.services.pictures.storePicture(
      await sharp({ create: { width: 300, height: 300, channels: 3, background: { r: 1, g: 2, b: 3 } } })
        .jpeg()
        .toBuffer(),
    );
    await shop.services.catalogue.updateProduct(product.id, { image: ownPicture });
    shop.services.pictureFetcher.start();
    await shop.services.pictureFetcher.idle();
    expect(
      (await shop.services.productCsv.getImport(outcome.id))?.pictures.map((picture) => [
        picture.status,
        picture.reason,
      ]),
    ).toEqual([["failed", "The product was given another picture since the import: that one was kept."]]);
    expect(
      (await db.selectFrom("products").select("image").where("id", "=", product.id).executeTakeFirstOrThrow()).image,
    ).toBe(ownPicture.src);
  });
});
