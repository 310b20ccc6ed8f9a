/** The home page's rotating banners: the project's own pictures, drawn as WebP at two widths by `npm run images`. */
export const BANNER_SIZE = { width: 1500, height: 600 } as const;
export const BANNER_WIDTHS = [750, 1500] as const;

const labels = [
  "Books for curious minds",
  "Bake something wonderful",
  "Game on: ultra-wide monitors",
  "A smarter home",
  "Create anywhere",
  "Find it at Storefront: search every product",
];

/** Where banner `number` (from 1) lives under public/: its SVG source, or its WebP drawing at `width`. */
export function bannerPath(number: number, format: "svg" | { webpWidth: number }): string {
  return format === "svg" ? `/images/banners/banner-${number}.svg` : `/images/banners/banner-${number}-${format.webpWidth}.webp`;
}

export const banners = labels.map((label, index) => {
  const file = (width: number) => bannerPath(index + 1, { webpWidth: width });
  return {
    label,
    src: file(BANNER_SIZE.width),
    srcSet: BANNER_WIDTHS.map((width) => `${file(width)} ${width}w`).join(", "),
    ...BANNER_SIZE,
  };
});
