// The home page's rotating banners: each picture and the words set over it as text, so they stay readable on a phone.

/**
 * The home page's rotating banners. Each is a picture (the project's own artwork, drawn as WebP at two widths by
 * `npm run images`) and its words, which the page sets as text over or beside the picture: words baked into a
 * picture shrink with it, to about 7 px on a phone, and no screen reader or search engine can read them.
 */
export const BANNER_SIZE = { width: 1500, height: 600 } as const;
export const BANNER_WIDTHS = [750, 1500] as const;

export interface Banner {
  /** The short line above the headline. */
  eyebrow: string;
  /** The headline as it breaks on a wide screen (a narrow one wraps it where it must); together, the slide's name. */
  headline: readonly string[];
  subtitle: string;
  /** Names the banner's colours in the stylesheet (`carousel__slide--{theme}`): its ink and its accent. */
  theme: string;
}

/** The banners in the order they rotate: banner `n` is the n-th, drawn from images/banners/banner-n.svg. */
export const BANNERS = [
  {
    eyebrow: "New releases",
    headline: ["Books for", "curious minds"],
    subtitle: "Bestsellers, classics and new voices, delivered fast.",
    theme: "books",
  },
  {
    eyebrow: "Kitchen & baking",
    headline: ["Bake something", "wonderful"],
    subtitle: "Stand mixers, bakeware and everything in between.",
    theme: "baking",
  },
  {
    eyebrow: "Gaming week",
    headline: ["Game on:", "ultra-wide monitors"],
    subtitle: "Curved 49-inch screens that put you in the race.",
    theme: "gaming",
  },
  {
    eyebrow: "Smart home",
    headline: ["A smarter home"],
    subtitle: "Voice control for music, lights and more. Just ask.",
    theme: "home",
  },
  {
    eyebrow: "Tablets & pens",
    headline: ["Create anywhere"],
    subtitle: "Pro displays and pencils that keep up with your ideas.",
    theme: "create",
  },
  {
    eyebrow: "Everything in one place",
    headline: ["Find it here:", "search every product"],
    subtitle: "Books, kitchen, monitors, speakers and tablets, a search away.",
    theme: "search",
  },
] as const satisfies readonly Banner[];

/** Where banner `number` (from 1) lives under the project: its SVG source, or its WebP drawing at `width`. */
export function bannerPath(number: number, format: "svg" | { webpWidth: number }): string {
  return format === "svg"
    ? `/images/banners/banner-${number}.svg`
    : `/images/banners/banner-${number}-${format.webpWidth}.webp`;
}
