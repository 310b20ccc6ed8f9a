/** The home page's rotating banners: the project's own pictures, drawn as WebP at two widths by `npm run images`. */
export const BANNER_SIZE = { width: 1500, height: 600 } as const;
export const BANNER_WIDTHS = [750, 1500] as const;

/** Each banner's text, in the order they rotate: banner `n` is the n-th. */
export const BANNER_LABELS = [
  "Books for curious minds",
  "Bake something wonderful",
  "Game on: ultra-wide monitors",
  "A smarter home",
  "Create anywhere",
  "Find it at Storefront: search every product",
] as const;

/** Where banner `number` (from 1) lives under the project: its SVG source, or its WebP drawing at `width`. */
export function bannerPath(number: number, format: "svg" | { webpWidth: number }): string {
  return format === "svg" ? `/images/banners/banner-${number}.svg` : `/images/banners/banner-${number}-${format.webpWidth}.webp`;
}
