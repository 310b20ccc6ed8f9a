// The shop's own pictures at the addresses the build names them by content, for loaders and the server only.

import { BANNERS, BANNER_SIZE, BANNER_WIDTHS, bannerPath } from "./banners";

/**
 * The shop's own pictures (images/: the seeded products' and the home page's banners, drawn by `npm run images`) at
 * the addresses the build gives them, /assets/{name}-{hash of the bytes}.webp, which are cached for a year like the
 * scripts (never inlined as data: URLs: vite.config.ts); in development and tests, each file's own path. The keys are
 * the paths under the project ("/images/products/….webp"), which the catalogue's rows hold and which were the
 * pictures' addresses before the build named them by content.
 * Only loaders and the server import this module, so the browser's scripts never carry the list.
 */
const builtUrls: Readonly<Record<string, string>> = import.meta.glob<string>("/images/*/*.webp", {
  query: "?url",
  import: "default",
  eager: true,
});

/**
 * A picture's address from the reference a product row holds: a seeded picture's path becomes its built address
 * (rows seeded before the pictures were WebP name the SVG it was drawn from); anything else, an operator's
 * /pictures/{hash}.webp, already is one.
 */
export function pictureUrl(reference: string): string {
  return builtUrls[reference] ?? builtUrls[reference.replace(/\.svg$/, ".webp")] ?? reference;
}

/** Each built picture with the start of the name every build gives it ("/assets/12321341-"). */
const pictures = Object.entries(builtUrls).map(([path, url]) => ({
  url,
  builtNamePrefix: `/assets/${path.slice(path.lastIndexOf("/") + 1, -".webp".length)}-`,
}));

/**
 * Where a request for a picture's former address goes now, or undefined when the address is not one: a seeded
 * picture's path (its address before the build named pictures by content, still in browser caches and e-mails),
 * or the name an earlier build gave it, [name]-[hash].webp (orders keep the address their pictures had when paid).
 */
export function currentPictureUrl(requestPath: string): string | undefined {
  const built = pictureUrl(requestPath);
  if (built !== requestPath) return built;
  return pictures.find(
    ({ url, builtNamePrefix }) =>
      url !== requestPath &&
      requestPath.startsWith(builtNamePrefix) &&
      /^[\w-]+\.webp$/.test(requestPath.slice(builtNamePrefix.length)),
  )?.url;
}

/**
 * The reference a product row holds for one of the shop's own pictures, from an address of it (its built one, an
 * earlier build's, or its path under the project), or undefined when the address is not one of them.
 */
export function shopPictureReference(requestPath: string): string | undefined {
  const current = builtUrls[requestPath] ? requestPath : (currentPictureUrl(requestPath) ?? requestPath);
  return Object.entries(builtUrls).find(([reference, url]) => reference === current || url === current)?.[0];
}

/** The home page's banners as the carousel draws them: each picture at both widths, with its words. */
export const bannerSlides = BANNERS.map((banner, index) => {
  const url = (width: number) => pictureUrl(bannerPath(index + 1, { webpWidth: width }));
  return {
    ...banner,
    src: url(BANNER_SIZE.width),
    srcSet: BANNER_WIDTHS.map((width) => `${url(width)} ${width}w`).join(", "),
    ...BANNER_SIZE,
  };
});
