/** The home page's rotating banners: the project's own pictures, drawn as WebP at two widths by `npm run images`. */
export const BANNER_SIZE = { width: 1500, height: 600 } as const;
export const BANNER_WIDTHS = [750, 1500] as const;

const labels = [
  "Books for curious minds",
  "Bake something wonderful",
  "Game on: ultra-wide monitors",
  "A smarter home",
  "Create anywhere",
  "Deals of the week: up to 30% off",
];

export const banners = labels.map((label, index) => {
  const file = (width: number) => `/images/banners/banner-${index + 1}-${width}.webp`;
  return {
    label,
    src: file(BANNER_SIZE.width),
    srcSet: BANNER_WIDTHS.map((width) => `${file(width)} ${width}w`).join(", "),
    ...BANNER_SIZE,
  };
});

export const BANNER_COUNT = labels.length;
