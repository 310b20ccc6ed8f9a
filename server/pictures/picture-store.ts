// The picture store: an upload checked, re-encoded to WebP in a few widths with sharp, and kept in the database under
// its content hash.

import { createHash } from "node:crypto";
import sharp from "sharp";
import { AppError } from "#shared/errors";
import type { DB } from "#server/db/client";

/** The largest upload accepted (the form's limit is a little above it, for the other fields). */
export const MAX_PICTURE_BYTES = 10 * 1024 * 1024;
/** Neither side may be longer: a real product photo is far below it, a "huge dimension" attack far above. */
export const MAX_PICTURE_SIDE = 8_000;
/**
 * Pixels sharp may decode (its limitInputPixels): a decompression bomb declares billions in a few kilobytes and is
 * refused before any of them are decoded.
 */
export const MAX_PICTURE_PIXELS = 40_000_000;
/**
 * The widths a picture is encoded at: the cards and the product page draw it 200 to 400 CSS pixels wide, so 200,
 * 400 and 800 cover 1× to 2× screens. A smaller original is never enlarged.
 */
export const PICTURE_WIDTHS = [200, 400, 800] as const;
/** The width whose file is the <img src> (and whose size the page reserves). */
const DEFAULT_WIDTH = 400;

export const PICTURE_PATH_PREFIX = "/pictures/";
const PICTURE_NAME = /^[a-f0-9]{32}\.webp$/;

const NOT_A_PICTURE = "The picture must be a JPEG, PNG or WebP file.";

/** A stored picture as a product refers to it. */
export interface StoredPicture {
  src: string;
  width: number;
  height: number;
  srcSet: string;
}

type PictureFormat = "jpeg" | "png" | "webp";

/** What the first bytes say the file is; null for anything else (SVG, GIF, a zip, a renamed text file). */
export function sniffPictureFormat(bytes: Uint8Array): PictureFormat | null {
  const starts = (signature: number[], at = 0) => signature.every((byte, index) => bytes[at + index] === byte);
  if (starts([0xff, 0xd8, 0xff])) return "jpeg";
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "webp";
  return null;
}

function refuse(message: string): AppError {
  return new AppError("BAD_REQUEST", message, { details: { field: "picture" } });
}

/**
 * Checks an upload by its content, never its name or declared type: the magic bytes, then sharp's reading of the
 * header (format, dimensions) before anything is decoded, then a full decode that re-encodes it. Whatever is stored
 * is sharp's own WebP output, without the original's metadata (EXIF, GPS).
 */
export async function encodePicture(bytes: Uint8Array): Promise<{ width: number; height: number; data: Buffer }[]> {
  if (bytes.byteLength === 0) throw refuse("Choose a picture to upload.");
  if (bytes.byteLength > MAX_PICTURE_BYTES) throw refuse("The picture is larger than 10 MB.");
  const format = sniffPictureFormat(bytes);
  if (!format) throw refuse(NOT_A_PICTURE);
  const options = { limitInputPixels: MAX_PICTURE_PIXELS, failOn: "error" as const, sequentialRead: true };
  // The header alone (no pixels are decoded), so that an oversized picture is told apart from a damaged one.
  const metadata = await sharp(bytes, { ...options, limitInputPixels: false })
    .metadata()
    .catch(() => {
      throw refuse("The picture could not be read: the file is damaged or not a picture.");
    });
  if (metadata.format !== format) throw refuse(NOT_A_PICTURE);
  const { width, height } = metadata;
  if (!width || !height) throw refuse("The picture could not be read: the file is damaged or not a picture.");
  if (width > MAX_PICTURE_SIDE || height > MAX_PICTURE_SIDE || width * height > MAX_PICTURE_PIXELS) {
    throw refuse(`The picture is too large: at most ${MAX_PICTURE_SIDE} × ${MAX_PICTURE_SIDE} pixels.`);
  }
  const largest = PICTURE_WIDTHS[PICTURE_WIDTHS.length - 1]!;
  const widths: number[] = [...PICTURE_WIDTHS.filter((candidate) => candidate < width), Math.min(width, largest)];
  try {
    return await Promise.all(
      [...new Set(widths)].map(async (target) => {
        const { data, info } = await sharp(bytes, options)
          .rotate() // upright by its EXIF orientation, which is then dropped with the rest of the metadata
          .resize({ width: target, withoutEnlargement: true })
          .webp({ quality: 80 })
          .toBuffer({ resolveWithObject: true });
        return { width: info.width, height: info.height, data };
      }),
    );
  } catch {
    throw refuse("The picture could not be read: the file is damaged or not a picture.");
  }
}

/** A picture checked and re-encoded at each width (encodePicture), not stored yet. */
export type EncodedPicture = Awaited<ReturnType<typeof encodePicture>>;

export function createPictureStore(db: DB) {
  /**
   * Stores a picture encodePicture has already checked: a form with several pictures checks them all before it
   * stores any, so that one refused picture leaves nothing behind.
   */
  async function storeEncoded(encoded: EncodedPicture): Promise<StoredPicture> {
    const rows = encoded.map((variant) => ({
      name: `${createHash("sha256").update(variant.data).digest("hex").slice(0, 32)}.webp`,
      content: variant.data,
      width: variant.width,
      height: variant.height,
    }));
    await db
      .insertInto("pictures")
      .values(rows)
      .onConflict((conflict) => conflict.column("name").doNothing())
      .execute();
    const main = rows.find((row) => row.width === DEFAULT_WIDTH) ?? rows[rows.length - 1]!;
    return {
      src: `${PICTURE_PATH_PREFIX}${main.name}`,
      width: main.width,
      height: main.height,
      srcSet: rows.map((row) => `${PICTURE_PATH_PREFIX}${row.name} ${row.width}w`).join(", "),
    };
  }

  return {
    storeEncoded,

    /** Validates, re-encodes and stores a picture at each width; nothing is stored when it is refused. */
    async storePicture(bytes: Uint8Array): Promise<StoredPicture> {
      return storeEncoded(await encodePicture(bytes));
    },

    /** A stored picture's bytes by its name, or undefined. */
    async readPicture(name: string): Promise<Buffer | undefined> {
      if (!PICTURE_NAME.test(name)) return undefined;
      const row = await db.selectFrom("pictures").select("content").where("name", "=", name).executeTakeFirst();
      return row?.content;
    },
  };
}

export type PictureStore = ReturnType<typeof createPictureStore>;
