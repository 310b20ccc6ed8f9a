import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { expect, it } from "vitest";
import { AppError } from "#shared/errors";
import { failureOf } from "#server/testing/app-error";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { MAX_PICTURE_BYTES, PICTURE_WIDTHS } from "./picture-store";

/** A PNG file built by hand: what a hostile client can send, with any header it likes. */
function png(width: number, height: number, pixelData: Buffer): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", pixelData),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const photo = (format: "jpeg" | "png" | "webp", width = 1200, height = 900) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .toFormat(format)
    .toBuffer();

describeEachDatabase("product pictures", (getDatabase) => {
  const shop = () => createTestShop(getDatabase());
  const storedCount = async () =>
    Number(
      (
        await getDatabase()
          .db.selectFrom("pictures")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("re-encodes a JPEG, PNG or WebP as WebP at the pages' widths and serves each under its hash for a year", async () => {
    const { services, app } = await shop();
    for (const format of ["jpeg", "png", "webp"] as const) {
      const stored = await services.pictures.storePicture(await photo(format));
      expect(stored.src).toMatch(/^\/pictures\/[a-f0-9]{32}\.webp$/);
      expect(stored).toMatchObject({ width: 400, height: 300 });
      const candidates = stored.srcSet.split(", ").map((entry) => entry.split(" "));
      expect(candidates.map(([, width]) => width)).toEqual(PICTURE_WIDTHS.map((width) => `${width}w`));
      for (const [url, width] of candidates) {
        const response = await app.request(`http://shop.test${url}`);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("image/webp");
        expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
        const served = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
        expect(served.format).toBe("webp");
        expect(`${served.width}w`).toBe(width);
      }
    }
    // A small original is never enlarged: it exists at 200 and at its own width.
    const small = await services.pictures.storePicture(await photo("png", 300, 300));
    expect(small.srcSet.split(", ").map((entry) => entry.split(" ")[1])).toEqual(["200w", "300w"]);
    expect((await app.request("http://shop.test/pictures/00000000000000000000000000000000.webp")).status).toBe(404);
    expect((await app.request("http://shop.test/pictures/..%2Fsecret.webp")).status).toBe(404);
  });

  const hostile: [string, () => Promise<Uint8Array> | Uint8Array, RegExp][] = [
    ["a text file named .png", () => Buffer.from("definitely a picture"), /must be a JPEG, PNG or WebP/],
    [
      "a zip archive",
      () => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200)]),
      /must be a JPEG, PNG or WebP/,
    ],
    [
      "an SVG with a script",
      () =>
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script></svg>',
        ),
      /must be a JPEG, PNG or WebP/,
    ],
    ["a GIF", () => Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "binary"), /must be a JPEG, PNG or WebP/],
    // 7,500 × 7,500 grey pixels: 56 MB once decoded, 55 KB as sent.
    [
      "a decompression bomb",
      () => png(7_500, 7_500, deflateSync(Buffer.alloc(7_500 * 7_501), { level: 9 })),
      /too large: at most 8000 × 8000 pixels/,
    ],
    [
      "a huge dimension",
      () => png(100_000, 1, deflateSync(Buffer.alloc(100_001))),
      /too large: at most 8000 × 8000 pixels/,
    ],
    ["a JPEG cut short", async () => (await photo("jpeg")).subarray(0, 300), /could not be read/],
    [
      "a PNG header on JPEG data",
      async () =>
        Buffer.concat([
          Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
          (await photo("jpeg")).subarray(8),
        ]),
      /could not be read|must be/,
    ],
    [
      "a file over 10 MB",
      () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(MAX_PICTURE_BYTES)]),
      /larger than 10 MB/,
    ],
  ];

  for (const [name, file, message] of hostile) {
    it(`refuses ${name} with a message, and stores nothing`, async () => {
      const { services } = await shop();
      const before = await storedCount();
      const error = await failureOf(services.pictures.storePicture(await file()));
      expect(error).toBeInstanceOf(AppError);
      expect(error.message).toMatch(message);
      expect(error.details).toEqual({ field: "picture" });
      expect(await storedCount()).toBe(before);
    });
  }
});
